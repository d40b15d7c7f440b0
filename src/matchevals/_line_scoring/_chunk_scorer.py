"""The chunk scorer: a chunk of raw input lines in, its report lines, rows and tally out.

Pure: :class:`ChunkScorer` reads no file and writes nothing; it is given the lines of a chunk
of outputs (with, by position, the reference lines at the same positions; by id, each output's
reference line or the problem standing in its place, see
:mod:`matchevals._line_scoring._id_index`; with one reference for every output, nothing more),
parses them, scores each pair, and renders the report's lines (encoded in the report's
encoding, so they are written as they come). Whichever process scores a chunk, its
:class:`Batch` is the same, so every engine writes the same bytes.

Examples are numbered within the chunk, from 0: how many pairs the chunks before it held is
known only once they are parsed, wherever that happens. :meth:`Batch.place` numbers them for
good, once the batches come back in input order.

>>> from matchevals._line_scoring import Side
>>> job = Job("json", {}, "position", Side("out.jsonl"), Side("ref.jsonl"), lines=True)
>>> batch = ChunkScorer(job)(Lines(0, [b'{"a": 1}\\n', b'{"a": 2}\\n'], [b'{"a": 1}\\n', b"\\n"]))
>>> batch.pairs, batch.tally.scored, batch.tally.problems
(1, 1, [Problem(where='ref.jsonl:2', message='blank line ... is not scored)', counted=True)])
>>> batch.place(40, "utf-8")[:44]
b'{"type": "example", "index": 40, "id": 0, "w'
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from matchevals._json_escape import JSON_ESCAPE
from matchevals._line_scoring._evaluators import build_evaluator
from matchevals._line_scoring._id_index import place_of
from matchevals._line_scoring._raw_lines import Side, keyed
from matchevals._line_scoring._value_text import ValueText, encode_value
from matchevals._scoring import LineError, Problem, Scored, decode, score_example
from matchevals.report._examples import ReportExample
from matchevals.report._lines import example_body, example_head, jsonl_line
from matchevals.report._stats import Tally
from matchevals.report._summary import Kind

__all__ = ["Batch", "ChunkScorer", "Job", "Lines", "Pairing", "Row", "Span"]

Pairing = Literal["position", "id", "one"]
Row = tuple[int, Any, str, float, str]
# by id, an output's reference: its line and where it is (see _id_index.place_of), or the
# problem in the pair's place
Partner = tuple[bytes, int] | Problem


@dataclass(frozen=True)
class Job:
    """What scoring a chunk needs besides its lines; sent once to each worker."""

    kind: Kind
    options: dict[str, Any]
    pairing: Pairing
    outputs: Side
    references: Side
    id_key: str | None = None  # pairing "one": the key that labels each output, if any
    reference: Any = None  # the one reference of pairing "one"
    lines: bool = False  # render the JSONL report lines (with the examples' values)
    worst: int = 5
    details: int | None = None  # --format html: its rows, and the worst N's details
    encoding: str = "utf-8"  # the report's (see matchevals.cli._output.report_encoding)


@dataclass(frozen=True, slots=True)
class Span:
    """Where ``count`` lines of the JSONL file at ``path`` are: bytes ``start`` to ``end``."""

    path: str
    start: int
    end: int
    count: int


@dataclass(frozen=True, slots=True)
class Lines:
    """A chunk: the examples at positions ``first`` on (output lines; by position, the
    reference lines at the same positions, either side shorter where its file ran out; by id,
    each output's partner). Lines come as a :class:`Span` to workers that read them from the
    file themselves (the engine reads them before the scorer sees the chunk)."""

    first: int
    outputs: list[bytes] | Span
    references: list[bytes] | Span | None = None
    partners: list[Partner] | None = None


@dataclass(slots=True)
class Batch:
    """A chunk scored: its report lines (for ``lines`` jobs; an example's line without its
    head), the number of each line's example within the chunk (-1 for a problem's), its tally,
    and for ``--format html`` its rows and its worst examples with their values."""

    lines: list[bytes]
    numbers: list[int]
    tally: Tally
    pairs: int = 0  # examples numbered in the chunk
    items: int = 0  # examples in the chunk, valid or not
    rows: list[Row] = field(default_factory=list)
    details: list[ReportExample] = field(default_factory=list)
    id_is_index: bool = False  # examples against one reference are known by their number

    def place(self, first: int, encoding: str) -> bytes:
        """Number the chunk's examples from ``first`` (its tally, rows and details too) and
        return its report lines, encoded."""
        if first or self.id_is_index:
            self._renumber(first)
        parts = []
        for number, line in zip(self.numbers, self.lines, strict=True):
            if number >= 0:
                parts.append(example_head(first + number, self.id_is_index).encode(encoding))
            parts.append(line)
        return b"".join(parts)

    def _renumber(self, first: int) -> None:
        same = self.id_is_index

        def moved(item: Scored) -> Scored:
            index = item.index + first
            return Scored(index, index if same else item.id, item.where, item.score, item.results)

        self.tally.renumber(moved)
        self.rows = [
            (index + first, index + first if same else ident, where, score, reason)
            for index, ident, where, score, reason in self.rows
        ]
        self.details = [
            replace(d, index=d.index + first, id=d.index + first if same else d.id)
            for d in self.details
        ]


# a pair to score: (where, outputs, id, reference, output line, reference line), or a problem
_Pair = tuple[str, Any, Any, Any, bytes, bytes | None] | Problem
_ABSENT: Any = object()


class ChunkScorer:
    """Scores chunks for one :class:`Job` (the evaluator built once)."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.evaluator = build_evaluator(job.kind, job.options)
        self._reference_text = encode_value(job.reference) if job.pairing == "one" else ""
        self._cut = ValueText(job.id_key)

    def __call__(self, chunk: Lines) -> Batch:
        job, evaluator = self.job, self.evaluator
        pairs = self._pairs(chunk)
        if job.details is not None:  # the page's code, loaded only for it
            from matchevals.report._model import row_of
        tally = Tally(job.worst)
        numbered = job.pairing == "one" and job.id_key is None  # known by their number
        batch = Batch([], [], tally, items=len(pairs), id_is_index=numbered)
        lines, numbers, encoding = batch.lines, batch.numbers, job.encoding
        scored: list[tuple[Scored, Any, Any]] = []  # --format html: candidates for details
        for pair in pairs:
            if isinstance(pair, Problem):
                item: Scored | Problem = pair
            else:
                where, outputs, ident, reference, output_line, reference_line = pair
                number = batch.pairs
                batch.pairs += 1
                item = score_example(
                    evaluator, number, number if ident is None else ident, where, outputs, reference
                )
            tally.add(item)
            if isinstance(item, Problem):
                if job.lines:
                    lines.append(jsonl_line(item).encode(encoding, JSON_ESCAPE) + b"\n")
                    numbers.append(-1)
                continue
            if job.lines:
                texts = self._texts(outputs, reference, output_line, reference_line, item.id)
                body = example_body(item, texts, with_id=not batch.id_is_index)
                lines.append(body.encode(encoding, JSON_ESCAPE) + b"\n")
                numbers.append(item.index)
            if job.details is not None:
                batch.rows.append(row_of(item.index, item.id, item.where, item.score, item.results))
                scored.append((item, outputs, reference))
        worst = heapq.nsmallest(job.details or 0, scored, key=lambda e: (e[0].score, e[0].index))
        batch.details = [
            ReportExample(item.index, item.id, item.where, item.score, item.results, *values)
            for item, *values in worst
        ]
        return batch

    def _pairs(self, chunk: Lines) -> list[_Pair]:
        assert not isinstance(chunk.outputs, Span) and not isinstance(chunk.references, Span)
        if self.job.pairing == "position":
            assert chunk.references is not None
            return self._by_position(chunk)
        if self.job.pairing == "id":
            assert chunk.partners is not None
            return [
                self._by_id(position, line, partner)
                for position, (line, partner) in enumerate(
                    zip(chunk.outputs, chunk.partners, strict=True), chunk.first
                )
            ]
        where, key = self.job.outputs.where, self.job.id_key
        return [
            _parsed(line, where(position), key, self.job.reference)
            for position, line in enumerate(chunk.outputs, chunk.first)
        ]

    def _by_id(self, position: int, line: bytes, partner: Partner) -> _Pair:
        """An output and its reference line (each without its id); or the problem."""
        if isinstance(partner, Problem):
            return partner
        job = self.job
        key = job.id_key
        assert key is not None
        where = job.outputs.where(position)
        found = keyed(line, key, where)  # a problem only if the file changed since its id was read
        if isinstance(found, Problem):
            return found
        value, ident = found
        reference_line, place = partner
        try:
            reference = decode(reference_line)
        except LineError as error:  # its id was read from its text: it is not JSON after all
            at = job.references.where(place_of(place)[0])
            return Problem(at, f"{error} (so {where} is not scored)")
        if type(reference) is not dict or reference.pop(key, _ABSENT) != ident:
            return Problem(where, "its reference line changed while it was being read")
        return (where, value, ident, reference, line, reference_line)

    def _by_position(self, chunk: Lines) -> list[_Pair]:
        """One pair per position, as zip_longest would pair the two files."""
        out_side, ref_side = self.job.outputs, self.job.references
        outputs, references = chunk.outputs, chunk.references
        assert isinstance(outputs, list) and isinstance(references, list)
        pairs: list[_Pair] = []
        for offset in range(max(len(outputs), len(references))):
            position = chunk.first + offset
            output = _value(outputs, offset, out_side, position)
            reference = _value(references, offset, ref_side, position)
            if output is _ABSENT or reference is _ABSENT:
                present = output if output is not _ABSENT else reference
                if isinstance(present, Problem):
                    pairs.append(present)
                else:
                    side, where = (
                        ("references", out_side.where(position))
                        if output is not _ABSENT
                        else ("outputs", ref_side.where(position))
                    )
                    pairs.append(Problem(where, f"no partner: the {side} ran out"))
            elif isinstance(output, Problem) or isinstance(reference, Problem):
                pairs.append(_invalid_pair(output, reference, out_side, ref_side, position))
            else:
                where = out_side.where(position)
                pairs.append((where, output, position, reference, *_lines(chunk, offset)))
        return pairs

    def _texts(
        self,
        outputs: Any,
        reference: Any,
        output_line: bytes,
        reference_line: bytes | None,
        ident: Any,
    ) -> tuple[str, str]:
        """The JSON texts of an example's two values: cut from their lines where exact."""
        cut, reference_text = self._cut, None
        output_text = cut(output_line, ident)
        if reference_line is not None:
            reference_text = cut(reference_line, ident)
        elif self.job.pairing == "one":
            reference_text = self._reference_text
        return (
            encode_value(outputs) if output_text is None else output_text,
            encode_value(reference) if reference_text is None else reference_text,
        )


