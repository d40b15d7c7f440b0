"""Reading examples: streamed from JSONL, paired by position or by an id key, problems kept.

A ``.jsonl`` file is read one line at a time and never held whole; a ``.json`` file holds one
value (one example) or a list of examples and is loaded at once. A line that is not valid JSON,
an example without a usable id, or an example missing its partner becomes a :class:`Problem`
naming the file and line; the other examples are still paired and scored.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

__all__ = [
    "Example",
    "InputError",
    "Problem",
    "Record",
    "load_single",
    "pair_by_id",
    "pair_by_position",
    "pair_with_one",
    "read_records",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson")


class InputError(Exception):
    """A file cannot be read at all (missing, unknown kind, unreadable JSON document)."""


@dataclass(frozen=True, slots=True)
class Record:
    """One example read from a file: where it was, and its value."""

    where: str  # "outputs.jsonl:17" or "outputs.json[3]"
    value: Any
    offset: int = -1  # byte offset of its line in a JSONL file


@dataclass(frozen=True, slots=True)
class Problem:
    """Something that could not be scored, with where it came from."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Example:
    """A pair ready to score. ``index`` is its position in input order."""

    index: int
    id: Any
    where: str
    outputs: Any
    reference: Any


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in JSONL_SUFFIXES


def _check(path: Path) -> None:
    if path.suffix.lower() not in (*JSONL_SUFFIXES, ".json"):
        raise InputError(f"{path}: expected a .json or .jsonl file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")


def _load_document(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not valid JSON: {error}") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


def read_records(path: Path) -> Iterator[Record | Problem]:
    """Each example of a file in order; invalid JSONL lines come out as problems.

    Blank lines are skipped (they are not examples).
    """
    _check(path)
    if not _is_jsonl(path):
        document = _load_document(path)
        if isinstance(document, list):
            for index, value in enumerate(document):
                yield Record(f"{path}[{index}]", value)
        else:
            yield Record(str(path), document)
        return
    try:
        handle = path.open("rb")
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None
    with handle:
        offset = 0
        for number, line in enumerate(handle, start=1):
            start, offset = offset, offset + len(line)
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                yield Record(where, json.loads(line), start)
            except UnicodeDecodeError:
                yield Problem(where, "not valid UTF-8")
            except ValueError as error:
                yield Problem(where, f"not valid JSON: {error}")


def load_single(path: Path) -> Any:
    """The one value of a ``.json`` file."""
    _check(path)
    return _load_document(path)


def pair_by_position(
    outputs: Iterator[Record | Problem], references: Iterator[Record | Problem]
) -> Iterator[Example | Problem]:
    """The n-th output with the n-th reference; a side left over is a problem per example."""
    index = 0
    for output, reference in zip_longest(outputs, references):
        if isinstance(output, Problem) or isinstance(reference, Problem):
            yield from (p for p in (output, reference) if isinstance(p, Problem))
        elif reference is None:
            assert output is not None
            yield Problem(output.where, "no partner: the references ran out")
        elif output is None:
            yield Problem(reference.where, "no partner: the outputs ran out")
        else:
            yield Example(index, index, f"{output.where}", output.value, reference.value)
            index += 1


def _id_of(record: Record, key: str) -> tuple[Any, Problem | None]:
    value = record.value
    if not isinstance(value, Mapping):
        return None, Problem(record.where, f"is not an object, so it has no {key!r}")
    if key not in value:
        return None, Problem(record.where, f"has no {key!r}")
    ident = value[key]
    if not isinstance(ident, (str, int, float)) or isinstance(ident, bool):
        return None, Problem(record.where, f"{key!r} must be a string or a number")
    return ident, None


def _without(value: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {name: item for name, item in value.items() if name != key}


def pair_by_id(
    outputs: Iterator[Record | Problem], references_path: Path, key: str
) -> Iterator[Example | Problem]:
    """Pair each output with the reference holding the same ``key`` value (removed from both).

    References are indexed first: for JSONL only the byte offset of each line is kept, and a
    reference is parsed again when its output arrives, so memory grows with the number of ids,
    not with the size of the examples.
    """
    index_: dict[Any, Record] = {}
    problems: list[Problem] = []
    for record in read_records(references_path):
        if isinstance(record, Problem):
            problems.append(record)
            continue
        ident, problem = _id_of(record, key)
        if problem is not None:
            problems.append(problem)
        elif ident in index_:
            problems.append(
                Problem(record.where, f"duplicate {key} {ident!r} (first at {index_[ident].where})")
            )
        else:
            keep = record.value if record.offset < 0 else None
            index_[ident] = Record(record.where, keep, record.offset)
    yield from problems
    with _reloader(references_path) as load:
        yield from _match_ids(outputs, index_, load, key)


def _match_ids(
    outputs: Iterator[Record | Problem],
    index_: dict[Any, Record],
    load: Callable[[Record], Any],
    key: str,
) -> Iterator[Example | Problem]:
    used: set[Any] = set()
    index = 0
    for output in outputs:
        if isinstance(output, Problem):
            yield output
            continue
        ident, problem = _id_of(output, key)
        if problem is not None:
            yield problem
            continue
        reference = index_.get(ident)
        if reference is None:
            yield Problem(output.where, f"no reference with {key} {ident!r}")
            continue
        if ident in used:
            yield Problem(output.where, f"duplicate {key} {ident!r} in the outputs")
            continue
        used.add(ident)
        value = load(reference)
        yield Example(index, ident, output.where, _without(output.value, key), _without(value, key))
        index += 1
    for ident, reference in index_.items():
        if ident not in used:
            yield Problem(reference.where, f"no output with {key} {ident!r}")


@contextlib.contextmanager
def _reloader(path: Path) -> Iterator[Callable[[Record], Any]]:
    """Reads a reference back: from its byte offset (JSONL) or as kept (JSON)."""
    if not _is_jsonl(path):
        yield lambda record: record.value
        return
    with path.open("rb") as handle:

        def load(record: Record) -> Any:
            handle.seek(record.offset)
            return json.loads(handle.readline())

        yield load


def pair_with_one(
    outputs: Iterator[Record | Problem], reference: Any
) -> Iterator[Example | Problem]:
    """Every output against the same reference."""
    index = 0
    for output in outputs:
        if isinstance(output, Problem):
            yield output
            continue
        yield Example(index, index, output.where, output.value, reference)
        index += 1
