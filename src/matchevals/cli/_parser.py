"""argparse's pieces the command line is built of: a parser that errs in one line and writes
its epilog only for help, ``--version`` read only when asked, and the types of numeric flags.

>>> score_in_range("0.5")
0.5
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from matchevals.cli._output import EXIT_INVALID

__all__ = ["ParseFailed", "Parser", "Version", "score_in_range", "whole_number"]


class ParseFailed(Exception):
    """A parse tried :meth:`Parser.quietly` failed (its message is argparse's)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, exiting with one line on error; its epilog is written only when
    help is asked for (``lazy_epilog``), since building it costs more than parsing."""

    def __init__(self, *args: Any, lazy_epilog: Callable[[], str] | None = None, **kw: Any):
        super().__init__(*args, **kw)
        self.lazy_epilog = lazy_epilog

    def format_help(self) -> str:
        if self.lazy_epilog is not None:
            self.epilog, self.lazy_epilog = self.lazy_epilog(), None
        return super().format_help()

    _quiet = False

    @classmethod
    @contextlib.contextmanager
    def quietly(cls) -> Iterator[None]:
        """Parse errors raise :class:`ParseFailed` instead of exiting (to try a reading)."""
        cls._quiet = True
        try:
            yield
        finally:
            cls._quiet = False

    def error(self, message: str) -> Any:  # exit 2 with a one-line message, as argparse does
        if Parser._quiet:
            raise ParseFailed(message)
        self.print_usage(sys.stderr)
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")


class Version(argparse.Action):
    """``--version``: the installed version, read from the package's metadata only when asked
    (``importlib.metadata`` alone costs more than parsing a command)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from matchevals import __version__

        print(f"matchevals {__version__}")
        parser.exit()


def score_in_range(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1]; got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1]; got {text}")
    return value


def whole_number(minimum: int) -> Callable[[str], int]:
    """The type of a flag taking a whole number of at least ``minimum``.

    >>> whole_number(1)("3")
    3
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a whole number of at least {minimum}; got {text!r}"
            )
        return value

    return parse
