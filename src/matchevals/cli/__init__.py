"""``matchevals``: score files of JSON outputs or trajectories from the command line.

::

    matchevals json OUTPUTS REFERENCES [options]        # structured outputs against references
    matchevals trajectory OUTPUTS REFERENCES [options]  # agent messages and tool calls
    matchevals graph RUNS REFERENCE [options]           # LangGraph trajectories against a reference
    matchevals report RESULTS.jsonl [-o FILE]           # HTML page of a saved --format jsonl run
    matchevals compare BASE.jsonl NEW.jsonl [options]   # two saved runs compared, with statistics
    matchevals demo                                     # the main job on bundled example data

Exit status: ``0`` every example scored and every gate passed (``--fail-under``, graph
``--threshold``); ``1`` a gate failed (the mean score fell below ``--fail-under`` or nothing was
scored, or an example scored below ``--threshold``); ``2`` bad input: a line that is not JSON, an
example without its partner or that the evaluator rejects (unless ``--skip-invalid``), a missing
or unreadable file, or bad options. Invalid input wins over 1.

Only what a command needs is imported: ``matchevals json --help`` builds the json flags alone
(from the factory's signature), so a ``graph`` run does not pay for json_match's scipy either;
reading, scoring and reporting (``_command``) are imported once the arguments are parsed, and
rich when a table or progress line is drawn.

>>> main(["json", "--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matchevals.cli import _help
from matchevals.cli._compare import add_compare
from matchevals.cli._flags import add_factory_flags, given_options
from matchevals.cli._judge import judge_spec
from matchevals.cli._output import (
    EXIT_BELOW,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    OutputOpenError,
    ReportError,
    discard_stdout,
)
from matchevals.cli._parser import ParseFailed, Parser, Version, add_flags, number_in, whole_number

if TYPE_CHECKING:
    from matchevals._line_scoring import Kind

__all__ = ["EXIT_BELOW", "EXIT_INVALID", "EXIT_OK", "main"]

FORMATS = ("table", "json", "jsonl", "markdown", "html")
COMMANDS = ("json", "trajectory", "graph", "report", "compare", "demo")
HTML_DETAILS = 1000  # matchevals.report.DEFAULT_DETAILS, not imported for --help (tested equal)


def _add_common(parser: argparse.ArgumentParser) -> None:
    add_flags(
        parser.add_argument_group("reporting"),
        _help.COMMON_HELP,
        format={"choices": FORMATS, "default": "table"},
        output={},
        fail_under={"type": number_in("[0, 1]")},
        worst={"type": int, "default": 5},
        skip_invalid={"action": "store_true"},
        workers={"type": whole_number(1), "shown": "1"},
        engine={"choices": ("local", "ray"), "default": "local"},
        ray_address={},
        id_key={},
        html_details=_HTML_DETAILS,
    )


_HTML_DETAILS = {"type": whole_number(0), "default": HTML_DETAILS}


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


@dataclass(frozen=True)
class _Scoring:
    """A scoring subcommand: its texts, and the factory whose keyword arguments are its flags."""

    help: str
    description: str
    examples: tuple[str, ...]
    factory: str  # module:create_NAME_evaluator, imported only when the command is run
    texts: dict[str, _help.OptionHelp]
    teaches: bool = False  # the epilog teaches comparators, paths and globs
    inputs: tuple[tuple[str, str], ...] = (  # (metavar, help) of the two files
        ("OUTPUTS", "the outputs: .jsonl or .json"),
        ("REFERENCES", "the references: .jsonl or .json"),
    )


SCORING = {
    "json": _Scoring(
        "score structured outputs against references",
        "Score OUTPUTS against REFERENCES with a json_match evaluator "
        "(matchevals.json_match.create_json_match_evaluator; every keyword argument it "
        "takes is a flag). Each file is .json (one example, or a list of examples) or .jsonl "
        "(one example per line); examples pair by position, or by --id-key.",
        (
            "matchevals json out.jsonl ref.jsonl --aggregator average --fail-under 0.9",
            "matchevals json out.jsonl ref.jsonl --id-key id --nested --exclude-keys '**.debug_*' "
            "--comparators 'total=numeric(abs_tol=0.01)' 'name=text()'",
            "matchevals json out.jsonl ref.jsonl --rubric 'summary=says the same' "
            "--judge my_judges:model",
            "matchevals json out.jsonl ref.jsonl --format html -o report.html",
        ),
        "matchevals.json_match:create_json_match_evaluator",
        _help.JSON_OPTION_HELP,
        teaches=True,
    ),
    "trajectory": _Scoring(
        "score agent trajectories (messages and tool calls) against references",
        "Score the agent trajectories in OUTPUTS against REFERENCES with a trajectory-match "
        "evaluator (matchevals.trajectory.create_trajectory_match_evaluator). An example is "
        'a list of messages (OpenAI or LangChain dicts) or {"messages": [...]}. Each file is '
        ".jsonl (one trajectory per line) or .json (one trajectory, or a list of them). With "
        '--trajectory-match-mode pattern, a .json holding one pattern {"turns": [...]} is the '
        "reference of every run.",
        (
            "matchevals trajectory out.jsonl ref.jsonl --trajectory-match-mode superset",
            "matchevals trajectory out.jsonl shape.json --trajectory-match-mode pattern",
            "matchevals trajectory out.jsonl ref.jsonl --id-key id --workers 2 --format markdown",
            "matchevals trajectory --from otel traces.json ref.jsonl --id-key id",
        ),
        "matchevals.trajectory:create_trajectory_match_evaluator",
        _help.TRAJECTORY_OPTION_HELP,
    ),
    "graph": _Scoring(
        "score LangGraph trajectories against a reference",
        "Score the trajectories in RUNS (.jsonl: one run, or one list of runs, per line) "
        "against REFERENCE: a .json holding one reference for every run, or a list of "
        "references (or a .jsonl) paired by position or --id-key. A reference step is a "
        'list of node names (unordered), {"steps": [...], "match_mode": "exact", '
        '"optional": true}, or {"repeat": [...], "min": 1, "max": null}.',
        (
            "matchevals graph runs.jsonl reference.json --partial-credit --threshold 0.8",
            "matchevals graph runs.jsonl references.jsonl --id-key thread --format markdown "
            "-o graph.md",
            "matchevals graph runs.jsonl reference.json --format jsonl -o run.jsonl && "
            "matchevals report run.jsonl",
        ),
        "matchevals.graph_trajectory:create_graph_trajectory_match_evaluator",
        _help.GRAPH_OPTION_HELP,
        inputs=(
            ("RUNS", "the runs: .jsonl (or .json)"),
            ("REFERENCE", "one reference (.json) or one per run"),
        ),
    ),
}


def _parser(command: str | None) -> tuple[argparse.ArgumentParser, dict[str, list[str]]]:
    """The parser; only ``command``'s flags are built (each comes from a factory signature)."""
    parser = Parser(
        prog="matchevals",
        description=_help.wrap(
            "Score JSON outputs, agent trajectories and LangGraph runs against references. "
            "Run 'matchevals COMMAND --help' for a command's options."
        ),
        lazy_epilog=lambda: _help.epilog(
            examples=("matchevals demo", SCORING["json"].examples[0], SCORING["graph"].examples[0])
        ),
        formatter_class=_help.Formatter,
    )
    parser.add_argument("--version", action=Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    names: dict[str, list[str]] = {}
    for name in SCORING:
        _add_scoring(commands, name, command, names)
    _add_report(commands, command)
    add_compare(commands, command)
    demo_cmd = commands.add_parser(
        "demo", help="run the main job on bundled example data", description="Run the demos."
    )
    demo_cmd.add_argument("--no-graph", action="store_true", help="skip the LangGraph demo")
    return parser, names


def _add_scoring(
    commands: Any, name: str, command: str | None, names: dict[str, list[str]]
) -> None:
    """A scoring subcommand; its flags (from its factory's signature) only when it is run."""
    said = SCORING[name]
    scoring_cmd = commands.add_parser(
        name,
        help=said.help,
        description=_help.wrap(said.description),
        lazy_epilog=lambda: _help.epilog(
            examples=said.examples,
            comparators=_builtin_comparators if said.teaches else None,
            globs=said.teaches,
        ),
        formatter_class=_help.Formatter,
    )
    if command != name:
        return
    module, _, attribute = said.factory.partition(":")
    factory = getattr(importlib.import_module(module), attribute)
    for dest, (metavar, text) in zip(("outputs", "references"), said.inputs, strict=True):
        scoring_cmd.add_argument(dest, metavar=metavar, help=text)
    if name == "trajectory":
        scoring_cmd.add_argument(
            "--from",
            dest="from_source",
            choices=("otel", "adk"),
            help="read OUTPUTS as traces: an OTLP JSON file (otel: one trajectory per trace, id "
            "= trace id), or ADK eval files (adk: OUTPUTS an eval result, REFERENCES an eval "
            "set or result; id = eval_id/invocation_id). E.g. --from otel --id-key id",
        )
    title = attribute.removeprefix("create_").removesuffix("_evaluator")
    group = scoring_cmd.add_argument_group(f"{title} options")
    custom = {"judge": _add_judge_flag}
    names[name] = add_factory_flags(group, factory, texts=said.texts, custom=custom)
    _add_common(scoring_cmd)


_REPORT_EXIT_STATUS = (
    ("0", "the report was written"),
    ("2", "RESULTS is missing or not a saved run, or FILE cannot be written"),
)


def _add_report(commands: Any, command: str | None) -> None:
    report_cmd = commands.add_parser(
        "report",
        help="write the HTML report of a run saved with --format jsonl",
        description=_help.wrap(
            "Write the HTML report of RESULTS, a run saved with --format jsonl (its example "
            "lines carry the values, so the page shows them side by side)."
        ),
        lazy_epilog=lambda: _help.epilog(
            examples=(
                "matchevals json out.jsonl ref.jsonl --format jsonl -o run.jsonl",
                "matchevals report run.jsonl -o report.html",
            ),
            exit_status=_REPORT_EXIT_STATUS,
        ),
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
        add_flags(report_cmd, _help.COMMON_HELP, html_details=_HTML_DETAILS)


def _builtin_comparators() -> list[tuple[str, str]]:
    from matchevals.json_match import comparators

    return _help.comparator_lines(comparators)


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
        discard_stdout()
    except OSError as error:
        discard_stdout()
        print(f"matchevals: error: cannot write to standard output: {error}", file=sys.stderr)
        return False
    return True


_FILE_SUFFIXES = (".json", ".jsonl", ".ndjson")


def _parse(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """The arguments, the two files read where a flag of several values took them.

    Such a flag (``--exclude-keys``, ``--comparators``, ...) takes every word up to the next
    flag, so ``json --exclude-keys id out.jsonl ref.jsonl`` leaves no files. When the words
    do not parse, and exactly one pair of neighbouring JSON file names, put right after the
    command, makes them parse, that is what they mean; several such readings are an error
    saying how to write it.
    """
    command = _command_of(words)
    if command not in ("json", "trajectory", "graph"):
        return parser.parse_args(words)
    place = words.index(command) + 1
    with Parser.quietly():
        try:
            return parser.parse_args(words)
        except ParseFailed:
            pass
        readings = []
        for at in range(place, len(words) - 1):
            files = words[at : at + 2]
            if not all(word.lower().endswith(_FILE_SUFFIXES) for word in files):
                continue
            with contextlib.suppress(ParseFailed):
                rest = [*words[place:at], *words[at + 2 :]]
                readings.append(parser.parse_args([*words[:place], *files, *rest]))
    if len(readings) == 1:
        return readings[0]
    if len(readings) > 1:
        parser.error(
            f"{command}: which words are the two files is unclear: a flag of several values "
            "takes every word up to the next flag; put the files right after the command, or "
            "end the flag's values with --"
        )
    return parser.parse_args(words)


def _main(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser, names = _parser(_command_of(words))
    args = _parse(parser, words)
    from matchevals.cli._command import run_report, run_scoring
    from matchevals.cli._engine import WorkerError
    from matchevals.cli._read import InputError

    try:
        if args.command == "demo":
            from matchevals.cli._demo import run_demo

            return run_demo(graph=not args.no_graph)
        if args.command == "report":
            return run_report(args)
        if args.command == "compare":
            from matchevals.cli._compare import run_compare

            return run_compare(args)
        kind: Kind = args.command
        options = given_options(args, names[kind])
        if getattr(args, "from_source", None):
            from matchevals.cli._traces import run_from_traces

            return run_from_traces(args, lambda a: run_scoring(a, kind, options, names[kind]))
        return run_scoring(args, kind, options, names[kind])
    except (InputError, OutputOpenError, ReportError, WorkerError) as error:
        print(f"matchevals: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("matchevals: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        discard_stdout()
        return EXIT_OK
