"""Reading examples: streamed from JSONL, paired by position or by an id key, problems kept.

A ``.jsonl`` file is read one line at a time and never held whole; a ``.json`` file holds one
value (one example) or a list of examples and is loaded at once. Every line of a JSONL file is
one example and keeps its position: a line that is blank or not valid JSON, an example without a
usable id, or an example missing its partner becomes a :class:`Problem` naming the file and line,
in the place of that example; the other examples are still paired and scored as they should be.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

from matchevals._values import describe_type

__all__ = [
    "Counts",
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
    """An example that could not be scored, with where it came from.

    ``counted`` is False for the second report of one broken example: a reference left without
    its output when an output line that could not be read may have been that output.
    """

    where: str
    message: str
    counted: bool = True

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


@dataclass(slots=True)
class Counts:
    """How many examples (valid or not) each side held, as far as it was read.

    ``references`` stays None when one reference serves every output.
    """

    outputs: int = 0
    references: int | None = 0


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in JSONL_SUFFIXES


def _check(path: Path) -> None:
    if path.suffix.lower() not in (*JSONL_SUFFIXES, ".json"):
        raise InputError(f"{path}: expected a .json or .jsonl file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")


_QUOTE_BEFORE, _QUOTE_AFTER = 30, 10


def _quoted(text: str) -> str:
    return "".join(c if c >= " " or c == "\t" else repr(c)[1:-1] for c in text)


def not_json(error: json.JSONDecodeError, *, document: bool = False) -> str:
    """``not valid JSON at column 13 (expecting ':' delimiter): …{"a": 1, "b"``: where parsing
    failed, why, and the text around it (the end of the text said when it is cut there).

    >>> try:
    ...     json.loads('{"a": 1, "b"')
    ... except json.JSONDecodeError as error:
    ...     print(not_json(error))
    not valid JSON at column 13 (expecting ':' delimiter): {"a": 1, "b" (the line ends there)
    """
    text = error.doc
    position = min(error.pos, len(text.rstrip()))  # not past the end, onto a final newline
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line_end = len(text) if line_end < 0 else line_end
    start = max(line_start, position - _QUOTE_BEFORE)
    end = min(line_end, position + _QUOTE_AFTER)
    quoted = text[start:end] if start > line_start else text[start:end].lstrip()
    snippet = ("…" if start > line_start else "") + _quoted(quoted)
    snippet += "…" if end < line_end else ""
    column = position - line_start + 1
    line = text.count("\n", 0, position) + 1
    where = f"line {line}, column {column}" if document else f"column {column}"
    reason = error.msg[:1].lower() + error.msg[1:]
    ends = (
        ""
        if text[position:].strip()
        else " (the text ends there)"
        if document
        else (" (the line ends there)")
    )
    return f"not valid JSON at {where} ({reason}): {snippet.rstrip() if ends else snippet}{ends}"


def _load_document(path: Path) -> Any:
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: {not_json(error, document=True)}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not valid JSON: {error}") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


def read_records(path: Path) -> Iterator[Record | Problem]:
    """Each example of a file in order; invalid JSONL lines (blank ones too) come out as problems.

    A blank line is not skipped: skipping it would pair every later line of one file with the
    wrong line of the other.
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
            where = f"{path}:{number}"
            if not line.strip():
                yield Problem(where, "blank line (each line of a JSONL file is one example)")
                continue
            try:
                yield Record(where, json.loads(line), start)
            except UnicodeDecodeError:
                yield Problem(where, "not valid UTF-8")
            except json.JSONDecodeError as error:
                yield Problem(where, not_json(error))
            except ValueError as error:
                yield Problem(where, f"not valid JSON: {error}")


def load_single(path: Path) -> Any:
    """The one value of a ``.json`` file."""
    _check(path)
    return _load_document(path)


def pair_by_position(
    outputs: Iterator[Record | Problem],
    references: Iterator[Record | Problem],
    counts: Counts | None = None,
) -> Iterator[Example | Problem]:
    """The n-th output with the n-th reference: each position is one example, valid or not.

    An invalid line makes its position one problem (its partner is named, not scored); a side
    left over is one problem per extra example.
    """
    counts = counts if counts is not None else Counts()
    index = 0
    for position, (output, reference) in enumerate(zip_longest(outputs, references)):
        counts.outputs += output is not None
        counts.references = (counts.references or 0) + (reference is not None)
        if output is None or reference is None:
            present = output if output is not None else reference
            assert present is not None
            if isinstance(present, Problem):
                yield present
            else:
                side = "references" if output is not None else "outputs"
                yield Problem(present.where, f"no partner: the {side} ran out")
        elif isinstance(output, Problem) or isinstance(reference, Problem):
            yield _invalid_pair(output, reference)
        else:
            yield Example(index, position, output.where, output.value, reference.value)
            index += 1


def _invalid_pair(output: Record | Problem, reference: Record | Problem) -> Problem:
    """One problem for one position, whichever of its two lines are invalid."""
    if isinstance(output, Problem) and isinstance(reference, Problem):
        return Problem(output.where, f"{output.message}; and {reference}")
    bad, partner = (output, reference) if isinstance(output, Problem) else (reference, output)
    assert isinstance(bad, Problem)
    return Problem(bad.where, f"{bad.message} (so {partner.where} is not scored)")


def _id_of(record: Record, key: str) -> tuple[Any, Problem | None]:
    value = record.value
    if not isinstance(value, Mapping):
        kind = describe_type(value)
        message = f"the example is {_a(kind)}, not an object, so it has no --id-key {key!r}"
        return None, Problem(record.where, message)
    if key not in value:
        return None, Problem(record.where, f"the example has no {key!r} (the --id-key)")
    ident = value[key]
    if not isinstance(ident, (str, int, float)) or isinstance(ident, bool):
        message = (
            f"the example's {key!r} (the --id-key) is {_a(describe_type(ident))}; "
            "expected a string or a number"
        )
        return None, Problem(record.where, message)
    return ident, None


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _without(value: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {name: item for name, item in value.items() if name != key}


def pair_by_id(
    outputs: Iterator[Record | Problem],
    references_path: Path,
    key: str,
    counts: Counts | None = None,
) -> Iterator[Example | Problem]:
    """Pair each output with the reference holding the same ``key`` value (removed from both).

    References are indexed first: for JSONL only the byte offset of each line is kept, and a
    reference is parsed again when its output arrives, so memory grows with the number of ids,
    not with the size of the examples. One broken example is counted once: an output without a
    reference while some reference lines had no readable id (or the other way round) is still
    reported, but not counted again as long as those unreadable lines could be its partners.
    """
    counts = counts if counts is not None else Counts()
    index_: dict[Any, Record] = {}
    problems: list[Problem] = []
    unreadable = _Unreadable()
    for record in read_records(references_path):
        counts.references = (counts.references or 0) + 1
        if isinstance(record, Problem):
            unreadable.count += 1
            problems.append(record)
            continue
        ident, problem = _id_of(record, key)
        if problem is not None:
            unreadable.count += 1
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
        yield from _match_ids(outputs, index_, load, key, counts, unreadable)


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


def _match_ids(
    outputs: Iterator[Record | Problem],
    index_: dict[Any, Record],
    load: Callable[[Record], Any],
    key: str,
    counts: Counts,
    unreadable_references: _Unreadable,
) -> Iterator[Example | Problem]:
    used: set[Any] = set()
    unreadable_outputs = _Unreadable()
    index = 0
    for output in outputs:
        counts.outputs += 1
        if isinstance(output, Problem):
            unreadable_outputs.count += 1
            yield output
            continue
        ident, problem = _id_of(output, key)
        if problem is not None:
            unreadable_outputs.count += 1
            yield problem
            continue
        reference = index_.get(ident)
        if reference is None:
            message = f"no reference with {key} {ident!r}"
            yield unreadable_references.orphan(output.where, message, "reference")
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
            message = f"no output with {key} {ident!r}"
            yield unreadable_outputs.orphan(reference.where, message, "output")


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
    outputs: Iterator[Record | Problem], reference: Any, counts: Counts | None = None
) -> Iterator[Example | Problem]:
    """Every output against the same reference."""
    counts = counts if counts is not None else Counts()
    counts.references = None
    index = 0
    for output in outputs:
        counts.outputs += 1
        if isinstance(output, Problem):
            yield output
            continue
        yield Example(index, index, output.where, output.value, reference)
        index += 1
