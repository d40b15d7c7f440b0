"""A side read from runs saved with ``--format jsonl``: indexed first, then read example by
example, so memory holds the index and never a whole file.

Each summary line ends a run: a file of several runs (``cat run1.jsonl run2.jsonl``) holds
several trials of each example, and so do several files (:class:`~matchevals.compare.Trials`).
Indexing reads every line once: an example line's id from its head where that is exact
(:func:`~matchevals.report._lines.read_head`), else by parsing it; the index keeps where each
example's line is (its file, run, line number, byte offset and length, packed in one integer).
Comparing reads each line again by its offset and parses it whole; a line that is not what its
head said is a problem then.

A line that is not JSON, or not a line of a saved run, means the file is not a saved run:
a :class:`~matchevals.report._saved.SavedRunError` naming the file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Hashable, Iterator, Sequence
from pathlib import Path
from typing import Any

from matchevals._scoring import LineError, Problem, decode
from matchevals._values import counted
from matchevals.compare._pairing import Replan, SideIndex
from matchevals.compare._sides import SideFacts
from matchevals.report._examples import NOT_GIVEN, ReportExample, example_from
from matchevals.report._lines import read_head
from matchevals.report._saved import SavedRunError

__all__ = ["SavedExample", "SavedSide", "plain_example"]

_RUN_SHIFT = 120  # a handle: file << 152 | run << 120 | line << 80 | offset << 40 | length
_MASK = (1 << 40) - 1
_LINE_AT = re.compile(r":(\d+)$")
_ITEM_AT = re.compile(r"\[(\d+)\]$")


def _run_of(handle: int) -> int:
    return (handle >> _RUN_SHIFT) & 0xFFFFFFFF


def _unpack(handle: int) -> tuple[int, int, int, int]:
    """A handle's file, line number, byte offset and length."""
    return handle >> 152, (handle >> 80) & _MASK, (handle >> 40) & _MASK, handle & _MASK


