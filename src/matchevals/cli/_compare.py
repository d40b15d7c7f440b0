"""``matchevals compare BASE NEW``: two runs saved with ``--format jsonl`` compared example by
example, with statistics (:mod:`matchevals.compare`). Its flags are built only for this
command; what running it needs is imported once the arguments are parsed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from matchevals.cli import _help
from matchevals.cli._output import (
    EXIT_BELOW,
    EXIT_INVALID,
    EXIT_OK,
    MAX_STDERR_PROBLEMS,
    destination,
    page_on_terminal,
)
from matchevals.cli._parser import add_flags, number_in, whole_number

__all__ = ["add_compare", "run_compare"]

FORMATS = ("table", "markdown", "json", "html")
WORST = 10  # matchevals.compare's DEFAULT_WORST, not imported for --help (tested equal)
HTML_DETAILS = 1000

OPTION_HELP = {
    "id_key": _help.OptionHelp(
        "pair the examples by id, checking that both runs were scored with --id-key KEY "
        "(without it, examples pair by id when the runs were scored with one, else by position)",
        "--id-key id",
        "KEY",
    ),
    "pass_threshold": _help.OptionHelp(
        "the score at which an example passes, for pass rates, the McNemar test and pass^k",
        "--pass-threshold 0.8",
        "SCORE",
    ),
    "alpha": _help.OptionHelp(
        "the significance level: the new run is significantly worse (or better) when the "
        "test's p-value is below it",
        "--alpha 0.01",
        "ALPHA",
    ),
    "fail_on_regression": _help.OptionHelp(
        "exit 1 when the new run is significantly worse at --alpha", "--fail-on-regression"
    ),
    "strict": _help.OptionHelp(
        "with --fail-on-regression (implied): exit 1 when any example regressed as well",
        "--strict",
    ),
    "format": _help.OptionHelp(
        "table (for people), markdown (for a pull-request comment), json (the comparison as "
        "one document), html (one self-contained page, regressions first)",
        "--format markdown -o comparison.md",
    ),
    "output": _help.OptionHelp(
        "write the comparison to FILE instead of standard output", "-o c.md", "FILE"
    ),
    "worst": _help.OptionHelp(
        "how many of the biggest regressions (and improvements) the table, Markdown and JSON list",
        "--worst 25",
        "N",
    ),
    "html_details": _help.OptionHelp(
        "with --format html: how many of the biggest regressions (and improvements) the page "
        "holds with both runs' details",
        "--html-details 200",
        "N",
    ),
    "skip_invalid": _help.OptionHelp(
        "report examples that cannot be compared (one run lacks them, duplicates, unreadable "
        "lines) but do not exit 2 because of them"
    ),
    "title": _help.OptionHelp(
        "the title of the table, Markdown or page", "--title 'gpt-5 vs gpt-4.1'"
    ),
}

EXIT_STATUS = (
    ("0", "compared; every gate passed"),
    (
        "1",
        "--fail-on-regression: the new run is significantly worse (or, --strict, an example "
        "regressed)",
    ),
    (
        "2",
        "a file is missing or not a saved run, the runs come from different commands or were "
        "keyed differently, or examples could not be compared (one run lacks them, duplicate "
        "ids, unreadable lines) unless --skip-invalid; a bad option",
    ),
    ("130", "interrupted (Ctrl-C)"),
)

EXAMPLES = (
    "matchevals json out.jsonl ref.jsonl --id-key id --format jsonl -o base.jsonl",
    "matchevals compare base.jsonl new.jsonl",
    "matchevals compare base.jsonl new.jsonl --fail-on-regression --format markdown -o c.md",
    "cat new-1.jsonl new-2.jsonl new-3.jsonl > new-trials.jsonl && matchevals compare "
    "base.jsonl new-trials.jsonl",
)


def add_compare(commands: Any, command: str | None) -> None:
    """The ``compare`` subcommand; its flags only when it is the command run."""
    compare_cmd = commands.add_parser(
        "compare",
        help="compare two runs saved with --format jsonl: what changed, with statistics",
        description=_help.wrap(
            "Compare NEW with BASE, two runs saved with --format jsonl, example by example: "
            "improved, regressed, unchanged, added, removed, and what newly fails in each "
            "regression; each run's mean score and the paired difference with its 95% t "
            "interval, pass rates and the exact McNemar test, per-key mean deltas, and pass@k "
            "and pass^k where a file holds several runs (trials) of each example."
        ),
        lazy_epilog=lambda: _help.epilog(examples=EXAMPLES, exit_status=EXIT_STATUS),
        formatter_class=_help.Formatter,
    )
    if command != "compare":
        return
    compare_cmd.add_argument("base", metavar="BASE", help="the base run (--format jsonl)")
    compare_cmd.add_argument("new", metavar="NEW", help="the new run (--format jsonl)")
    add_flags(
        compare_cmd.add_argument_group("comparing"),
        OPTION_HELP,
        id_key={},
        pass_threshold={"type": number_in("(0, 1]"), "default": 1.0},
        alpha={"type": number_in("(0, 1)"), "default": 0.05},
        fail_on_regression={"action": "store_true"},
        strict={"action": "store_true"},
    )
    add_flags(
        compare_cmd.add_argument_group("reporting"),
        OPTION_HELP,
        format={"choices": FORMATS, "default": "table"},
        output={},
        worst={"type": whole_number(0), "default": WORST},
        html_details={"type": whole_number(0), "default": HTML_DETAILS},
        title={},
        skip_invalid={"action": "store_true"},
    )


def run_compare(args: argparse.Namespace) -> int:
    """Compare, render, and exit with the verdict."""
    if page_on_terminal("compare", args.format, args.output, "comparison.html"):
        return EXIT_INVALID
    from matchevals.compare import compare_runs

    try:
        comparison = compare_runs(
            args.base,
            args.new,
            id_key=args.id_key,
            pass_threshold=args.pass_threshold,
            alpha=args.alpha,
            worst=args.html_details if args.format == "html" else args.worst,
        )
    except ValueError as error:
        print(f"matchevals compare: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    gate = args.fail_on_regression or args.strict
    passed, reasons = comparison.verdict(
        fail_on_regression=gate, strict=args.strict, skip_invalid=args.skip_invalid
    )
    shown = (passed, reasons) if gate or comparison.invalid else None
    title = args.title or "matchevals compare"
    with destination(args.output) as (out, color):
        _render(comparison, args, out, color, shown, title)
    if args.format != "table" or args.output is not None:
        _problems_to_stderr(comparison)
    if comparison.invalid and not args.skip_invalid:
        return EXIT_INVALID
    return EXIT_OK if passed else EXIT_BELOW


def _render(
    comparison: Any, args: argparse.Namespace, out: Any, color: bool, shown: Any, title: str
) -> None:
    from matchevals.report import _compare_text as text

    if args.format == "table":
        text.render_comparison_table(comparison, out, title=title, color=color, verdict=shown)
    elif args.format == "markdown":
        text.render_comparison_markdown(comparison, out, title=title, verdict=shown)
    elif args.format == "json":
        text.render_comparison_json(comparison, out, shown)
    else:
        from matchevals.report._compare_page import comparison_page

        out.write(comparison_page(comparison, title=title, verdict=shown))
        if args.output is not None:
            print(f"matchevals: wrote {args.output}", file=sys.stderr)


def _problems_to_stderr(comparison: Any) -> None:
    """What could not be compared, on stderr (the table shows it on stdout already)."""
    lines = [str(problem) for problem in comparison.problems]
    for change in (*comparison.added, *comparison.removed):
        where = change.new_where if change.verdict == "added" else change.base_where
        side = "base" if change.verdict == "added" else "new"
        lines.append(f"{where}: id {change.id!r} is not in the {side} run")
    for line in lines[:MAX_STDERR_PROBLEMS]:
        print(f"matchevals: {line}", file=sys.stderr)
    total = comparison.invalid
    if total > min(len(lines), MAX_STDERR_PROBLEMS):
        print(
            f"matchevals: … and {total - min(len(lines), MAX_STDERR_PROBLEMS)} more",
            file=sys.stderr,
        )
