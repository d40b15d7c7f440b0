"""``matchevals``: score files of JSON outputs or trajectories from the command line.

::

    matchevals json OUTPUTS REFERENCES [options]        # structured outputs against references
    matchevals trajectory OUTPUTS REFERENCES [options]  # agent messages and tool calls
    matchevals graph RUNS REFERENCE [options]           # LangGraph trajectories against a reference
    matchevals demo                                     # the main job on bundled example data

Exit status: ``0`` every example scored and the mean reached ``--fail-under`` (if given);
``1`` the mean score fell below ``--fail-under`` (or nothing was scored); ``2`` bad input: a
line that is not JSON, an example without its partner or that the evaluator rejects (unless
``--skip-invalid``), a missing or unreadable file, or bad options. Invalid input wins over 1.

>>> main(["json", "--help"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, cast

from matchevals import __version__
from matchevals.cli._engine import Engine, job_for, run_job
from matchevals.cli._flags import add_factory_flags, given_options
from matchevals.cli._read import InputError, Problem, Reader, load_document
from matchevals.cli._report import (
    Summary,
    render_json,
    render_jsonl_summary,
    render_markdown,
    render_table,
)
from matchevals.cli._run import Kind, build_evaluator
from matchevals.cli._trajectory import is_one_trajectory
from matchevals.cli._work import Batch, Job

__all__ = ["EXIT_BELOW", "EXIT_INVALID", "EXIT_OK", "main"]

EXIT_OK = 0
EXIT_BELOW = 1
EXIT_INVALID = 2
FORMATS = ("table", "json", "jsonl", "markdown")
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


def _add_common(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("reporting")
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default, for people), json (summary), jsonl (one line per example, then "
        "the summary), markdown (for CI comments)",
    )
    group.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
    group.add_argument(
        "--fail-under",
        type=_score_in_range,
        metavar="SCORE",
        help="exit 1 when the mean score is below SCORE",
    )
    group.add_argument(
        "--worst", type=int, default=5, metavar="N", help="how many worst examples to list"
    )
    group.add_argument(
        "--skip-invalid",
        action="store_true",
        help="report invalid input but do not exit 2 because of it",
    )
    group.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help="score in N processes (results stay in input order); with --engine ray, N Ray "
        "actors (default: one per CPU of the cluster)",
    )
    group.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (default): this machine's processes; ray: Ray actors (pip install "
        "'matchevals[ray]'), same output",
    )
    group.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster for --engine ray (default: a local Ray, or RAY_ADDRESS)",
    )
    group.add_argument(
        "--id-key",
        metavar="KEY",
        help="pair examples by this key (removed before scoring) instead of by position",
    )


def _parser(command: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, list[str]]]:
    """The parser; with ``command``, only that command's factory flags are made, so a run
    imports only the evaluator it uses (``graph`` does not pay for json_match's scipy)."""
    parser = _Parser(
        prog="matchevals",
        description="Score JSON outputs, agent trajectories and LangGraph runs against references.",
        epilog="exit status: 0 ok, 1 mean below --fail-under, 2 invalid input or usage error",
    )
    parser.add_argument("--version", action="version", version=f"matchevals {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    json_cmd = commands.add_parser(
        "json",
        help="score structured outputs against references",
        description="Score OUTPUTS against REFERENCES with a json_match evaluator. Each file is "
        ".json (one example, or a list of examples) or .jsonl (one example per line).",
    )
    json_cmd.add_argument("outputs", metavar="OUTPUTS")
    json_cmd.add_argument("references", metavar="REFERENCES")
    json_group = json_cmd.add_argument_group("json_match options")
    names: dict[str, list[str]] = {}
    if command in (None, "json"):
        from matchevals.json_match import create_json_match_evaluator

        names["json"] = add_factory_flags(json_group, create_json_match_evaluator)
    _add_common(json_cmd)
    trajectory_cmd = commands.add_parser(
        "trajectory",
        help="score agent trajectories (messages and tool calls) against references",
        description="Score the agent trajectories in OUTPUTS against REFERENCES with a "
        "trajectory-match evaluator. An example is a list of messages (OpenAI or LangChain "
        'dicts) or {"messages": [...]}. Each file is .jsonl (one trajectory per line) or .json '
        "(one trajectory, or a list of them).",
    )
    trajectory_cmd.add_argument("outputs", metavar="OUTPUTS")
    trajectory_cmd.add_argument("references", metavar="REFERENCES")
    trajectory_group = trajectory_cmd.add_argument_group("trajectory_match options")
    if command in (None, "trajectory"):
        from matchevals.trajectory import create_trajectory_match_evaluator

        names["trajectory"] = add_factory_flags(trajectory_group, create_trajectory_match_evaluator)
    _add_common(trajectory_cmd)
    graph_cmd = commands.add_parser(
        "graph",
        help="score LangGraph trajectories against a reference",
        description="Score the trajectories in RUNS (.jsonl: one run, or one list of runs, per "
        "line) against REFERENCE: a .json holding one reference for every run, or a list of "
        "references (or a .jsonl) paired by position or --id-key.",
    )
    graph_cmd.add_argument("outputs", metavar="RUNS")
    graph_cmd.add_argument("references", metavar="REFERENCE")
    graph_group = graph_cmd.add_argument_group("graph_trajectory_match options")
    if command in (None, "graph"):
        from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

        names["graph"] = add_factory_flags(graph_group, create_graph_trajectory_match_evaluator)
    _add_common(graph_cmd)
    demo_cmd = commands.add_parser(
        "demo", help="run the main job on bundled example data", description="Run the demos."
    )
    demo_cmd.add_argument("--no-graph", action="store_true", help="skip the LangGraph demo")
    return parser, names


def _readers(args: argparse.Namespace, kind: Kind) -> tuple[Reader, Reader | None, Any]:
    """The outputs, the references (None when one reference serves every run) and that one."""
    items = is_one_trajectory if kind == "trajectory" else None
    outputs, references_path = Reader(Path(args.outputs), items), Path(args.references)
    if not args.id_key and kind == "graph" and references_path.suffix.lower() == ".json":
        reference = load_document(references_path)
        if not isinstance(reference, list):
            return outputs, None, reference
    return outputs, Reader(references_path, items), None


def _engine(job: Job, args: argparse.Namespace) -> Engine:
    if args.engine == "ray":
        from matchevals.cli._ray_engine import RayActors

        return RayActors(job, args.workers, args.ray_address)
    if (args.workers or 1) > 1:
        from matchevals.cli._engine import Processes

        return Processes(job, args.workers)
    from matchevals.cli._engine import InProcess

    return InProcess(job)


def _with_progress(batches: Iterable[Batch], enabled: bool) -> Iterator[Batch]:
    if not enabled:
        yield from batches
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.completed} examples"), TimeElapsedColumn())
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as progress:
        task = progress.add_task("scoring", total=None)
        for batch in batches:
            yield batch
            progress.advance(task, batch.items)


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


