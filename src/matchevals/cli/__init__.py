"""``matchevals``: score files of JSON outputs or graph trajectories from the command line.

::

    matchevals json OUTPUTS REFERENCES [options]   # structured outputs against references
    matchevals graph RUNS REFERENCE [options]      # LangGraph trajectories against a reference
    matchevals report RESULTS.jsonl [-o FILE]      # the HTML report of a saved --format jsonl run
    matchevals demo                                # the main job on bundled example data

Exit status: ``0`` every example scored and every gate passed (``--fail-under``, graph
``--threshold``); ``1`` a gate failed (the mean score fell below ``--fail-under`` or nothing was
scored, or an example scored below ``--threshold``); ``2`` bad input: a line that is not JSON, an
example without its partner or that the evaluator rejects (unless ``--skip-invalid``), a missing
or unreadable file, or bad options. Invalid input wins over 1.

Only what a command needs is imported: ``matchevals json --help`` builds the json flags alone
(from the factory's signature), and rich is imported when a table or progress line is drawn.

>>> main(["json", "--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from matchevals.cli import _help
from matchevals.cli._flags import add_factory_flags, given_options, in_cli_words, option_conflict
from matchevals.cli._judge import JudgeFlagError, check_picklable, judge_spec, load_judge
from matchevals.cli._progress import InputMeter, with_progress
from matchevals.cli._read import (
    Counts,
    Example,
    InputError,
    Problem,
    load_single,
    pair_by_id,
    pair_by_position,
    pair_with_one,
    read_records,
)
from matchevals.cli._report import (
    Gates,
    Summary,
    jsonl_line,
    render_json,
    render_jsonl_summary,
    render_markdown,
    render_table,
)
from matchevals.cli._run import Kind, Scored, build_evaluator, score_all

if TYPE_CHECKING:
    from matchevals.cli._html import HtmlPage

__all__ = ["EXIT_BELOW", "EXIT_INVALID", "EXIT_OK", "main"]

EXIT_OK = 0
EXIT_BELOW = 1
EXIT_INVALID = 2
FORMATS = ("table", "json", "jsonl", "markdown", "html")
COMMANDS = ("json", "graph", "report", "demo")
MAX_STDERR_PROBLEMS = 20


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # exit 2 with a one-line message, as argparse does
        self.print_usage(sys.stderr)
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message}\n")


def _score_in_range(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1]; got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1]; got {text}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0; got {text!r}")
    return value


def _add_common(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("reporting")
    said = _help.COMMON_HELP
    group.add_argument(
        "--format", choices=FORMATS, default="table", help=said["format"].render("table")
    )
    group.add_argument("--output", "-o", metavar="FILE", help=said["output"].render())
    group.add_argument(
        "--fail-under",
        type=_score_in_range,
        metavar="SCORE",
        help=said["fail_under"].render(),
    )
    group.add_argument("--worst", type=int, default=5, metavar="N", help=said["worst"].render("5"))
    group.add_argument("--skip-invalid", action="store_true", help=said["skip_invalid"].render())
    group.add_argument(
        "--workers",
        type=_positive,
        default=1,
        metavar="N",
        help=said["workers"].render("1"),
    )
    group.add_argument("--id-key", metavar="KEY", help=said["id_key"].render())
    _add_html_details(group)


def _add_html_details(group: Any, text: _help.OptionHelp | None = None) -> None:
    from matchevals.report._model import DEFAULT_DETAILS

    group.add_argument(
        "--html-details",
        type=_non_negative,
        default=DEFAULT_DETAILS,
        metavar="N",
        help=(text or _help.COMMON_HELP["html_details"]).render(str(DEFAULT_DETAILS)),
    )


def _add_judge_flag(group: Any, text: _help.OptionHelp | None) -> None:
    group.add_argument(
        "--judge",
        dest="judge",
        type=judge_spec,
        default=argparse.SUPPRESS,
        metavar="MODULE:ATTRIBUTE",
        help=(text or _help.JSON_OPTION_HELP["judge"]).render(),
    )


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names (its first word that is one), so only it is built."""
    for word in argv:
        if word in COMMANDS:
            return word
        if not word.startswith("-"):
            return None
    return None


