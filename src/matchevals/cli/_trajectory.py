"""What ``matchevals trajectory`` reads: one agent trajectory per example.

An example is a list of messages or a dict with ``messages`` (a LangGraph state, or a record
with ``--id-key``). A trajectory is itself a list, so a ``.json`` file is read by what it holds:
a list of messages is one example, a list of trajectories is one example each, anything mixing
the two is refused. (A single message where a trajectory is expected is refused when the
example is scored, see :mod:`matchevals._line_scoring`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matchevals._line_scoring import is_message
from matchevals.cli._read import InputError

__all__ = ["is_one_trajectory"]


def _is_trajectory(value: Any) -> bool:
    return isinstance(value, list) or (isinstance(value, Mapping) and "messages" in value)


def is_one_trajectory(path: Path, document: Any) -> bool:
    """Whether a ``.json`` document is one trajectory (a list of messages), not a list of them.

    >>> is_one_trajectory(Path("one.json"), [{"role": "user", "content": "hi"}])
    True
    >>> is_one_trajectory(Path("many.json"), [[{"role": "user", "content": "hi"}]])
    False
    """
    if not isinstance(document, list) or not any(map(is_message, document)):
        return False
    if all(map(is_message, document)):
        return True
    first = next(index for index, item in enumerate(document) if not is_message(item))
    kind = "a trajectory" if _is_trajectory(document[first]) else "neither a message nor one"
    raise InputError(
        f"{path}: a list whose item 0 is a message but item {first} is {kind}; a .json file "
        "holds one trajectory (a list of messages) or a list of trajectories"
    )