class SavedSide:
    """The runs saved in ``paths``, as one side named ``name``."""

    def __init__(self, paths: Sequence[Path], name: str) -> None:
        self.paths, self.name = list(paths), name
        self.facts = SideFacts(name)
        self._unscored, self._first_unscored = 0, ""  # the current file's invalid lines
        self.unpositioned = 0  # examples whose id is not their position in their file
        self.first_unpositioned: Problem | None = None
        self._handles: list[Any] = []
        for path in self.paths:
            try:
                self._handles.append(path.open("rb"))
            except OSError as error:
                self.close()
                raise SavedRunError(f"{path}: {error.strerror or error}") from None
        self._descriptors = [handle.fileno() for handle in self._handles]

    def close(self) -> None:
        for handle in self._handles:
            handle.close()

    def examples(self) -> Iterator[tuple[Hashable, int]]:
        """Every example line's id and handle, in file order (the files one after the other);
        the side's facts are complete once it is exhausted."""
        run = 0
        for number, path in enumerate(self.paths):
            run = yield from self._examples_of(number, path, run)
        self.facts.runs = run

    def one_run(self) -> Iterator[tuple[Hashable, int]]:
        """:meth:`examples` of a side holding one run; :class:`Replan` at a second."""
        for ident, handle in self.examples():
            if handle >> _RUN_SHIFT:
                raise Replan(f"{self.name} holds several runs")
            yield ident, handle

    def index(self) -> SideIndex[int]:
        """Every example line by its id (its position, for runs scored by position)."""
        index: SideIndex[int] = SideIndex(_run_of)
        for ident, handle in self.examples():
            first = index.add(ident, handle)
            if first is not None:
                self.duplicate(ident, handle, first)
        return index

    def _examples_of(
        self, file: int, path: Path, run: int
    ) -> Generator[tuple[Hashable, int], None, int]:
        """One file's example lines; returns the number of the run after its last."""
        head_of, offset, pending, seen = read_head, 0, 0, False
        with path.open("rb") as lines:
            for number, raw in enumerate(lines, 1):
                length = len(raw)
                head = head_of(raw)
                if head is not None or raw.strip():
                    seen = True
                    ident = head[1] if head is not None else self._other(path, number, raw)
                    if ident is _SUMMARY:
                        run, pending = run + 1, 0
                    elif ident is not _OTHER:
                        pending += 1
                        yield ident, (((file << 32 | run) << 40 | number) << 80 | offset << 40
                                      | length)  # fmt: skip
                offset += length
        if not seen:
            raise SavedRunError(f"{path}: holds no lines of a --format jsonl run")
        if self._unscored:
            examples = counted(self._unscored, "example")
            self.facts.warnings.append(
                f"{path}: {examples} the run could not score, not compared (the first at "
                f"{self._first_unscored})"
            )
            self._unscored = 0
        if pending:
            self.facts.warnings.append(
                f"{path} has no summary line after its last run: it may have been cut short"
            )
            run += 1
        return run

    def where(self, handle: int) -> str:
        """``file:line`` of the example line ``handle`` finds."""
        file, number, _, _ = _unpack(handle)
        return f"{self.paths[file]}:{number}"

    def duplicate(self, ident: Hashable, handle: int, first: int) -> None:
        """Say that ``handle``'s line repeats an id of its run, first at ``first``."""
        self.facts.problems.append(
            Problem(
                self.where(handle),
                f"duplicate id {ident!r} in one run (first at {self.where(first)})",
            )
        )

    def _other(self, path: Path, number: int, raw: bytes) -> Any:
        """A line whose head :func:`read_head` did not read: an example's id, or what else
        the line is (:data:`_SUMMARY`, :data:`_OTHER` for an invalid example's line)."""
        try:
            line = decode(raw)
        except LineError as error:
            raise SavedRunError(f"{path}:{number}: {error}") from None
        kind = line.get("type") if isinstance(line, dict) else None
        if kind == "example":
            ident = line.get("id")
            if isinstance(ident, (str, int, float)) and not isinstance(ident, bool):
                return ident
            self.facts.problems.append(
                Problem(f"{path}:{number}", "the example line has no id (a string or a number)")
            )
            return _OTHER
        if kind == "summary":
            _record_summary(self.facts, line)
            return _SUMMARY
        if kind == "invalid":
            if line.get("counted", True):
                self._unscored += 1
                if self._unscored == 1:
                    self._first_unscored = (
                        f"{path}:{number}, {line.get('where')}: {line.get('message')}"
                    )
            return _OTHER
        raise SavedRunError(
            f'{path}:{number}: not a line of a --format jsonl run (no "type" of example, '
            "invalid or summary)"
        )

    def hint(self) -> SideFacts:
        """What each file's last line says of its run (its summary), before reading it."""
        facts = SideFacts(self.name)
        for handle in self._handles:
            try:
                line = decode(_last_line(handle.fileno()))
            except LineError:
                continue
            if isinstance(line, dict) and line.get("type") == "summary":
                _record_summary(facts, line)
        return facts

    def load(self, handle: int, key: Hashable) -> SavedExample | ReportExample | Problem:
        """The example whose line ``handle`` finds, or the problem with it."""
        file, _, offset, length = _unpack(handle)
        raw = os.pread(self._descriptors[file], length, offset)
        try:
            line = decode(raw)
        except LineError as error:
            return Problem(self.where(handle), f"{error} (the file changed while it was read)")
        if (
            type(line) is not dict
            or line.get("type") != "example"
            or line.get("id") != key
            or type(line.get("id")) is not type(key)
        ):
            return Problem(self.where(handle), _NOT_ITS_LINE)
        example: SavedExample | ReportExample | None = plain_example(line)
        if example is None:  # something is off: example_from says what
            try:
                example = example_from(line, 0, subject="the example")
            except (TypeError, ValueError) as error:
                return Problem(self.where(handle), str(error))
        if type(example.id) is int and (why := _not_positional(example)) is not None:
            self.unpositioned += 1  # a problem only if the runs pair by position
            if self.unpositioned == 1:
                self.first_unpositioned = Problem(self.where(handle), why)
        return example