_JSON_EXAMPLES = (
    "matchevals json out.jsonl ref.jsonl --aggregator average --fail-under 0.9",
    "matchevals json out.jsonl ref.jsonl --id-key id --nested --exclude-keys '**.debug_*' "
    "--comparators 'total=numeric(abs_tol=0.01)' 'name=text()'",
    "matchevals json out.jsonl ref.jsonl --rubric 'summary=says the same' --judge my_judges:model",
    "matchevals json out.jsonl ref.jsonl --format html -o report.html",
)
_GRAPH_EXAMPLES = (
    "matchevals graph runs.jsonl reference.json --partial-credit --threshold 0.8",
    "matchevals graph runs.jsonl references.jsonl --id-key thread --format markdown -o graph.md",
    "matchevals graph runs.jsonl reference.json --format jsonl -o run.jsonl && "
    "matchevals report run.jsonl",
)


def _parser(command: str | None) -> tuple[argparse.ArgumentParser, dict[str, list[str]]]:
    """The parser; only ``command``'s flags are built (each comes from a factory signature)."""
    from matchevals import __version__

    parser = _Parser(
        prog="matchevals",
        description=_help.wrap(
            "Score JSON outputs and LangGraph trajectories against references. "
            "Run 'matchevals COMMAND --help' for a command's options."
        ),
        epilog=_help.epilog(examples=("matchevals demo", *_JSON_EXAMPLES[:1], _GRAPH_EXAMPLES[0])),
        formatter_class=_help.Formatter,
    )
    parser.add_argument("--version", action="version", version=f"matchevals {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    names: dict[str, list[str]] = {}
    json_cmd = commands.add_parser(
        "json",
        help="score structured outputs against references",
        description=_help.wrap(
            "Score OUTPUTS against REFERENCES with a json_match evaluator "
            "(matchevals.json_match.create_json_match_evaluator; every keyword argument it "
            "takes is a flag). Each file is .json (one example, or a list of examples) or .jsonl "
            "(one example per line); examples pair by position, or by --id-key."
        ),
        epilog=_help.epilog(examples=_JSON_EXAMPLES, comparators=_builtin_comparators, globs=True)
        if command == "json"
        else None,
        formatter_class=_help.Formatter,
    )
    if command == "json":
        from matchevals.json_match import create_json_match_evaluator

        json_cmd.add_argument("outputs", metavar="OUTPUTS", help="the outputs: .jsonl or .json")
        json_cmd.add_argument(
            "references", metavar="REFERENCES", help="the references: .jsonl or .json"
        )
        json_group = json_cmd.add_argument_group("json_match options")
        names["json"] = add_factory_flags(
            json_group,
            create_json_match_evaluator,
            texts=_help.JSON_OPTION_HELP,
            custom={"judge": _add_judge_flag},
        )
        _add_common(json_cmd)
    graph_cmd = commands.add_parser(
        "graph",
        help="score LangGraph trajectories against a reference",
        description=_help.wrap(
            "Score the trajectories in RUNS (.jsonl: one run, or one list of runs, per line) "
            "against REFERENCE: a .json holding one reference for every run, or a list of "
            "references (or a .jsonl) paired by position or --id-key. A reference step is a "
            'list of node names (unordered), {"steps": [...], "match_mode": "exact", '
            '"optional": true}, or {"repeat": [...], "min": 1, "max": null}.'
        ),
        epilog=_help.epilog(examples=_GRAPH_EXAMPLES) if command == "graph" else None,
        formatter_class=_help.Formatter,
    )
    if command == "graph":
        from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

        graph_cmd.add_argument("outputs", metavar="RUNS", help="the runs: .jsonl (or .json)")
        graph_cmd.add_argument(
            "references", metavar="REFERENCE", help="one reference (.json) or one per run"
        )
        graph_group = graph_cmd.add_argument_group("graph_trajectory_match options")
        names["graph"] = add_factory_flags(
            graph_group, create_graph_trajectory_match_evaluator, texts=_help.GRAPH_OPTION_HELP
        )
        _add_common(graph_cmd)
    report_cmd = commands.add_parser(
        "report",
        help="write the HTML report of a run saved with --format jsonl",
        description=_help.wrap(
            "Write the HTML report of RESULTS, a run saved with --format jsonl (its example "
            "lines carry the values, so the page shows them side by side)."
        ),
        epilog=_help.epilog(
            examples=(
                "matchevals json out.jsonl ref.jsonl --format jsonl -o run.jsonl",
                "matchevals report run.jsonl -o report.html",
            ),
            exit_status=False,
        )
        + "\n\nexit status:\n  0  the report was written\n  2  RESULTS is missing or not a "
        "saved run, or FILE cannot be written",
        formatter_class=_help.Formatter,
    )
    if command == "report":
        report_cmd.add_argument("results", metavar="RESULTS", help="a --format jsonl run")
        report_cmd.add_argument(
            "--output",
            "-o",
            metavar="FILE",
            help="where to write the page (default: RESULTS with .html instead of its suffix)",
        )
        report_cmd.add_argument("--title", help="the page's title (default: the run's)")
        _add_html_details(report_cmd, _help.REPORT_DETAILS_HELP)
    demo_cmd = commands.add_parser(
        "demo", help="run the main job on bundled example data", description="Run the demos."
    )
    demo_cmd.add_argument("--no-graph", action="store_true", help="skip the LangGraph demo")
    return parser, names


def _builtin_comparators() -> list[tuple[str, str]]:
    from matchevals.json_match import comparators

    return _help.comparator_lines(comparators)


def _pairs(
    args: argparse.Namespace, kind: Kind, counts: Counts, meter: InputMeter | None = None
) -> Iterator[Example | Problem]:
    outputs_path, references_path = Path(args.outputs), Path(args.references)
    outputs = read_records(outputs_path)
    if meter is not None:
        outputs = meter.records(outputs)
    if args.id_key:
        return pair_by_id(outputs, references_path, args.id_key, counts)
    if kind == "graph" and references_path.suffix.lower() == ".json":
        reference = load_single(references_path)
        if not isinstance(reference, list):
            return pair_with_one(outputs, reference, counts)
    return pair_by_position(outputs, read_records(references_path), counts)


def _with_values(
    pairs: Iterable[Example | Problem], kept: dict[int, tuple[Any, Any]]
) -> Iterator[Example | Problem]:
    """Pass the pairs on, keeping each example's values until its score comes back."""
    for item in pairs:
        if isinstance(item, Example):
            kept[item.index] = (item.outputs, item.reference)
        yield item


def _values_of(kept: dict[int, tuple[Any, Any]], item: Scored) -> tuple[Any, Any] | None:
    """The values of a scored example; those of earlier examples (that became problems) go."""
    while kept:
        first = next(iter(kept))
        if first >= item.index:
            break
        del kept[first]
    return kept.pop(item.index, None)


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

    def write(self, text: str) -> int:
        try:
            return self._handle.write(text)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise ReportError(self._where, error) from None

    def flush(self) -> None:
        try:
            self._handle.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise ReportError(self._where, error) from None

    def close(self) -> None:
        try:
            self._handle.close()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise ReportError(self._where, error) from None

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, ... for rich
        return getattr(self._handle, name)


def _discard_stdout() -> None:
    """Point stdout at devnull, so output still buffered cannot fail again at exit.

    What the Python docs recommend for SIGPIPE; used for a full disk too.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def _destination(path: str | None) -> Iterator[tuple[IO[str], bool]]:
    if path is None:
        out = _Guarded(sys.stdout, "standard output")
        try:
            yield cast(IO[str], out), sys.stdout.isatty()
            out.flush()
        except ReportError:
            _discard_stdout()
            raise
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None
    guarded = _Guarded(handle, path)
    try:
        yield cast(IO[str], guarded), False
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        raise
    guarded.close()  # flushes: a full disk may only show here


def _report_problem(problem: Problem, count: int) -> None:
    """The first invalid examples go to stderr as they are found; the rest are counted."""
    if count <= MAX_STDERR_PROBLEMS:
        print(f"matchevals: {problem}", file=sys.stderr)


def _render(
    summary: Summary,
    args: argparse.Namespace,
    out: IO[str],
    color: bool,
    page: HtmlPage | None,
) -> None:
    title = f"matchevals {summary.kind}"
    if args.format == "table":
        render_table(summary, out, title=title, color=color)
    elif args.format == "markdown":
        render_markdown(summary, out, title=title)
    elif args.format == "jsonl":
        render_jsonl_summary(summary, out)
    elif args.format == "html":
        assert page is not None
        out.write(page.render(summary, title))
    else:
        render_json(summary, out)


def _options_for_run(
    kind: Kind, options: dict[str, Any], names: Sequence[str], workers: int
) -> dict[str, Any]:
    """The factory options with ``--judge`` loaded; a ``JudgeFlagError`` or ``ValueError`` in
    the CLI's words otherwise."""
    conflict = option_conflict(options)
    if conflict:
        raise ValueError(conflict)
    if isinstance(options.get("judge"), str):
        spec = options["judge"]
        options = {**options, "judge": load_judge(spec)}
        if workers > 1:
            check_picklable(spec, options["judge"])
    try:
        build_evaluator(kind, options)
    except (TypeError, ValueError) as error:
        raise ValueError(in_cli_words(str(error), [*names, "judge"])) from None
    return options


def _run(
    args: argparse.Namespace, kind: Kind, options: dict[str, Any], names: Sequence[str] = ()
) -> int:
    if args.format == "html" and args.output is None and sys.stdout.isatty():
        print(
            f"matchevals {kind}: error: --format html writes a page: pass --output report.html "
            "(or redirect standard output)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    try:
        options = _options_for_run(kind, options, names, args.workers)
    except (JudgeFlagError, ValueError) as error:
        print(f"matchevals {kind}: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    summary = Summary(kind, worst_count=max(0, args.worst))
    summary.files = (args.outputs, args.references)
    summary.id_key = args.id_key
    summary.gates = Gates(args.fail_under, options.get("threshold"), args.skip_invalid)
    page = None
    if args.format == "html":
        from matchevals.cli._html import HtmlPage

        page = HtmlPage(args.html_details)
    show_problems = args.format != "table" or args.output is not None
    progress = sys.stderr.isatty() and not (args.format == "jsonl" and args.output is None)
    meter = InputMeter(Path(args.outputs)) if progress else None
    kept: dict[int, tuple[Any, Any]] = {}
    with _destination(args.output) as (out, color):
        pairs: Iterable[Example | Problem] = _pairs(args, kind, summary.counts, meter)
        if args.format in ("jsonl", "html"):
            pairs = _with_values(pairs, kept)
        items: Iterable[Scored | Problem] = score_all(pairs, kind, options, args.workers)
        if meter is not None:
            items = with_progress(items, meter)
        for item in items:
            summary.add(item)
            values = None if isinstance(item, Problem) else _values_of(kept, item)
            if args.format == "jsonl":
                out.write(jsonl_line(item, values) + "\n")
            if page is not None:
                page.add(item, values)
            if isinstance(item, Problem) and show_problems:
                _report_problem(item, len(summary.problems))
        _render(summary, args, out, color, page)
    if show_problems and summary.count_warning():
        print(f"matchevals: warning: {summary.count_warning()}", file=sys.stderr)
    if show_problems and len(summary.problems) > MAX_STDERR_PROBLEMS:
        extra = len(summary.problems) - MAX_STDERR_PROBLEMS
        print(f"matchevals: … and {extra} more invalid examples", file=sys.stderr)
    if page is not None and args.output is not None:
        print(f"matchevals: wrote {args.output}: {page.note()}", file=sys.stderr)
    if summary.problems and not args.skip_invalid:
        return EXIT_INVALID
    passed, _ = summary.verdict()
    return EXIT_OK if passed else EXIT_BELOW


def _report(args: argparse.Namespace) -> int:
    """``matchevals report RESULTS.jsonl``: the HTML page of a saved run."""
    from matchevals.cli._html import saved_run_page

    target, page, note = saved_run_page(args.results, args.output, args.title, args.html_details)
    with _destination(target) as (out, _):
        out.write(page)
    print(f"matchevals: wrote {target}: {note}", file=sys.stderr)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``matchevals`` command line; return its exit status.

    >>> main(["json", "outputs.jsonl", "references.jsonl", "--fail-under", "0.9"])  # doctest: +SKIP
    0
    """
    try:
        status = _main(argv)
    except SystemExit as exiting:  # argparse: --help, --version, usage errors
        if not _flush_stdout():
            raise SystemExit(EXIT_INVALID) from None
        raise exiting from None
    if not _flush_stdout() and status in (EXIT_OK, EXIT_BELOW):
        return EXIT_INVALID
    return status


def _flush_stdout() -> bool:
    """Flush stdout now, not at interpreter exit where a failure prints a traceback.

    False (after a one-line message) when it fails with anything but a closed pipe.
    """
    if sys.stdout is None:
        return True
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
    except OSError as error:
        _discard_stdout()
        print(f"matchevals: error: cannot write to standard output: {error}", file=sys.stderr)
        return False
    return True


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser, names = _parser(_command_of(words))
    args = parser.parse_args(words)
    try:
        if args.command == "demo":
            from matchevals.cli._demo import run_demo

            return run_demo(graph=not args.no_graph)
        if args.command == "report":
            return _report(args)
        kind: Kind = args.command
        return _run(args, kind, given_options(args, names[kind]), names[kind])
    except (InputError, ReportError) as error:
        print(f"matchevals: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("matchevals: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        _discard_stdout()
        return EXIT_OK
