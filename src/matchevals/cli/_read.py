"""Reading examples: a file as chunks of raw lines, and what one line means.

The process that reads a file parses nothing (pairing by id aside, see
:mod:`matchevals.cli._pairing`): :class:`Reader` hands out :class:`Chunk` s of raw
JSONL lines (with their byte offsets), and whoever scores a chunk decodes it with
:func:`decode`. Where the one who scores a chunk can open the file itself, the reader hands out
a :class:`Span` instead: where the chunk's lines are, found by counting newlines in blocks of
the file, never splitting it into lines; :meth:`Span.chunk` reads the lines there (so the
lines cross no pipe, and the reading process does not touch each one). A ``.jsonl`` file is
read a block at a time and never held whole; a ``.json`` file holds one value (one example) or
a list of examples and is loaded at once (each example is then encoded back to one JSON line,
which decodes to an equal value).

Every line of a JSONL file is one example and keeps its position: a line that is blank or not
valid JSON, an example without a usable id, or an example missing its partner becomes a
:class:`Problem` naming the file and line, in the place of that example.

>>> decode(b'{"a": 1}\\n')
{'a': 1}
>>> decode(b"  \\n")
Traceback (most recent call last):
...
matchevals.cli._read.LineError: blank line (each line of a JSONL file is one example)
"""

from __future__ import annotations

import io
import itertools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from matchevals._fast_json import exact_loads
from matchevals._values import describe_type

__all__ = [
    "Chunk",
    "Counts",
    "InputError",
    "LineError",
    "Problem",
    "Reader",
    "Side",
    "Span",
    "decode",
    "id_of",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
SCAN_BYTES = 1 << 17
"""How much of a JSONL file is read at a time to find where its lines end."""
BLANK = "blank line (each line of a JSONL file is one example)"


class InputError(Exception):
    """A file cannot be read at all (missing, unknown kind, unreadable JSON document)."""


class LineError(ValueError):
    """One line is not an example: its message says why."""


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


@dataclass(slots=True)
class Counts:
    """How many examples (valid or not) each side held, as far as it was read.

    ``references`` stays None when one reference serves every output.
    """

    outputs: int = 0
    references: int | None = 0


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


@dataclass(frozen=True, slots=True)
class Span:
    """Where a chunk's lines are: lines ``first`` to ``first + count - 1`` of the JSONL file at
    ``path`` (``identity``: its device and inode), its bytes ``start`` to ``end``;
    :meth:`chunk` reads them."""

    path: str
    identity: tuple[int, int]
    first: int
    count: int
    start: int
    end: int

    def __len__(self) -> int:
        return self.count

    def chunk(self, descriptor: int) -> Chunk:
        """The lines of the span, read from ``descriptor`` (the file at ``path``), as
        :meth:`Reader.read` gives them; :class:`InputError` if the file changed since."""
        found = os.fstat(descriptor)
        if (found.st_dev, found.st_ino) != self.identity:
            raise InputError(f"{self.path}: the file was replaced while it was being read")
        size = self.end - self.start
        data = os.pread(descriptor, size, self.start)
        while len(data) < size and (
            more := os.pread(descriptor, size - len(data), self.start + len(data))
        ):
            data += more  # a read returns at most 2 GiB
        lines = io.BytesIO(data).readlines()
        cut = bool(lines) and lines[-1][-1:] != b"\n" and found.st_size != self.end
        if len(data) != size or len(lines) != self.count or cut:
            raise InputError(f"{self.path}: the file changed while it was being read")
        offsets = list(itertools.accumulate(map(len, lines), initial=self.start))
        offsets.pop()
        return Chunk(self.first, lines, offsets)


def decode(line: bytes) -> Any:
    """The JSON value of one line; :class:`LineError` says why a line is not one."""
    try:
        return exact_loads(line)
    except UnicodeDecodeError:
        raise LineError("not valid UTF-8") from None
    except RecursionError:
        raise LineError("nested too deeply to read") from None
    except ValueError:
        if not line.strip():
            raise LineError(BLANK) from None
        raise LineError(_why_not_json(line)) from None


def _why_not_json(line: bytes) -> str:
    """The standard parser's complaint about a line, quoted where it failed."""
    try:
        json.loads(line)
    except json.JSONDecodeError as error:
        return not_json(error)
    except ValueError as error:
        return f"not valid JSON: {error}"
    return "not valid JSON"  # unreachable: the fast parser refuses only what json refuses


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
        else " (the line ends there)"
    )
    return f"not valid JSON at {where} ({reason}): {snippet.rstrip() if ends else snippet}{ends}"


