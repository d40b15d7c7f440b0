"""Pairing by id in the reading process: an index from each reference id to where its line is.

The references are indexed first: their ids are read from the text where that is exact
(:meth:`~matchevals._line_scoring._value_text.ValueText.read_id`), else by parsing the line
(:func:`reference_ids`). The index keeps, per id, where its line is (position, byte offset,
length and whether the line was parsed) packed in one integer, never the reference itself. So
memory grows with the number of ids (about 150 bytes each), not with the size of the examples,
and neither file is ever held whole. Then, for each chunk of outputs (whose ids
:func:`output_ids` reads by parsing each line, so that a line that is not JSON is never paired),
the index decides each output's fate in file order: where its reference line is, as one integer
(the line is read again by byte offset, :func:`reference_lines`, and sent with the output to
whoever scores it), or the problem: no such reference, a duplicate.

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
>>> chunk = Chunk(0, list(lines.values()), list(lines))
>>> index.add([1, 1], line_places(chunk, parsed=[]), fetch)
[(1, Problem(where='ref.jsonl:2', message='duplicate id 1 (first at ref.jsonl:1)', counted=True))]
>>> decisions, pairs = index.decide([1, 2, None, 1], Side("out.jsonl"), 0)
>>> place_of(decisions[0]), decisions[1:], pairs
((0, 0, 10), [Problem(where='out.jsonl:2', message='no reference with id 2', counted=True), \
None, Problem(where='out.jsonl:4', message='duplicate id 1 in the outputs', counted=True)], 1)
>>> reference_lines(decisions, fetch)
[b'{"id": 1}\\n', None, None, None]
>>> index.orphans(fetch)
[]
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TypeAlias

from matchevals._line_scoring._raw_lines import Chunk, Side, id_of
from matchevals._line_scoring._value_text import UNREAD, ValueText
from matchevals._scoring import LineError, Problem, decode

__all__ = [
    "Decision",
    "ReferenceIndex",
    "line_places",
    "output_ids",
    "place_of",
    "reference_ids",
    "reference_lines",
]

# By id, the fate of each output line: None (the worker's own problem with it), a Problem the
# reader found (no such reference, a duplicate), or where the reference's line is (place_of).
Decision: TypeAlias = "Problem | int | None"

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

    def add(self, ids: list[Any], places: list[int], fetch: Fetch) -> list[tuple[int, Problem]]:
        """Index one chunk of reference lines (``ids[i]``: an id or the line's Problem;
        ``places[i]``: where the line is, see :func:`line_places`); the problems found, each
        with the position of the line it is about (a line ``fetch`` reads again to judge)."""
        problems: list[tuple[int, Problem]] = []
        index = self._where
        for place, ident in zip(places, ids, strict=True):
            if isinstance(ident, Problem):
                self._unreadable_references.count += 1
                problems.append((_unpack(place)[0], ident))
            elif ident in index:
                problems.append(self._duplicate(ident, _unpack(place), fetch))
            else:
                index[ident] = place
        return problems

    def _duplicate(
        self, ident: Any, entry: tuple[int, int, int, bool], fetch: Fetch
    ) -> tuple[int, Problem]:
        """A second line with a known id: a duplicate, unless one of the two is not JSON (then
        that one is the problem, and the other is the reference)."""
        position, offset, length, parsed = entry
        if not parsed and (why := _not_json(fetch(offset, length))) is not None:
            self._unreadable_references.count += 1
            return position, Problem(self.side.where(position), why)
        first, offset, length, first_parsed = _unpack(self._where[ident])
        if not first_parsed and (why := _not_json(fetch(offset, length))) is not None:
            self._unreadable_references.count += 1
            self._where[ident] = _pack(*entry[:3], True)
            return first, Problem(self.side.where(first), why)
        message = f"duplicate {self.key} {ident!r} (first at {self.side.where(first)})"
        return position, Problem(self.side.where(position), message)

    def decide(self, ids: list[Any], side: Side, first: int) -> tuple[list[Decision], int]:
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
                decisions.append(packed)
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


def reference_ids(chunk: Chunk, cut: ValueText, side: Side) -> tuple[list[Any], list[int]]:
    """Each reference line's id (read from its text where that is exact, else parsed), or the
    Problem that it has none; and where each line is (:func:`line_places`)."""
    key = cut.key
    assert key is not None
    ids = [cut.read_id(line) for line in chunk.lines]
    parsed = [i for i, ident in enumerate(ids) if ident is UNREAD]
    for i in parsed:
        where = side.where(chunk.first + i)
        try:
            ident, why = id_of(decode(chunk.lines[i]), key)
        except LineError as error:
            ids[i] = Problem(where, str(error))
            continue
        ids[i] = ident if why is None else Problem(where, why)
    return ids, line_places(chunk, parsed)


def output_ids(chunk: Chunk, key: str, side: Side) -> tuple[list[Any], list[Problem | None]]:
    """Each output line's id (None where it has none) and the problem that it has none (None
    where it has one), the line parsed whole: a line that is not JSON is never paired."""
    ids: list[Any] = []
    problems: list[Problem | None] = []
    for position, line in enumerate(chunk.lines, chunk.first):
        try:
            ident, why = id_of(decode(line), key)
        except LineError as error:
            ident, why = None, str(error)
        ids.append(ident)
        problems.append(None if why is None else Problem(side.where(position), why))
    return ids, problems


def line_places(chunk: Chunk, parsed: Collection[int]) -> list[int]:
    """Where each line of ``chunk`` is, packed in one integer: its position, byte offset and
    length, and whether it was parsed (the lines at ``parsed``) to read its id."""
    shift = 1 + 2 * _BITS
    places = [
        position << shift | offset << 1 + _BITS | len(line) << 1
        for position, line, offset in zip(
            range(chunk.first, chunk.first + len(chunk.lines)), chunk.lines, chunk.offsets,
            strict=True,
        )
    ]  # fmt: skip
    for i in parsed:
        places[i] |= 1
    return places


def place_of(decision: int) -> tuple[int, int, int]:
    """Where the reference line of an output is: its position, byte offset and length."""
    return _unpack(decision)[:3]


def reference_lines(decisions: list[Decision], fetch: Fetch) -> list[bytes | None]:
    """The reference line each decision names (None for a problem), read by ``fetch``."""
    lines: list[bytes | None] = []
    for decision in decisions:
        if type(decision) is int:  # unpacked here: one per output
            lines.append(fetch((decision >> 1 + _BITS) & _MASK, (decision >> 1) & _MASK))
        else:
            lines.append(None)
    return lines


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
