"""What a worker does with a chunk of raw lines: parse, pair, score, render, tally.

A chunk passes through a worker in two calls, so that the worker parses each output once and
the process that reads the files parses nothing (but the rare reference lines pairing by id
must judge itself, see :mod:`matchevals.cli._pairing`):

1. :meth:`ChunkWorker.read` parses the chunk's lines (read from the file where the chunk
   comes as a :class:`~matchevals.cli._read.Span`), keeps the values, and answers with what
   the reader needs to pair and number the examples: how many pairs the chunk holds (pairing
   by position, or one reference for all), or the id of each output (pairing by id).
2. :meth:`ChunkWorker.score` gets the number of the chunk's first example (and, by id, where
   each output's reference line is, or the problem that replaces it), scores the examples and
   answers with the report's JSONL lines already rendered and encoded (in the report's
   encoding, so the reading process writes them as they come) and a
   :class:`~matchevals.cli._tally.Tally`. By id, the worker reads each reference line from the
   file itself, by byte offset, unless the lines come with the call (Ray actors, which may run
   where the file is not; references from a ``.json`` file, which only the reader holds).

:meth:`ChunkWorker.index` reads the ids of a chunk of reference lines for pairing by id: from
their text where that is exact, else by parsing them.

A worker process answers ``read`` on a second thread while ``score`` runs (see
:mod:`matchevals.cli._processes`): the two share only the chunks held, each chunk under its own
number, read before it is scored.
"""

from __future__ import annotations

import heapq
import os
import pickle
from dataclasses import dataclass, field
from typing import Any, Literal

from matchevals.cli._jsonl_line import jsonl_line
from matchevals.cli._output import JSON_ESCAPE
from matchevals.cli._pairing import Decision, line_places, place_of
from matchevals.cli._read import (
    Chunk,
    InputError,
    LineError,
    Problem,
    Side,
    Span,
    decode,
    id_of,
)
from matchevals.cli._run import Kind, Scored, build_evaluator, score_example
from matchevals.cli._tally import Tally
from matchevals.cli._value_text import UNREAD, ValueText, encode_value
from matchevals.report._examples import ReportExample

__all__ = ["Batch", "ChunkWorker", "Job", "Pairing"]

