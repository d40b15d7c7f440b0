"""Pairing by id in the reading process, from ids alone: the reference index and its verdicts.

The references are indexed first: workers parse the reference lines and send back only their
ids, and the index keeps, per id, where its line is (position, byte offset, length) packed in
one integer, never the reference itself. So memory grows with the number of ids (about 150
bytes each), not with the size of the examples, and neither file is ever held whole in any
process. Then, for each chunk of outputs, the workers send back the outputs' ids; the index
decides each output's fate in file order (its reference line, read again from disk by byte
offset and sent to the worker that holds the output; or the problem: no such reference, a
duplicate), and numbers the pairs.

One broken example is counted once: an output without a reference while some reference lines
had no readable id (or the other way round) is still reported, but not counted again as long
as those unreadable lines could be its partners.

>>> index = ReferenceIndex("id", Side("ref.jsonl"))
>>> index.add(Chunk(0, [b'{"id": 1}\\n', b'{"id": 1}\\n'], [0, 10]), [1, 1])
[Problem(where='ref.jsonl:2', message='duplicate id 1 (first at ref.jsonl:1)', counted=True)]
>>> index.decide([1, 2, None, 1], Side("out.jsonl"), 0, lambda offset, length: b"line")
([b'line', Problem(where='out.jsonl:2', message='no reference with id 2', counted=True), \
None, Problem(where='out.jsonl:4', message='duplicate id 1 in the outputs', counted=True)], 1)
>>> index.orphans()
[]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matchevals.cli._read import Chunk, Problem, Side
from matchevals.cli._work import Decision

__all__ = ["ReferenceIndex"]

_FIELD = 1 << 40  # offsets and lengths up to 1 TiB


class _Unreadable:
    """Lines of one side whose id is unknown: each may be the partner of one orphan of the other."""

    def __init__(self) -> None:
        self.count = 0

    def orphan(self, where: str, message: str, side: str) -> Problem:
        if self.count <= 0:
            return Problem(where, message)
        self.count -= 1
        note = f" (not counted again: it may be one of the {side} lines whose id could not be read)"
        return Problem(where, message + note, counted=False)


class ReferenceIndex:
    """Where each reference id's line is, which were used, and the problems pairing found."""

    def __init__(self, key: str, side: Side) -> None:
        self.key, self.side = key, side
        self._where: dict[Any, int] = {}  # id -> position, offset, length packed; ~x once used
        self._unreadable_references = _Unreadable()
        self._unreadable_outputs = _Unreadable()

    def add(self, chunk: Chunk, ids: list[Any]) -> list[Problem]:
        """Index one chunk of reference lines (``ids[i]``: an id or the line's Problem)."""
        problems: list[Problem] = []
        index, key = self._where, self.key
        for line, offset, ident, position in zip(
            chunk.lines,
            chunk.offsets,
            ids,
            range(chunk.first, chunk.first + len(ids)),
            strict=True,
        ):
            if isinstance(ident, Problem):
                self._unreadable_references.count += 1
                problems.append(ident)
            elif ident in index:
                first = self.side.where(_unpack(index[ident])[0])
                where = self.side.where(position)
                problems.append(Problem(where, f"duplicate {key} {ident!r} (first at {first})"))
            else:
                index[ident] = (position * _FIELD + offset) * _FIELD + len(line)
        return problems

    def decide(
        self, ids: list[Any], side: Side, first: int, fetch: Callable[[int, int], bytes]
    ) -> tuple[list[Decision], int]:
        """Each output's fate (``ids[i]``: its id, None when it has none) and the pair count."""
        decisions: list[Decision] = []
        index, key, pairs = self._where, self.key, 0
        for position, ident in enumerate(ids, first):
            if ident is None:
                self._unreadable_outputs.count += 1
                decisions.append(None)
                continue
            packed = index.get(ident)
            if packed is None:
                message = f"no reference with {key} {ident!r}"
                where = side.where(position)
                decisions.append(self._unreadable_references.orphan(where, message, "reference"))
            elif packed < 0:
                where = side.where(position)
                decisions.append(Problem(where, f"duplicate {key} {ident!r} in the outputs"))
            else:
                index[ident] = ~packed
                _, offset, length = _unpack(packed)
                decisions.append(fetch(offset, length))
                pairs += 1
        return decisions, pairs

    def orphans(self) -> list[Problem]:
        """The references no output asked for, in file order."""
        problems = []
        for ident, packed in self._where.items():
            if packed >= 0:
                where = self.side.where(_unpack(packed)[0])
                message = f"no output with {self.key} {ident!r}"
                problems.append(self._unreadable_outputs.orphan(where, message, "output"))
        return problems


def _unpack(packed: int) -> tuple[int, int, int]:
    if packed < 0:
        packed = ~packed
    rest, length = divmod(packed, _FIELD)
    position, offset = divmod(rest, _FIELD)
    return position, offset, length
