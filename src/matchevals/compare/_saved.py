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
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from matchevals._scoring import LineError, Problem, decode
from matchevals.compare._pairing import SideIndex
from matchevals.compare._sides import SideFacts
from matchevals.report._examples import ReportExample, example_from
from matchevals.report._lines import read_head
from matchevals.report._saved import SavedRunError

__all__ = ["SavedSide"]

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
        self.by_position = False  # set once the pairing is known: positions are checked
        self._handles: list[Any] = []
        for path in self.paths:
            try:
                self._handles.append(path.open("rb"))
            except OSError as error:
                self.close()
                raise SavedRunError(f"{path}: {error.strerror or error}") from None

    def close(self) -> None:
        for handle in self._handles:
            handle.close()

    def index(self) -> SideIndex[int]:
        """Every example line by its id (its position, for runs scored by position)."""
        index: SideIndex[int] = SideIndex(_run_of)
        run = 0
        for number, path in enumerate(self.paths):
            run = self._index_file(number, path, index, run)
        self.facts.runs = run
        return index

    def _index_file(self, file: int, path: Path, index: SideIndex[int], run: int) -> int:
        """Index one file's lines; the number of the run after its last."""
        add, head_of, offset, pending, seen = index.add, read_head, 0, 0, False
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
                        handle = ((file << 32 | run) << 40 | number) << 80 | offset << 40 | length
                        first = add(ident, handle)
                        if first is not None:
                            self._duplicate(path, number, ident, first)
                offset += length
        if not seen:
            raise SavedRunError(f"{path}: holds no lines of a --format jsonl run")
        if pending:
            self.facts.warnings.append(
                f"{path} has no summary line after its last run: it may have been cut short"
            )
            run += 1
        return run

    def _duplicate(self, path: Path, number: int, ident: Hashable, first: int) -> None:
        at = f"{self.paths[_unpack(first)[0]]}:{_unpack(first)[1]}"
        self.facts.problems.append(
            Problem(f"{path}:{number}", f"duplicate id {ident!r} in one run (first at {at})")
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
            self._summary(path, line)
            return _SUMMARY
        if kind == "invalid":
            if line.get("counted", True):
                self.facts.warnings.append(
                    f"{path}:{number}: the run could not score this example, so it is not "
                    f"compared ({line.get('where')}: {line.get('message')})"
                )
            return _OTHER
        raise SavedRunError(
            f'{path}:{number}: not a line of a --format jsonl run (no "type" of example, '
            "invalid or summary)"
        )

    def _summary(self, path: Path, line: dict[str, Any]) -> None:
        kind = line.get("kind")
        if isinstance(kind, str):
            self.facts.kinds.add(kind)
        id_key = line.get("id_key")
        self.facts.id_keys.add(id_key if isinstance(id_key, str) else None)

    def load(self, handle: int, key: Hashable) -> ReportExample | Problem:
        """The example whose line ``handle`` finds, or the problem with it."""
        file, number, offset, length = _unpack(handle)
        where = f"{self.paths[file]}:{number}"
        raw = os.pread(self._handles[file].fileno(), length, offset)
        try:
            line = decode(raw)
        except LineError as error:
            return Problem(where, f"{error} (the file changed while it was read)")
        if (
            type(line) is not dict
            or line.get("type") != "example"
            or line.get("id") != key
            or type(line.get("id")) is not type(key)
        ):
            return Problem(where, "the line is not the example its head names (a second 'type' "
                           "or 'id' in it, or the file changed while it was read)")  # fmt: skip
        try:
            example = example_from(line, 0, subject="the example")
        except (TypeError, ValueError) as error:
            return Problem(where, str(error))
        if self.by_position and (why := _not_positional(example)) is not None:
            return Problem(where, why)
        return example


def _not_positional(example: ReportExample) -> str | None:
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