Pairing = Literal["position", "id", "one"]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to know, sent once when it starts."""

    kind: Kind
    options: dict[str, Any]
    pairing: Pairing
    outputs: Side
    references: Side
    id_key: str | None = None
    reference: Any = None  # the one reference of pairing "one"
    lines: bool = False  # render the JSONL report lines (with the examples' values)
    worst: int = 5
    details: int | None = None  # --format html: collect its rows, and the worst N's details
    reference_file: str | None = None  # by id: the JSONL file of references, for workers to read
    encoding: str = "utf-8"  # the report's (see matchevals.cli._output.report_encoding)


@dataclass(slots=True)
class Batch:
    """What comes back for a chunk: its report lines (``lines`` jobs), encoded in the
    job's ``encoding`` (what it cannot hold as JSON escapes), and its tally."""

    encoded: bytes
    tally: Tally
    items: int = 0
    # pairing by id: the id of each output, None where the line had none
    ids: list[Any] = field(default_factory=list)
    # --format html: (index, id, where, score, reason) of every scored example of the chunk
    rows: list[Row] = field(default_factory=list)
    # --format html, in the last batch only: each worker's worst examples, with their values
    details: list[ReportExample] = field(default_factory=list)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickled with its report lines out of band where the pickler takes buffers so
        (protocol 5, PEP 574): they are sent as they are, not copied into the pickle and out
        again."""
        lines = pickle.PickleBuffer(self.encoded) if protocol >= 5 else self.encoded
        return _batch, (lines, self.tally, self.items, self.ids, self.rows, self.details)


def _batch(lines: Any, *rest: Any) -> Batch:
    """A :class:`Batch` unpickled (its lines given back as bytes, or as a buffer to copy)."""
    return Batch(lines if type(lines) is bytes else bytes(lines), *rest)


Row = tuple[int, Any, str, float, str]

# (where, outputs, id, reference, output line, reference line) or a problem; the lines are
# kept for the report's values (``lines`` jobs), None where the value came otherwise
_Held = tuple[str, Any, Any, Any, bytes | None, bytes | None] | Problem


class ChunkWorker:
    """Scores chunks for one :class:`Job`; holds each chunk between ``read`` and ``score``."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.evaluator = build_evaluator(job.kind, job.options)
        self._held: dict[int, list[_Held]] = {}
        self._worst: list[tuple[float, int, ReportExample]] = []  # --format html's details
        self._reference_text = encode_value(job.reference) if job.pairing == "one" else ""
        self._cut = ValueText(job.id_key)
        self._descriptors: dict[str, int] = {}  # the files this worker opened, by path

    def ready(self) -> bool:
        """True once started (engines call it to wait for their workers)."""
        return True

    def index(self, piece: Chunk | Span) -> tuple[list[Any], list[int]]:
        """Each reference line's id (read from its text where that is exact, else parsed), or
        the Problem that it has none; and where each line is (:func:`line_places`)."""
        chunk = self._chunk(piece)
        key, side = self.job.id_key, self.job.references
        assert key is not None
        read_id = self._cut.read_id
        ids = [read_id(line) for line in chunk.lines]
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

    def read(
        self, number: int, outputs: Chunk | Span, references: Chunk | Span | None
    ) -> int | list[Any]:
        """Parse chunk ``number`` (its lines read here where given as spans); answer its count
        of pairs, or (by id) its outputs' ids."""
        if self.job.pairing == "position":
            assert references is not None
            held = self._by_position(self._chunk(outputs), self._chunk(references))
            self._held[number] = held
            return sum(not isinstance(item, Problem) for item in held)
        held, ids = self._outputs(self._chunk(outputs))
        self._held[number] = held
        return ids if self.job.pairing == "id" else len(held) - ids.count(None)

    def score(
        self,
        number: int,
        first: int,
        decisions: list[Decision] | None = None,
        reference_lines: list[bytes | None] | None = None,
    ) -> Batch:
        """Score chunk ``number``, its examples numbered from ``first``; by id, ``decisions``
        says where each output's reference line is (sent in ``reference_lines`` where this
        worker cannot read it)."""
        held = self._held.pop(number)
        job, evaluator = self.job, self.evaluator
        if job.details is not None:  # the page's code, loaded only for it
            from matchevals.report._model import row_of
        tally = Tally(job.kind, job.worst)
        lines: list[str] = []
        rows: list[Row] = []
        index = first
        for position, entry in enumerate(held):
            item: Scored | Problem
            if isinstance(entry, Problem):
                item = entry
            else:
                where, outputs, ident, reference, output_line, reference_line = entry
                if decisions is not None:
                    decision = decisions[position]
                    reference_line = None
                    if type(decision) is int:
                        reference_line = self._line(decision, reference_lines, position)
                    reference = self._reference(decision, reference_line, where, ident)
                elif job.pairing == "one":
                    ident, reference = index, job.reference
                if isinstance(reference, Problem):
                    item = reference
                else:
                    item = score_example(evaluator, index, ident, where, outputs, reference)
                    index += 1
            tally.add(item)
            if isinstance(item, Problem):
                if job.lines:
                    lines.append(jsonl_line(item))
                continue
            if job.lines:
                texts = self._texts(outputs, reference, output_line, reference_line, item.id)
                lines.append(jsonl_line(item, texts))
            if job.details is not None:
                rows.append(row_of(item.index, item.id, item.where, item.score, item.results))
                self._keep_detail(item, outputs, reference)
        return Batch(encode_lines(lines, job.encoding), tally, len(held), rows=rows)

    def _keep_detail(self, item: Scored, outputs: Any, reference: Any) -> None:
        """Keep the ``details`` worst examples this worker scored (the report's order)."""
        limit = self.job.details or 0
        if not limit:
            return
        entry = (-item.score, -item.index)
        if len(self._worst) >= limit and entry <= self._worst[0][:2]:
            return
        example = ReportExample(
            item.index, item.id, item.where, item.score, item.results, outputs, reference
        )
        if len(self._worst) < limit:
            heapq.heappush(self._worst, (*entry, example))
        else:
            heapq.heapreplace(self._worst, (*entry, example))

    def _texts(
        self,
        outputs: Any,
        reference: Any,
        output_line: bytes | None,
        reference_line: bytes | None,
        ident: Any,
    ) -> tuple[str, str]:
        """The JSON texts of an example's two values: cut from their lines where exact."""
        cut, output_text, reference_text = self._cut, None, None
        if output_line is not None:
            output_text = cut(output_line, ident)
        if reference_line is not None:
            reference_text = cut(reference_line, ident)
        elif self.job.pairing == "one":
            reference_text = self._reference_text
        return (
            encode_value(outputs) if output_text is None else output_text,
            encode_value(reference) if reference_text is None else reference_text,
        )

    def details(self) -> list[ReportExample]:
        """The worst examples this worker scored, with their values (``--format html``)."""
        kept, self._worst = self._worst, []
        return [example for *_, example in kept]

    def _line(self, decision: int, sent: list[bytes | None] | None, position: int) -> bytes:
        """The reference line ``decision`` names: sent along, or read from the file."""
        if sent is not None:
            line = sent[position]
            assert line is not None
            return line
        assert self.job.reference_file is not None, "no lines sent, no file to read"
        _, offset, length = place_of(decision)
        return os.pread(self._descriptor(self.job.reference_file), length, offset)

    def _chunk(self, piece: Chunk | Span) -> Chunk:
        return piece if isinstance(piece, Chunk) else piece.chunk(self._descriptor(piece.path))

    def _descriptor(self, path: str) -> int:
        """The file at ``path``, opened once; :class:`InputError` if it cannot be (removed
        since the reader opened it, say)."""
        descriptor = self._descriptors.get(path)
        if descriptor is None:
            try:
                descriptor = os.open(path, os.O_RDONLY)
            except OSError as error:
                raise InputError(f"{path}: {error.strerror or error}") from None
            self._descriptors[path] = descriptor
        return descriptor

    def close(self) -> None:
        """Close the files this worker opened."""
        for descriptor in self._descriptors.values():
            os.close(descriptor)
        self._descriptors.clear()

    def _reference(self, decision: Decision, line: bytes | None, where: str, ident: Any) -> Any:
        """The reference a decision names (its id key removed), or the problem it is."""
        if isinstance(decision, Problem):
            return decision
        assert decision is not None and line is not None, "by id, every output is decided"
        position = place_of(decision)[0]
        try:
            value = decode(line)
        except LineError as error:  # its id was read from its text: it is not JSON after all
            at = self.job.references.where(position)
            return Problem(at, f"{error} (so {where} is not scored)")
        if type(value) is not dict or value.pop(self.job.id_key, _ABSENT) != ident:
            return Problem(where, "its reference line changed while it was being read")
        return value

    def _outputs(self, chunk: Chunk) -> tuple[list[_Held], list[Any]]:
        side, key = self.job.outputs, self.job.id_key
        held: list[_Held] = []
        ids: list[Any] = []
        for position, line in enumerate(chunk.lines, chunk.first):
            where = side.where(position)
            try:
                value = decode(line)
            except LineError as error:
                held.append(Problem(where, str(error)))
                ids.append(None)
                continue
            if key is None:
                held.append((where, value, None, None, line, None))
                ids.append(position)
                continue
            ident, why = id_of(value, key)
            if why is not None:
                held.append(Problem(where, why))
                ids.append(None)
                continue
            del value[key]
            held.append((where, value, ident, None, line, None))
            ids.append(ident)
        return held, ids

    def _by_position(self, outputs: Chunk, references: Chunk) -> list[_Held]:
        """One entry per position, as zip_longest would pair the two files."""
        out_side, ref_side = self.job.outputs, self.job.references
        held: list[_Held] = []
        first = outputs.first if outputs.lines else references.first
        for offset in range(max(len(outputs.lines), len(references.lines))):
            position = first + offset
            output = _value(outputs, offset, out_side, position)
            reference = _value(references, offset, ref_side, position)
            if output is _ABSENT or reference is _ABSENT:
                present = output if output is not _ABSENT else reference
                if isinstance(present, Problem):
                    held.append(present)
                else:
                    side, where = (
                        ("references", out_side.where(position))
                        if output is not _ABSENT
                        else ("outputs", ref_side.where(position))
                    )
                    held.append(Problem(where, f"no partner: the {side} ran out"))
            elif isinstance(output, Problem) or isinstance(reference, Problem):
                held.append(_invalid_pair(output, reference, out_side, ref_side, position))
            else:
                lines = outputs.lines[offset], references.lines[offset]
                held.append((out_side.where(position), output, position, reference, *lines))
        return held


_ABSENT: Any = object()


def encode_lines(lines: list[str], encoding: str) -> bytes:
    """The report's lines as its bytes (what ``encoding`` cannot hold as JSON escapes), each
    line encoded alone: one line beyond Latin-1 would make a joined text two or four bytes a
    character, and encoding it slower."""
    encoded = [line.encode(encoding, JSON_ESCAPE) for line in lines]
    if encoded:
        encoded.append(b"")
    return b"\n".join(encoded)


def _value(chunk: Chunk, offset: int, side: Side, position: int) -> Any:
    if offset >= len(chunk.lines):
        return _ABSENT
    try:
        return decode(chunk.lines[offset])
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
