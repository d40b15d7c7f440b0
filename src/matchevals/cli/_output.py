"""Where a report goes, and how the command ends: exit statuses, the report's handle (a failing
write is a ``ReportError`` naming where), and stdout pointed at devnull once it failed.

Light on purpose: ``matchevals --help`` imports it.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any, cast

from matchevals._json_escape import JSON_ESCAPE

EXIT_OK = 0
EXIT_BELOW = 1
EXIT_INVALID = 2
EXIT_INTERRUPTED = 130
MAX_STDERR_PROBLEMS = 20
"""How many problems a command lists on stderr; the rest are counted."""


def page_on_terminal(command: str, format: str, output: str | None, example: str) -> bool:
    """Whether an HTML page would go to a terminal, said in one line (the command exits 2)."""
    if format != "html" or output is not None or not sys.stdout.isatty():
        return False
    print(
        f"matchevals {command}: error: --format html writes a page: pass --output {example} "
        "(or redirect standard output)",
        file=sys.stderr,
    )
    return True


class OutputOpenError(Exception):
    """The report's file cannot be opened: exit 2."""


class ReportError(Exception):
    """The report could not be written (a full disk, a failing device, ...): exit 2."""

    def __init__(self, where: str, error: OSError) -> None:
        super().__init__(f"cannot write the report to {where}: {error}")


class _Guarded:
    """The report's handle; an OSError on write or flush becomes a ReportError naming it.

    BrokenPipeError passes through: a reader that went away (``| head``) is not an error.
    """

    def __init__(self, handle: IO[str], where: str) -> None:
        self._handle, self._where = handle, where
        self._binary: IO[bytes] | None = _binary_under(handle)
        self.encoding_of_lines = _encoding_of_lines(handle)

    @contextlib.contextmanager
    def _named(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            raise
        except OSError as error:
            raise ReportError(self._where, error) from None

    def write_encoded(self, data: bytes, encoding: str) -> None:
        """Write report lines encoded in ``encoding``: as they are, after the text written
        so far, where the handle writes that encoding to a binary buffer; else decoded."""
        if self._binary is None or encoding != self.encoding_of_lines:
            self.write(data.decode(encoding))
            return
        self.flush()
        with self._named():
            self._binary.write(data)

    def write(self, text: str) -> int:
        try:
            with self._named():
                return self._handle.write(text)
        except UnicodeEncodeError:  # a lone surrogate (JSON "\ud800"), or a narrow stdout
            encoding = getattr(self._handle, "encoding", None) or "utf-8"
            return self.write(text.encode(encoding, JSON_ESCAPE).decode(encoding))

    def flush(self) -> None:
        with self._named():
            self._handle.flush()

    def close(self) -> None:
        with self._named():
            self._handle.close()

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, ... for rich
        return getattr(self._handle, name)


def _binary_under(handle: IO[str]) -> IO[bytes] | None:
    """The binary buffer under a text handle, where lines can be written to it as bytes: not
    for a text-only stream, nor where text is written with newlines translated (Windows)."""
    return getattr(handle, "buffer", None) if os.linesep == "\n" else None


def _encoding_of_lines(handle: IO[str]) -> str:
    """The encoding report lines are made in for ``handle``: its own where they can be written
    to its binary buffer, else UTF-8 (they are decoded again and written as text)."""
    encoding = getattr(handle, "encoding", None)
    if _binary_under(handle) is None or not isinstance(encoding, str):
        return "utf-8"
    return codecs.lookup(encoding).name


def report_encoding(path: str | None) -> str:
    """The encoding workers make the report's lines in, for the report :func:`destination`
    opens for ``path`` (a file is UTF-8; standard output has its own)."""
    return "utf-8" if path is not None else _encoding_of_lines(sys.stdout)


def write_encoded(out: IO[str], data: bytes, encoding: str) -> None:
    """Write report lines made in ``encoding`` (:func:`report_encoding`) to a report
    :func:`destination` gave."""
    writer = getattr(out, "write_encoded", None)
    if writer is None:
        out.write(data.decode(encoding))
    else:
        writer(data, encoding)


def discard_stdout() -> None:
    """Point stdout at devnull, so output still buffered cannot fail again at exit.

    What the Python docs recommend for SIGPIPE; used for a full disk too.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def destination(path: str | None) -> Iterator[tuple[IO[str], bool]]:
    if path is None:
        out = _Guarded(sys.stdout, "standard output")
        try:
            yield cast(IO[str], out), sys.stdout.isatty()
            out.flush()
        except ReportError:
            discard_stdout()
            raise
        return
    try:
        handle = open(path, "w", encoding="utf-8", errors=JSON_ESCAPE)  # noqa: SIM115
    except OSError as error:
        raise OutputOpenError(f"{path}: {error.strerror or error}") from None
    guarded = _Guarded(handle, path)
    try:
        yield cast(IO[str], guarded), False
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        raise
    guarded.close()  # flushes: a full disk may only show here
