"""argparse's pieces the command line is built of: a parser that errs in one line and writes
its epilog only for help, ``--version`` read only when asked, and the types of numeric flags.

>>> number_in("[0, 1]")("0.5")
0.5
"""

from __future__ import annotations

import argparse
import contextlib
import math
import operator
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from matchevals.cli._help import OptionHelp
from matchevals.cli._output import EXIT_INVALID

__all__ = ["ParseFailed", "Parser", "Version", "add_flags", "number_in", "whole_number"]


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


def number_in(interval: str) -> Callable[[str], float]:
    """The type of a flag taking a number in ``interval``: ``[0, 1]``, ``(0, 1]``, ``(0, 1)``.

    >>> number_in("(0, 1]")("1")
    1.0
    """
    low, high = (float(end) for end in interval[1:-1].split(","))
    above = operator.gt if interval[0] == "(" else operator.ge
    below = operator.lt if interval[-1] == ")" else operator.le

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (above(value, low) and below(value, high)):
            raise argparse.ArgumentTypeError(f"expected a number in {interval}; got {text!r}")
        return value

    return parse


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


def add_flags(group: Any, texts: Mapping[str, OptionHelp], **flags: dict[str, Any]) -> None:
    """A flag per keyword (``fail_under``: ``--fail-under``; ``output`` is ``-o`` too), its help
    and metavar from ``texts``, its default said (``shown``, where that is not the default).

    >>> parser = argparse.ArgumentParser()
    >>> add_flags(parser, {"worst": OptionHelp("how many", "--worst 9", "N")}, worst={"default": 5})
    >>> parser._actions[-1].help
    'how many (default: 5). e.g. --worst 9'
    """
    for name, given in flags.items():
        spec, text = dict(given), texts[name]
        default = spec.get("default")
        said = (
            None
            if default is None or default is False
            else f"{default:g}"
            if isinstance(default, float)
            else str(default)
        )
        shown = spec.pop("shown", said)
        if text.metavar is not None:
            spec.setdefault("metavar", text.metavar)
        names = ("--output", "-o") if name == "output" else ("--" + name.replace("_", "-"),)
        group.add_argument(*names, help=text.render(shown), **spec)
