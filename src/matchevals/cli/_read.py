"""Reading examples: a file as chunks of raw lines, and what a file or a line holds.

The process that reads a file parses nothing (pairing by id aside, see
:mod:`matchevals._line_scoring`): :class:`Reader` hands out :class:`Chunk` s of raw JSONL lines
(with their byte offsets), and whoever scores a chunk decodes them
(:func:`matchevals._scoring.decode`). A ``.jsonl`` file is read a line at a time and never
held whole; a ``.json`` file holds one value (one example) or a list of examples and is loaded
at once (each example is then encoded back to one JSON line, which decodes to an equal value).

Every line of a JSONL file is one example and keeps its position: a line that is blank or not
valid JSON, an example without a usable id, or an example missing its partner becomes a
:class:`~matchevals._scoring.Problem` naming the file and line, in the place of that example.
Blank lines at the end of a file (an editor's last newline, say) are not examples.
"""

from __future__ import annotations

import bisect
import io
import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matchevals._line_scoring import Chunk, Side
from matchevals._scoring import not_json

__all__ = ["InputError", "Reader", "load_document"]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
BLOCK_BYTES = 1 << 17
"""How much of a JSONL file is read at a time (1 MiB blocks cost the 1 GB benchmark twice the
system time: each one newly mapped memory, its pages faulted in)."""


class InputError(Exception):
    """A file cannot be read at all (missing, unknown kind, unreadable JSON document)."""


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
    ...     _ = path.write_bytes(b'{"a": 1}\\n\\n{"a": 3}\\n\\n')
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
        self.path = os.path.abspath(path)
        self.read_so_far = 0
        self.bytes_read = 0  # how far reading a JSONL file has got (0 for a .json, loaded whole)
        self._values: list[bytes] | None = None
        self._handle: Any = None
        self._ahead: list[bytes] = []  # whole lines read, not yet handed out
        self._partial = b""  # the start of the line that the last block read ended in
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
            self._handle = path.open("rb", buffering=0)  # read in blocks of BLOCK_BYTES
        except OSError as error:
            raise InputError(f"{path}: {error.strerror or error}") from None

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()

    def read(self, count: int, max_bytes: float = float("inf")) -> Chunk:
        """Up to ``count`` examples, fewer once ``max_bytes`` are read (the last line the one
        that reaches it); empty at the end. Blank lines that only blank lines follow to the
        end of the file are not examples: they are left out."""
        first = self.read_so_far
        if self._values is not None:
            lines = self._values[first : first + count]
            self.read_so_far += len(lines)
            return Chunk(first, lines, list(range(first, first + len(lines))))
        lines = self._take(count, max_bytes)
        if lines and not lines[-1].strip() and self._only_blank_lines_follow():
            while lines and not lines[-1].strip():
                lines.pop()
        offsets = list(itertools.accumulate(map(len, lines), initial=self.bytes_read))
        self.bytes_read = offsets.pop()
        self.read_so_far += len(lines)
        return Chunk(first, lines, offsets)

    def _take(self, count: int, max_bytes: float) -> list[bytes]:
        """The next lines: up to ``count``, fewer once ``max_bytes`` are taken (the line that
        reaches it the last one)."""
        lines: list[bytes] = []
        size = 0
        while len(lines) < count and size < max_bytes and (self._ahead or self._fill()):
            taken = self._ahead[: count - len(lines)]
            if max_bytes != float("inf"):
                sizes = list(itertools.accumulate(map(len, taken), initial=size))[1:]
                del taken[bisect.bisect_left(sizes, max_bytes) + 1 :]
            del self._ahead[: len(taken)]
            lines += taken
            size += sum(map(len, taken))
        return lines

    def _fill(self) -> bool:
        """Read the next block's whole lines (a longer line whole too) into ``_ahead``; False
        at the end of the file."""
        pieces = [self._partial]
        while block := self._handle.read(BLOCK_BYTES):
            end = block.rfind(b"\n") + 1
            if not end:
                pieces.append(block)
                continue
            pieces.append(block[:end])
            self._partial = block[end:]
            self._ahead += io.BytesIO(b"".join(pieces)).readlines()
            return True
        self._partial = b""
        if pieces[0] or len(pieces) > 1:  # a last line without its newline
            self._ahead.append(b"".join(pieces))
            return True
        return False

    def _only_blank_lines_follow(self) -> bool:
        """Whether the file holds nothing but blank lines after those read (which are then
        read to the end); else the blank lines read to find out are handed out next."""
        while not any(line.strip() for line in self._ahead):
            if not self._fill():
                self._ahead.clear()
                return True
        return False

    def fetch(self, offset: int, length: int) -> bytes:
        """The line at ``offset`` (as :meth:`read` gave it) once more."""
        if self._values is not None:
            return self._values[offset]
        return os.pread(self._handle.fileno(), length, offset)