def id_of(value: Any, key: str) -> tuple[Any, str | None]:
    """``(id, None)`` for an object holding a usable ``key``, else ``(None, why not)``.

    >>> id_of([1], "id")
    (None, "the example is a list, not an object, so it has no --id-key 'id'")
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        kind = describe_type(value)
        return None, f"the example is {_a(kind)}, not an object, so it has no --id-key {key!r}"
    if key not in value:
        return None, f"the example has no {key!r} (the --id-key)"
    ident = value[key]
    if not isinstance(ident, (str, int, float)) or isinstance(ident, bool):
        return None, (
            f"the example's {key!r} (the --id-key) is {_a(describe_type(ident))}; "
            "expected a string or a number"
        )
    return ident, None


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in JSONL_SUFFIXES


def _check(path: Path) -> None:
    if path.suffix.lower() not in (*JSONL_SUFFIXES, ".json"):
        raise InputError(f"{path}: expected a .json or .jsonl file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")


def load_document(path: Path) -> Any:
    """The one value of a ``.json`` file."""
    _check(path)
    try:
        with path.open("rb") as handle:
            return json.load(handle)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: {not_json(error, document=True)}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: not valid JSON: {error}") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


OneExample = Callable[[Path, Any], bool]


class Reader:
    """One input file, read forward in chunks of raw lines; ``fetch`` reads one line again.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "x.jsonl")
    ...     _ = path.write_bytes(b'{"a": 1}\\n\\n{"a": 3}\\n')
    ...     with Reader(path) as reader:
    ...         chunk = reader.read(2)
    ...         (chunk.first, chunk.lines, chunk.offsets, reader.read(5).lines, reader.fetch(10, 9))
    (0, [b'{"a": 1}\\n', b'\\n'], [0, 9], [b'{"a": 3}\\n'], b'{"a": 3}\\n')
    """

    def __init__(self, path: Path, is_one_example: OneExample | None = None) -> None:
        """``is_one_example(path, document)`` says a ``.json`` list is itself one example (a
        trajectory is a list of messages); by default a list holds one example per item."""
        _check(path)
        self.side = Side(str(path), "line")
        self.jsonl_path: Path | None = path  # None for a .json document: its lines are only here
        self.read_so_far = 0
        self._values: list[bytes] | None = None
        self._handle: Any = None
        self._offset = 0
        self._path, self._identity = os.path.abspath(path), (0, 0)
        if not _is_jsonl(path):
            document = load_document(path)
            listed = isinstance(document, list) and not (
                is_one_example is not None and is_one_example(path, document)
            )
            items = document if listed else [document]
            self.side = Side(str(path), "item" if listed else "single")
            self.jsonl_path = None
            self._values = [json.dumps(item).encode() for item in items]
            return
        try:
            self._handle = path.open("rb")
        except OSError as error:
            raise InputError(f"{path}: {error.strerror or error}") from None
        found = os.fstat(self._handle.fileno())
        self._identity = found.st_dev, found.st_ino

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()

    def read(self, count: int, max_bytes: float = float("inf")) -> Chunk:
        """Up to ``count`` examples, fewer once ``max_bytes`` are read (the last line the one
        that reaches it); empty at the end."""
        taken = self.span(count, max_bytes)
        return taken if isinstance(taken, Chunk) else taken.chunk(self._handle.fileno())

    def span(self, count: int, max_bytes: float = float("inf")) -> Span | Chunk:
        """Where the examples :meth:`read` would give are, for a JSONL file (the lines of a
        ``.json`` document, which are only here, as a :class:`Chunk`)."""
        first = self.read_so_far
        if self._values is not None:
            lines = self._values[first : first + count]
            self.read_so_far += len(lines)
            return Chunk(first, lines, list(range(first, first + len(lines))))
        start = self._offset
        lines_taken, self._offset = _line_ends(self._handle.fileno(), start, count, max_bytes)
        self.read_so_far += lines_taken
        return Span(self._path, self._identity, first, lines_taken, start, self._offset)

    @property
    def bytes_read(self) -> int:
        """How far reading a JSONL file has got, in bytes (0 for a ``.json``, loaded whole)."""
        return self._offset

    def fetch(self, offset: int, length: int) -> bytes:
        """The line at ``offset`` (as :meth:`read` gave it) once more."""
        if self._values is not None:
            return self._values[offset]
        return os.pread(self._handle.fileno(), length, offset)


def _line_ends(descriptor: int, start: int, count: int, max_bytes: float) -> tuple[int, int]:
    """How many lines from byte ``start`` on a loop of ``readline`` takes (at most ``count``,
    the last one the line that reaches ``max_bytes``, a last line without newline included)
    and where the last one ends; the file is read a block at a time, its newlines counted."""
    lines, end, scan = 0, start, start
    while lines < count:
        block = os.pread(descriptor, SCAN_BYTES, scan)
        if not block:
            return (lines + 1, scan) if scan > end else (lines, end)
        reach = start + max_bytes - 1 - scan  # the block's last byte below the limit
        if reach < len(block):
            stop = block.find(b"\n", max(int(reach), 0))  # ends the line reaching the limit
            if stop >= 0 and lines + (taken := block.count(b"\n", 0, stop) + 1) <= count:
                return lines + taken, scan + stop + 1
        newlines = block.count(b"\n")
        if lines + newlines >= count:
            rest = block.split(b"\n", count - lines)[-1]  # after the last line to take
            return count, scan + len(block) - len(rest)
        if newlines:
            lines, end = lines + newlines, scan + block.rfind(b"\n") + 1
        scan += len(block)
    return lines, end