def _record_summary(facts: SideFacts, line: dict[str, Any]) -> None:
    kind = line.get("kind")
    if isinstance(kind, str):
        facts.kinds.add(kind)
    id_key = line.get("id_key")
    facts.id_keys.add(id_key if isinstance(id_key, str) else None)


def _last_line(descriptor: int, most: int = 1 << 20) -> bytes:
    """The last line of a file that is not blank, if it ends within ``most`` bytes of the
    file's end (a summary line listing thousands of problems is skipped: it is only a hint)."""
    end = os.fstat(descriptor).st_size
    tail = os.pread(descriptor, min(end, most), max(0, end - most)).rstrip()
    cut = tail.rfind(b"\n")
    if cut < 0 and end > most:
        return b""
    return tail[cut + 1 :]


class SavedExample:
    """One example read from a saved line: what :class:`ReportExample` holds, in a plain
    slotted record (a frozen dataclass costs a microsecond more to make, and one is made per
    line); :meth:`report_example` makes the dataclass for a page."""

    __slots__ = ("id", "index", "outputs", "reference_outputs", "results", "score", "where")

    def __init__(
        self, index: int, ident: Any, where: str, score: float, results: list[dict[str, Any]],
        outputs: Any, reference_outputs: Any,
    ) -> None:  # fmt: skip
        self.index, self.id, self.where, self.score, self.results = (
            index,
            ident,
            where,
            score,
            results,
        )
        self.outputs, self.reference_outputs = outputs, reference_outputs

    def report_example(self) -> ReportExample:
        return ReportExample(self.index, self.id, self.where, self.score, self.results,
                             self.outputs, self.reference_outputs)  # fmt: skip


_NUMBERS: tuple[type, ...] = (float, int)
_NOT_ITS_LINE = (
    "the line is not the example its head names (a second 'type' or 'id' in it, or the file "
    "changed while it was read)"
)


def plain_example(line: dict[str, Any]) -> SavedExample | None:
    """What :func:`~matchevals.report._examples.example_from` makes of a saved example line
    whose every part is plainly valid, without its copies and checks (a line just parsed is
    no one else's); None for any other line, which ``example_from`` then reads or refuses."""
    results, score, index, where = (
        line.get("results"), line.get("score"), line.get("index", 0), line.get("where")
    )  # fmt: skip
    if type(results) is not list or type(index) is not int or type(where) is not str or not where:
        return None
    number: Any = score
    if type(number) not in _NUMBERS or not 0 <= number <= 1:
        return None
    for result in results:
        if type(result) is not dict or "key" not in result:
            return None
        value: Any = result.get("score")
        kind: type = type(value)
        if not (value is None or kind is bool or (kind in _NUMBERS and 0 <= value <= 1)):
            return None
    return SavedExample(
        index, line.get("id", 0), where, float(number), results,
        line.get("outputs", NOT_GIVEN), line.get("reference_outputs", NOT_GIVEN),
    )  # fmt: skip


def _not_positional(example: SavedExample | ReportExample) -> str | None:
    """Why an example's id is not its position in the file it was read from, or None."""
    found = _LINE_AT.search(example.where) or _ITEM_AT.search(example.where)
    if found is None or not isinstance(example.id, int):
        return None
    position = int(found[1]) - (1 if found.re is _LINE_AT else 0)
    if example.id == position:
        return None
    return (
        f"its example ({example.where}) is numbered {example.id}, not by its position: the run "
        "numbered its examples as it scored them, skipping the ones it could not score, so it "
        "cannot be paired by position; score both runs with --id-key"
    )


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_SUMMARY: Any = _Marker("SUMMARY")
_OTHER: Any = _Marker("OTHER")
