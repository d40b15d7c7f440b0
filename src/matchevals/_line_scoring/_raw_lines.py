"""Examples as raw JSON lines: how the examples of one file are named (:class:`Side`), a run of
consecutive lines (:class:`Chunk`), and the id a line holds (:func:`id_of`, :func:`keyed`).

Pure: whoever reads a file makes the chunks (:class:`matchevals.cli._read.Reader`); whoever
scores them decodes the lines (:func:`matchevals._scoring.decode`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from matchevals._scoring import LineError, Problem, decode
from matchevals._values import a_type

__all__ = ["Chunk", "Side", "id_of", "keyed"]


@dataclass(frozen=True, slots=True)
class Side:
    """How the examples of one file are named: ``out.jsonl:17``, ``out.json[16]`` or ``one.json``.

    >>> Side("runs.jsonl", "line").where(16), Side("runs.json", "item").where(16)
    ('runs.jsonl:17', 'runs.json[16]')
    """

    name: str
    style: Literal["line", "item", "single"] = "line"

    def where(self, position: int) -> str:
        if self.style == "line":
            return f"{self.name}:{position + 1}"
        if self.style == "item":
            return f"{self.name}[{position}]"
        return self.name


@dataclass(frozen=True, slots=True)
class Chunk:
    """Consecutive examples of one file: ``lines[i]`` is example ``first + i``.

    ``offsets[i]`` is where ``lines[i]`` starts: a byte offset in a JSONL file, the position in a
    ``.json`` document.
    """

    first: int
    lines: list[bytes]
    offsets: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.lines)


def id_of(value: Any, key: str) -> tuple[Any, str | None]:
    """``(id, None)`` for an object holding a usable ``key``, else ``(None, why not)``.

    >>> id_of([1], "id")
    (None, "the example is a list, not an object, so it has no --id-key 'id'")
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        return None, f"the example is {a_type(value)}, not an object, so it has no --id-key {key!r}"
    if key not in value:
        return None, f"the example has no {key!r} (the --id-key)"
    ident = value[key]
    if not isinstance(ident, (str, int, float)) or isinstance(ident, bool):
        return None, (
            f"the example's {key!r} (the --id-key) is {a_type(ident)}; "
            "expected a string or a number"
        )
    return ident, None


def keyed(line: bytes, key: str, where: str) -> tuple[Any, Any] | Problem:
    """A line's value without its ``key`` and the id it held, or the Problem in its place.

    >>> keyed(b'{"id": 7, "a": 1}', "id", "out.jsonl:1")
    ({'a': 1}, 7)
    """
    try:
        value = decode(line)
    except LineError as error:
        return Problem(where, str(error))
    ident, why = id_of(value, key)
    if why is not None:
        return Problem(where, why)
    del value[key]
    return value, ident