def _lines(chunk: Lines, offset: int) -> tuple[bytes, bytes]:
    assert isinstance(chunk.outputs, list) and isinstance(chunk.references, list)
    return chunk.outputs[offset], chunk.references[offset]


def _parsed(line: bytes, where: str, key: str | None, reference: Any) -> _Pair:
    """An output to score against the one reference; labelled by its ``key`` (removed from
    it), else by its number."""
    if key is None:
        try:
            return (where, decode(line), None, reference, line, None)
        except LineError as error:
            return Problem(where, str(error))
    found = keyed(line, key, where)
    return found if isinstance(found, Problem) else (where, *found, reference, line, None)


def _value(lines: list[bytes], offset: int, side: Side, position: int) -> Any:
    if offset >= len(lines):
        return _ABSENT
    try:
        return decode(lines[offset])
    except LineError as error:
        return Problem(side.where(position), str(error))


def _invalid_pair(output: Any, reference: Any, out_side: Side, ref_side: Side, at: int) -> Problem:
    """One problem for one position, whichever of its two lines are invalid."""
    if isinstance(output, Problem) and isinstance(reference, Problem):
        return Problem(output.where, f"{output.message}; and {reference}")
    if isinstance(output, Problem):
        return Problem(output.where, f"{output.message} (so {ref_side.where(at)} is not scored)")
    assert isinstance(reference, Problem)
    return Problem(reference.where, f"{reference.message} (so {out_side.where(at)} is not scored)")