def _render(summary: Summary, args: argparse.Namespace, out: IO[str], color: bool) -> None:
    title, bar = f"matchevals {summary.kind}", args.fail_under
    if args.format == "table":
        render_table(summary, out, title=title, fail_under=bar, color=color)
    elif args.format == "markdown":
        render_markdown(summary, out, title=title, fail_under=bar)
    elif args.format == "jsonl":
        render_jsonl_summary(summary, out, fail_under=bar)
    else:
        render_json(summary, out, fail_under=bar)


def _run(args: argparse.Namespace, kind: Kind, options: dict[str, Any]) -> int:
    try:
        build_evaluator(kind, options)
    except (TypeError, ValueError) as error:
        print(f"matchevals {kind}: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    summary = Summary(kind, worst_count=max(0, args.worst))
    summary.files = (args.outputs, args.references)
    show_problems = args.format != "table" or args.output is not None
    progress = sys.stderr.isatty() and not (args.format == "jsonl" and args.output is None)
    outputs, references, reference = _readers(args, kind)
    job = job_for(
        kind, options, outputs, references, id_key=args.id_key, reference=reference,
        lines=args.format == "jsonl", worst=summary.worst_count,
    )  # fmt: skip
    with contextlib.ExitStack() as stack:
        stack.enter_context(outputs)
        if references is not None:
            stack.enter_context(references)
        engine = stack.enter_context(_engine(job, args))
        out, color = stack.enter_context(_destination(args.output))
        batches = run_job(job, engine, outputs, references, summary.counts)
        for batch in _with_progress(batches, progress):
            seen = len(summary.problems)
            summary.merge(batch.tally)
            if batch.text:
                out.write(batch.text)
            for number, problem in enumerate(batch.tally.problems, seen + 1):
                if show_problems:
                    _report_problem(problem, number)
        _render(summary, args, out, color)
    if show_problems and summary.count_warning():
        print(f"matchevals: warning: {summary.count_warning()}", file=sys.stderr)
    if show_problems and len(summary.problems) > MAX_STDERR_PROBLEMS:
        extra = len(summary.problems) - MAX_STDERR_PROBLEMS
        print(f"matchevals: … and {extra} more invalid examples", file=sys.stderr)
    if summary.problems and not args.skip_invalid:
        return EXIT_INVALID
    if args.fail_under is not None and (summary.mean is None or summary.mean < args.fail_under):
        return EXIT_BELOW
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
    given = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in given if not arg.startswith("-")), None)
    parser, names = _parser(command if command in ("json", "graph", "trajectory") else None)
    args = parser.parse_args(given)
    try:
        if args.command == "demo":
            from matchevals.cli._demo import run_demo

            return run_demo(graph=not args.no_graph)
        kind: Kind = args.command
        return _run(args, kind, given_options(args, names[kind]))
    except (InputError, ReportError) as error:
        print(f"matchevals: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("matchevals: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        _discard_stdout()
        return EXIT_OK
