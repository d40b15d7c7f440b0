"""Running a parsed ``json``, ``graph`` or ``report`` command: pair the inputs, score them
(in order, in ``--workers`` processes), feed the summary and the chosen format, exit with the
verdict. Imported once the arguments are parsed, so ``--help`` never loads it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from matchevals.cli._flags import in_cli_words, option_conflict
from matchevals.cli._judge import JudgeFlagError, check_picklable, load_judge
from matchevals.cli._output import EXIT_BELOW, EXIT_INVALID, EXIT_OK, destination
from matchevals.cli._progress import InputMeter, with_progress
from matchevals.cli._read import (
    Counts,
    Example,
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

MAX_STDERR_PROBLEMS = 20


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


def run_scoring(
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
    with destination(args.output) as (out, color):
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


def run_report(args: argparse.Namespace) -> int:
    """``matchevals report RESULTS.jsonl``: the HTML page of a saved run."""
    from matchevals.cli._html import saved_run_page

    target, page, note = saved_run_page(args.results, args.output, args.title, args.html_details)
    with destination(target) as (out, _):
        out.write(page)
    print(f"matchevals: wrote {target}: {note}", file=sys.stderr)
    return EXIT_OK
