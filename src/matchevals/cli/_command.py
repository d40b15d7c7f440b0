"""Running a parsed ``json``, ``trajectory``, ``graph`` or ``report`` command: read the inputs
in chunks of raw lines, have the engine score them (in order, here, in ``--workers`` processes
or on Ray), feed the summary and the chosen format, exit with the verdict. Imported once the
arguments are parsed, so ``--help`` never loads it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from matchevals._line_scoring import Batch, Kind, build_evaluator
from matchevals._scoring import Problem
from matchevals.cli._engine import engine_for, job_for, run_job
from matchevals.cli._flags import in_cli_words, option_conflict
from matchevals.cli._judge import JudgeFlagError, check_picklable, load_judge
from matchevals.cli._output import (
    EXIT_BELOW,
    EXIT_INVALID,
    EXIT_OK,
    MAX_STDERR_PROBLEMS,
    destination,
    page_on_terminal,
    report_encoding,
    write_encoded,
)
from matchevals.cli._progress import InputMeter, with_progress
from matchevals.cli._read import InputError, Reader, load_document
from matchevals.cli._trajectory import is_one_trajectory
from matchevals.report._summary import Gates, Summary
from matchevals.report._text import (
    render_json,
    render_jsonl_summary,
    render_markdown,
    render_table,
)

if TYPE_CHECKING:
    from matchevals.report._page import HtmlPage


def _readers(
    args: argparse.Namespace, kind: Kind, options: dict[str, Any]
) -> tuple[Reader, Reader | None, Any]:
    """The outputs, the references (None when one reference serves every run, whatever
    ``--id-key``, which then labels the runs) and that one: a ``.json`` holding one graph
    reference, or one turn pattern ``{"turns": [...]}`` in pattern mode (a list is read as
    one reference per run)."""
    items = is_one_trajectory if kind == "trajectory" else None
    outputs, references_path = Reader(Path(args.outputs), items), Path(args.references)
    patterns = kind == "trajectory" and options.get("trajectory_match_mode") == "pattern"
    if (kind == "graph" or patterns) and references_path.suffix.lower() == ".json":
        reference = load_document(references_path)
        if not isinstance(reference, list):
            return outputs, None, reference
    return outputs, Reader(references_path, items), None


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
    kind: Kind, options: dict[str, Any], names: Sequence[str], elsewhere: bool
) -> dict[str, Any]:
    """The factory options with ``--judge`` loaded; a ``JudgeFlagError`` or ``ValueError`` in
    the CLI's words otherwise."""
    conflict = option_conflict(options)
    if conflict:
        raise ValueError(conflict)
    if isinstance(options.get("judge"), str):
        spec = options["judge"]
        options = {**options, "judge": load_judge(spec)}
        if elsewhere:  # sent to worker processes or Ray actors
            check_picklable(spec, options["judge"])
    try:
        build_evaluator(kind, options)
    except (TypeError, ValueError) as error:
        raise ValueError(in_cli_words(str(error), [*names, "judge"])) from None
    return options


def run_scoring(
    args: argparse.Namespace, kind: Kind, options: dict[str, Any], names: Sequence[str] = ()
) -> int:
    if page_on_terminal(kind, args.format, args.output, "report.html"):
        return EXIT_INVALID
    elsewhere = args.engine == "ray" or (args.workers or 1) > 1
    try:
        options = _options_for_run(kind, options, names, elsewhere)
    except (JudgeFlagError, ValueError) as error:
        print(f"matchevals {kind}: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    summary = _summary(args, kind, options)
    page = None
    if args.format == "html":
        from matchevals.report._page import HtmlPage

        page = HtmlPage(args.html_details)
    show_problems = args.format != "table" or args.output is not None
    progress = sys.stderr.isatty() and not (args.format == "jsonl" and args.output is None)
    outputs, references, reference = _readers(args, kind, options)
    job = job_for(
        kind, options, outputs, references, id_key=args.id_key, reference=reference,
        lines=args.format == "jsonl", worst=summary.worst_count,
        details=args.html_details if page is not None else None,
        encoding=report_encoding(args.output),
    )  # fmt: skip
    with contextlib.ExitStack() as stack:
        stack.enter_context(outputs)
        if references is not None:
            stack.enter_context(references)
        engine = stack.enter_context(engine_for(job, args.engine, args.workers, args.ray_address))
        out, color = stack.enter_context(destination(args.output))
        batches: Iterable[tuple[bytes, Batch]] = run_job(
            job, engine, outputs, references, summary.counts
        )
        if progress:
            meter = InputMeter(Path(args.outputs), outputs)
            batches = with_progress(batches, meter, count=lambda placed: placed[1].items)
        for encoded, batch in batches:
            seen = len(summary.problems)
            summary.merge(batch.tally)
            if encoded:
                write_encoded(out, encoded, job.encoding)
            if page is not None:
                page.add_batch(batch)
            if show_problems:
                for number, problem in enumerate(batch.tally.problems, seen + 1):
                    _report_problem(problem, number)
        _render(summary, args, out, color, page)
    return _finish(summary, args, page, show_problems)


def _summary(args: argparse.Namespace, kind: Kind, options: dict[str, Any]) -> Summary:
    summary = Summary(kind, worst_count=max(0, args.worst))
    shown = getattr(args, "shown_files", None)  # --from: the trace files, not their conversion
    summary.files = shown or (args.outputs, args.references)
    summary.id_key = args.id_key
    summary.gates = Gates(args.fail_under, options.get("threshold"), args.skip_invalid)
    return summary


def _finish(summary: Summary, args: argparse.Namespace, page: Any, show_problems: bool) -> int:
    """The closing lines on stderr, and the exit status."""
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


def run_report(args: argparse.Namespace) -> int:
    """``matchevals report RESULTS.jsonl``: the HTML page of a saved run."""
    from matchevals.report._page import saved_run_page
    from matchevals.report._saved import SavedRunError

    try:
        target, page, note = saved_run_page(
            args.results, args.output, args.title, args.html_details
        )
    except SavedRunError as error:
        raise InputError(str(error)) from None
    with destination(target) as (out, _):
        out.write(page)
    print(f"matchevals: wrote {target}: {note}", file=sys.stderr)
    return EXIT_OK
