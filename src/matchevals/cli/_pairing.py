"""Pairing by id in the reading process, from ids alone: the reference index and its verdicts.

The references are indexed first: the workers read the ids of the reference lines (from the
text where that is exact, :meth:`~matchevals.cli._value_text.ValueText.read_id`, else by
parsing the line) and send back only the ids. The index keeps, per id, where its line is
(position, byte offset, length and whether the line was parsed) packed in one integer, never
the reference itself. So memory grows with the number of ids (about 150 bytes each), not with
the size of the examples, and neither file is ever held whole in any process. Then, for each
chunk of outputs, the workers send back the outputs' ids; the index decides each output's fate
in file order (its reference line, read again from disk by byte offset and sent to the worker
that holds the output, which parses it; or the problem: no such reference, a duplicate), and
numbers the pairs.

A reference line whose id was read from its text is parsed when it is used, so one that is not
JSON after all is reported then, in the place of the output it would have been scored with
(``ref.jsonl:5: not valid JSON … (so out.jsonl:3 is not scored)``), or at the end when no output
asked for it. Where one id is on two lines, both are parsed there and then, so that a line that
is not JSON is reported as such, never as a duplicate.

One broken example is counted once: an output without a reference while some reference lines
had no readable id (or the other way round) is still reported, but not counted again as long
as those unreadable lines could be its partners.

>>> lines = {0: b'{"id": 1}\\n', 10: b'{"id": 1}\\n'}
>>> def fetch(offset, length):
...     return lines[offset]
>>> index = ReferenceIndex("id", Side("ref.jsonl"))
>>> index.add(Chunk(0, list(lines.values()), list(lines)), [1, 1], [], fetch)
[(1, Problem(where='ref.jsonl:2', message='duplicate id 1 (first at ref.jsonl:1)', counted=True))]
>>> index.decide([1, 2, None, 1], Side("out.jsonl"), 0, lambda offset, length: b"line")
([(0, b'line'), Problem(where='out.jsonl:2', message='no reference with id 2', counted=True), \
None, Problem(where='out.jsonl:4', message='duplicate id 1 in the outputs', counted=True)], 1)
>>> index.orphans(fetch)
[]
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from matchevals.cli._read import Chunk, LineError, Problem, Side, decode
from matchevals.cli._work import Decision

__all__ = ["ReferenceIndex"]

# an index entry: position << 81 | byte offset << 41 | length << 1 | parsed (offsets and
# lengths up to 1 TiB); ~entry once an output has used it
_BITS = 40
_MASK = (1 << _BITS) - 1

Fetch = Callable[[int, int], bytes]


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
        self._where: dict[Any, int] = {}  # id -> position, offset, length, parsed; ~x once used
        self._unreadable_references = _Unreadable()
        self._unreadable_outputs = _Unreadable()

    def add(
        self, chunk: Chunk, ids: list[Any], parsed: Collection[int], fetch: Fetch
    ) -> list[tuple[int, Problem]]:
        """Index one chunk of reference lines (``ids[i]``: an id or the line's Problem; the
        lines at ``parsed`` were parsed, the others' ids read from their text); the problems
        found, each with the position of the line it is about."""
        problems: list[tuple[int, Problem]] = []
        index, first, parsed = self._where, chunk.first, set(parsed)
        for i, (line, offset, ident) in enumerate(
            zip(chunk.lines, chunk.offsets, ids, strict=True)
        ):
            if isinstance(ident, Problem):
                self._unreadable_references.count += 1
                problems.append((first + i, ident))
            elif ident in index:
                entry = (first + i, offset, len(line), i in parsed)
                problems.append(self._duplicate(ident, entry, line, fetch))
            else:
                index[ident] = _pack(first + i, offset, len(line), i in parsed)
        return problems

    def _duplicate(
        self, ident: Any, entry: tuple[int, int, int, bool], line: bytes, fetch: Fetch
    ) -> tuple[int, Problem]:
        """A second line with a known id: a duplicate, unless one of the two is not JSON (then
        that one is the problem, and the other is the reference)."""
        position, _, _, parsed = entry
        if not parsed and (why := _not_json(line)) is not None:
            self._unreadable_references.count += 1
            return position, Problem(self.side.where(position), why)
        first, offset, length, first_parsed = _unpack(self._where[ident])
        if not first_parsed and (why := _not_json(fetch(offset, length))) is not None:
            self._unreadable_references.count += 1
            self._where[ident] = _pack(*entry[:3], True)
            return first, Problem(self.side.where(first), why)
        message = f"duplicate {self.key} {ident!r} (first at {self.side.where(first)})"
        return position, Problem(self.side.where(position), message)

    def decide(
        self, ids: list[Any], side: Side, first: int, fetch: Fetch
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
                line = fetch((packed >> 1 + _BITS) & _MASK, (packed >> 1) & _MASK)
                decisions.append((packed >> 1 + 2 * _BITS, line))
                pairs += 1
        return decisions, pairs

    def orphans(self, fetch: Fetch) -> list[Problem]:
        """The references no output asked for, in file order (a line whose id was read from
        its text is parsed now: one that is not JSON is reported as such)."""
        problems = []
        for ident, packed in self._where.items():
            if packed < 0:
                continue
            position, offset, length, parsed = _unpack(packed)
            where = self.side.where(position)
            why = None if parsed else _not_json(fetch(offset, length))
            if why is not None:
                problems.append(Problem(where, why))
                continue
            message = f"no output with {self.key} {ident!r}"
            problems.append(self._unreadable_outputs.orphan(where, message, "output"))
        return problems


def _not_json(line: bytes) -> str | None:
    """Why ``line`` is not a JSON object with an id, or None."""
    try:
        value = decode(line)
    except LineError as error:
        return str(error)
    return None if isinstance(value, dict) else "its line changed while it was being read"


def _pack(position: int, offset: int, length: int, parsed: bool) -> int:
    return (((position << _BITS | offset) << _BITS | length) << 1) | parsed


def _unpack(packed: int) -> tuple[int, int, int, bool]:
    if packed < 0:
        packed = ~packed
    return (
        packed >> 1 + 2 * _BITS,
        (packed >> 1 + _BITS) & _MASK,
        (packed >> 1) & _MASK,
        bool(packed & 1),
    )
