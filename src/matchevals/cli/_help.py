"""What ``--help`` says: one line per option with an example, and the sections that teach.

Option texts are keyed by factory parameter name (a test lists a parameter without one); the
built-in comparators are listed from :mod:`matchevals.json_match.comparators` itself.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import re
import shutil
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COMMON_HELP",
    "EXIT_STATUS",
    "GRAPH_OPTION_HELP",
    "JSON_OPTION_HELP",
    "TRAJECTORY_OPTION_HELP",
    "Formatter",
    "OptionHelp",
    "comparator_lines",
    "epilog",
    "help_width",
    "wrap",
]


@dataclass(frozen=True)
class OptionHelp:
    """What a flag does, an example invocation, and the placeholder its values show."""

    text: str
    example: str | None = None
    metavar: str | None = None

    def render(self, default: str | None = None) -> str:
        parts = [self.text]
        if default is not None:
            parts[0] += f" (default: {default})"
        if self.example:
            parts.append(f"e.g. {self.example}")
        return ". ".join(parts).replace("%", "%%")


_RESULT_KEY = OptionHelp("the result key (graded ones have their own)", "--feedback-key k")
_COMPAT = OptionHelp("openevals: openevals 0.2.2's exact results", "--compat openevals")
_ANY_OF_KEY = OptionHelp(
    "a reference line that is an object with only this key holds a list of acceptable "
    "references; the example scores as the best of them",
    "--any-of-key any_of",
    "KEY",
)

JSON_OPTION_HELP: dict[str, OptionHelp] = {
    "aggregator": OptionHelp(
        "combine an example's keys into one result: average (the mean key score) or all (1 only "
        "when every key matches); none keeps one result per key",
        "--aggregator average",
    ),
    "list_aggregator": OptionHelp(
        "combine the items of an example that is a list: all (1 only when every item matches) "
        "or average",
        "--list-aggregator average",
    ),
    "rubric": OptionHelp(
        "let the judge score KEY (a path or glob) against CRITERIA instead of comparing values; "
        "needs --judge or --model",
        "--rubric 'summary=says the same as the reference'",
        "KEY=CRITERIA",
    ),
    "exclude_keys": OptionHelp(
        "do not score these keys (paths or globs, separated by spaces or commas)",
        "--exclude-keys id '*.internal_*'",
        "PATH",
    ),
    "judge": OptionHelp(
        "the judge for --rubric: a LangChain chat model named MODULE:ATTRIBUTE (an object, or a "
        "class or zero-argument factory returning one; modules are found on PYTHONPATH and in "
        "the current directory); it must support with_structured_output",
        "--judge my_judges:fast_model",
        "MODULE:ATTRIBUTE",
    ),
    "model": OptionHelp(
        "the judge for --rubric named as provider:model for LangChain's init_chat_model "
        "(needs that provider's package and API key)",
        "--model openai:gpt-4o-mini",
        "PROVIDER:NAME",
    ),
    "use_reasoning": OptionHelp(
        "ask the judge for its reasoning, kept in each rubric result's comment",
        "--no-use-reasoning",
    ),
    "list_match_mode": OptionHelp(
        "how list items pair: same_elements (every item on both sides has a partner), subset "
        "(every output item is in the reference), superset (every reference item is in the "
        "outputs), ordered (by index)",
        "--list-match-mode superset",
    ),
    "alignment": OptionHelp(
        "how list items choose partners: optimal (the pairing with the best score) or greedy "
        "(openevals' own pairing, for continuity of old scores)",
        "--alignment greedy",
    ),
    "nested": OptionHelp(
        "score leaf paths (address.city, items[*].price) instead of top-level values",
        "--nested",
    ),
    "list_match_modes": OptionHelp(
        "the list match mode of lists inside objects, by path or glob (needs --nested)",
        "--nested --list-match-modes items=ordered 'tags=subset'",
        "PATH=MODE",
    ),
    "comparators": OptionHelp(
        "compare the values at PATH (or a glob) with a built-in comparator instead of equality "
        "(see 'comparators' below)",
        "--comparators 'total=numeric(abs_tol=0.01)' 'name=text()'",
        "PATH=COMPARATOR",
    ),
    "extra_keys": OptionHelp(
        "output keys the reference lacks: penalize (they score 0) or ignore", "--extra-keys ignore"
    ),
    "none_is_missing": OptionHelp("treat null as an absent key on both sides", "--none-is-missing"),
    "judge_identical": OptionHelp(
        "ask the judge about rubric values equal as JSON too (off: they score 1 without a call)",
        "--judge-identical",
    ),
    "on_judge_error": OptionHelp(
        "when the judge fails: raise (the example is invalid, naming the keys) or zero (those "
        "keys score 0, the error in the comment)",
        "--on-judge-error zero",
    ),
    "feedback_key": OptionHelp("the prefix of the result keys", "--feedback-key invoice"),
    "compat": _COMPAT,
    "any_of_key": _ANY_OF_KEY,
}

GRAPH_OPTION_HELP: dict[str, OptionHelp] = {
    "eval_results": OptionHelp(
        "compare each run's results with the reference's as well (JSON equality)",
        "--eval-results",
    ),
    "partial_credit": OptionHelp(
        "score each run in [0, 1] by how much of the reference it followed, instead of 0 or 1",
        "--partial-credit",
    ),
    "threshold": OptionHelp(
        "with --partial-credit: the score every example must reach; an example below it fails "
        "the run (exit 1)",
        "--partial-credit --threshold 0.8",
        "SCORE",
    ),
    "feedback_key": _RESULT_KEY,
    "any_of_key": _ANY_OF_KEY,
}

TRAJECTORY_OPTION_HELP: dict[str, OptionHelp] = {
    "trajectory_match_mode": OptionHelp(
        "how the output's tool calls must cover the reference's: strict (the same calls in the "
        "same order), unordered (the same calls, any order), subset (no call the reference "
        "lacks), superset (every call of the reference, extras allowed), in_order (every call "
        "of the reference, its turns in order, extras allowed), pattern (the reference is a "
        'turn pattern {"turns": [...]} matched against the assistant turns)',
        "--trajectory-match-mode superset",
    ),
    "tool_args_match_mode": OptionHelp(
        "how a call's arguments must match: exact, ignore (names only), subset (no argument "
        "the reference lacks), superset (every argument of the reference)",
        "--tool-args-match-mode superset",
    ),
    "tool_args_match_overrides": OptionHelp("per-tool argument rules: use the Python API"),
    "feedback_key": _RESULT_KEY,
    "compat": _COMPAT,
    "alignment": OptionHelp(
        "how tool calls choose partners: optimal (a maximum matching: True exactly when a valid "
        "pairing exists) or greedy (openevals' own pairing)",
        "--alignment greedy",
    ),
    "score": OptionHelp(
        "match (True/False), or partial credit over the tool calls: precision, recall or f1",
        "--score f1",
    ),
    "any_of_key": _ANY_OF_KEY,
    "partial_credit": OptionHelp(
        "with --trajectory-match-mode pattern: score each example in [0, 1] by its best "
        "alignment to the turn pattern, instead of True/False",
        "--trajectory-match-mode pattern --partial-credit",
    ),
}

COMMON_HELP: dict[str, OptionHelp] = {
    "format": OptionHelp(
        "table (for people), json (the summary as one document), jsonl (one line per example as "
        "it is scored, then the summary; 'matchevals report' turns it into HTML), markdown (for "
        "CI comments), html (one self-contained page)",
        "--format html -o report.html",
    ),
    "output": OptionHelp(
        "write the report to FILE instead of standard output", "-o report.md", "FILE"
    ),
    "fail_under": OptionHelp(
        "exit 1 when the mean example score is below SCORE (a number in [0, 1])",
        "--fail-under 0.9",
        "SCORE",
    ),
    "worst": OptionHelp(
        "how many of the lowest-scoring examples the table, JSON and Markdown list",
        "--worst 20",
        "N",
    ),
    "skip_invalid": OptionHelp("report invalid input but do not exit 2 because of it"),
    "workers": OptionHelp(
        "score in N processes (the reading process only moves bytes); results stay in input "
        "order, byte for byte the same as with 1; with --engine ray, N Ray actors (there the "
        "default is one per CPU of the cluster)",
        "--workers 4",
        "N",
    ),
    "engine": OptionHelp(
        "local (this machine's processes) or ray (Ray actors, local or a cluster; pip install "
        "'matchevals[ray]'); the same output either way",
        "--engine ray --workers 8",
    ),
    "ray_address": OptionHelp(
        "the Ray cluster for --engine ray (default: a local Ray, or RAY_ADDRESS)",
        "--ray-address ray://head:10001",
        "ADDRESS",
    ),
    "id_key": OptionHelp(
        "pair outputs and references by the value of KEY (removed before scoring) instead of by "
        "position",
        "--id-key id",
        "KEY",
    ),
    "html_details": OptionHelp(
        "how many of the lowest-scoring examples an HTML page holds in full (values, "
        "differences, swimlane); every example's score is always there",
        "--html-details 5000",
        "N",
    ),
}

EXIT_STATUS = (
    ("0", "every example was scored and every gate passed (--fail-under, graph --threshold)"),
    (
        "1",
        "a gate failed: the mean score is below --fail-under (or nothing was scored), or (graph) "
        "an example scored below --threshold",
    ),
    (
        "2",
        "invalid input (a line that is not JSON, an example without its partner or that the "
        "evaluator rejects) unless --skip-invalid; a missing or unreadable file; a bad option",
    ),
    ("130", "interrupted (Ctrl-C)"),
)

PATHS_AND_GLOBS = (
    "--exclude-keys, --rubric, --comparators and --list-match-modes take paths as results are "
    "keyed: top-level keys as they are (city), nested keys joined with dots (address.city, with "
    '--nested; a key that would read ambiguously is quoted: a["x.y"]), list items as [*] '
    "(items[*].price), and [] / [*] for a top-level list of plain "
    "values and its items. A pattern matches a path when it equals it, or as a glob: * matches "
    "any run of characters within one dot-separated segment (*.internal_* matches "
    "user.internal_id), ** matches any number of segments (**.internal_* matches internal_id "
    "and a.b.internal_id), and [*] is the literal list marker, not a glob. An exact pattern "
    "wins over globs, then the first glob given. Without --nested, patterns match top-level "
    "keys. Quote globs for the shell."
)

COMPARATOR_SYNTAX = (
    "--comparators PATH=COMPARATOR (repeatable) compares the values at PATH with COMPARATOR "
    "instead of JSON equality. COMPARATOR is a call to a built-in with literal arguments in "
    "Python syntax (numbers, strings, True/False/None, lists); a bare name calls it with none. "
    "Values equal as JSON always score 1; a comparator gives 1/0 or partial credit in between."
)


def wrap(text: str) -> str:
    """A paragraph wrapped to the help's width (descriptions are laid out by hand)."""
    return "\n".join(textwrap.wrap(text, help_width(), break_on_hyphens=False))


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout at the terminal's width; descriptions and sections as laid out here,
    option texts wrapped without breaking ``--flag-names`` at their hyphens."""

    def __init__(self, prog: str) -> None:
        width = help_width()
        super().__init__(prog, max_help_position=min(32, width // 3), width=width)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(
            " ".join(text.split()), width, break_on_hyphens=False, break_long_words=False
        )


def help_width() -> int:
    """The width argparse formats for (the terminal's, ``COLUMNS`` respected), less a margin."""
    return max(40, min(shutil.get_terminal_size().columns, 120) - 2)


def _plain(text: str) -> str:
    """reST markup of a docstring as plain text: ``x`` and :func:`x` become x."""
    return re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")


def comparator_lines(module: Any) -> list[tuple[str, str]]:
    """``(call signature, first sentence)`` for every built-in comparator of ``module``.

    >>> from matchevals.json_match import comparators
    >>> dict(comparator_lines(comparators))["regex(pattern, flags=0)"]
    'The output is a string that fully matches pattern (or equals the reference).'
    """
    found: list[tuple[str, str]] = []
    for name in getattr(module, "__all__", ()):
        factory = getattr(module, name, None)
        if not name[:1].islower() or not callable(factory):
            continue
        parameters = ", ".join(
            p.name if p.default is inspect.Parameter.empty else _shown(p)
            for p in inspect.signature(factory).parameters.values()
            if not p.name.startswith("_")
        )
        doc = _plain(inspect.getdoc(factory) or "").split("\n\n")[0].replace("\n", " ")
        sentence = doc.split(". ")[0].rstrip(".") + "." if doc else ""
        found.append((f"{name}({parameters})", sentence))
    return found


def _shown(parameter: inspect.Parameter) -> str:
    """``name=default``; a default that is its class called bare shows as that call."""
    default = parameter.default
    if hasattr(default, "__dataclass_fields__"):
        with contextlib.suppress(Exception):
            if default == type(default)():
                return f"{parameter.name}={type(default).__name__}()"
    return f"{parameter.name}={default!r}"


def _section(title: str, body: Sequence[str]) -> list[str]:
    return [f"{title}:", *body, ""]


def _paragraph(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="  ")


def _items(pairs: Sequence[tuple[str, str]], width: int, *, column: int = 0) -> list[str]:
    """``  name  text`` rows; a name too long for the column puts its text on the next line."""
    column = column or min(max(len(name) for name, _ in pairs) + 4, width // 3)
    lines: list[str] = []
    for name, text in pairs:
        wrapped = textwrap.wrap(text, max(20, width - column)) or [""]
        if len(name) + 4 <= column:
            lines.append(f"  {name.ljust(column - 2)}{wrapped[0]}")
            rest = wrapped[1:]
        else:
            lines.append(f"  {name}")
            rest = wrapped
        lines.extend(" " * column + line for line in rest)
    return lines


def epilog(
    *,
    examples: Sequence[str],
    comparators: Callable[[], list[tuple[str, str]]] | None = None,
    globs: bool = False,
    exit_status: Sequence[tuple[str, str]] = EXIT_STATUS,
) -> str:
    """The sections after the options: comparators, paths and globs, examples, exit status."""
    width = help_width()
    lines: list[str] = []
    if comparators is not None:
        body = _paragraph(COMPARATOR_SYNTAX, width)
        body.append("  built-ins (matchevals.json_match.comparators):")
        for signature, sentence in comparators():
            body += _signature(signature, width)
            body += textwrap.wrap(
                sentence, width, initial_indent=" " * 8, subsequent_indent=" " * 8
            )
        lines += _section("comparators", body)
    if globs:
        lines += _section("paths and globs", _paragraph(PATHS_AND_GLOBS, width))
    if examples:
        body = [line for example in examples for line in _command(example, width)]
        lines += _section("examples", body)
    lines += _section("exit status", _items(exit_status, width, column=7))
    return "\n".join(lines).rstrip()


def _signature(signature: str, width: int) -> list[str]:
    """``    name(a=1, b=2)``, its arguments on further lines when it is too wide."""
    if len(signature) + 4 <= width:
        return ["    " + signature]
    name, _, arguments = signature.partition("(")
    parts, depth, start = [], 0, 0
    for index, char in enumerate(arguments[:-1]):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(arguments[start:index].strip())
            start = index + 1
    parts.append(arguments[start:-1].strip())
    lines = [f"    {name}("]
    for index, part in enumerate(parts):
        lines.append(" " * 8 + part + ("," if index < len(parts) - 1 else ")"))
    return lines


def _command(example: str, width: int) -> list[str]:
    return textwrap.wrap(
        example, width, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False
    )
