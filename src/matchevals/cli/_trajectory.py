"""What ``matchevals trajectory`` reads: one agent trajectory per example.

An example is a list of messages or a dict with ``messages`` (a LangGraph state, or a record
with ``--id-key``). A trajectory is itself a list, so a ``.json`` file is read by what it holds:
a list of messages is one example, a list of trajectories is one example each, anything mixing
the two is refused. A single message where a trajectory is expected (a JSONL file written one
message per line) is an invalid example, never scored as a trajectory of one message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from matchevals.cli._read import InputError

__all__ = ["is_one_trajectory", "trajectory_evaluator"]


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and "messages" not in value
        and ("role" in value or "type" in value)
    )


def _is_trajectory(value: Any) -> bool:
    return isinstance(value, list) or (isinstance(value, Mapping) and "messages" in value)


def is_one_trajectory(path: Path, document: Any) -> bool:
    """Whether a ``.json`` document is one trajectory (a list of messages), not a list of them.

    >>> is_one_trajectory(Path("one.json"), [{"role": "user", "content": "hi"}])
    True
    >>> is_one_trajectory(Path("many.json"), [[{"role": "user", "content": "hi"}]])
    False
    """
    if not isinstance(document, list) or not any(map(_is_message, document)):
        return False
    if all(map(_is_message, document)):
        return True
    first = next(index for index, item in enumerate(document) if not _is_message(item))
    kind = "a trajectory" if _is_trajectory(document[first]) else "neither a message nor one"
    raise InputError(
        f"{path}: a list whose item 0 is a message but item {first} is {kind}; a .json file "
        "holds one trajectory (a list of messages) or a list of trajectories"
    )


def _check(value: Any, side: str) -> None:
    if _is_message(value):
        raise ValueError(
            f"{side} is one message, not a trajectory; each example is a list of messages or "
            '{"messages": [...]} (one trajectory per line of a JSONL file)'
        )


def _evaluate(
    evaluator: Callable[..., Any], *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> Any:
    _check(outputs, "outputs")
    _check(reference_outputs, "reference_outputs")
    return evaluator(outputs=outputs, reference_outputs=reference_outputs, **kwargs)


def trajectory_evaluator(options: dict[str, Any]) -> Callable[..., Any]:
    """A trajectory-match evaluator that refuses single messages as examples.

    >>> evaluate = trajectory_evaluator({"trajectory_match_mode": "unordered"})
    >>> evaluate(outputs=[], reference_outputs={"messages": []})["score"]
    True
    """
    from matchevals.trajectory import create_trajectory_match_evaluator

    return partial(_evaluate, create_trajectory_match_evaluator(**options))
