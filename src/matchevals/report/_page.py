"""The HTML page of a run: fed batch by batch as the command line scores (``--format html``),
or read back from a run saved with ``--format jsonl`` (``matchevals report``). Nothing here is
imported unless a page is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from matchevals.report._html import render_page
from matchevals.report._model import ReportBuilder
from matchevals.report._saved import SavedRunError, read_saved_run

if TYPE_CHECKING:
    from matchevals._line_scoring import Batch
    from matchevals.report._summary import Summary

__all__ = ["HtmlPage", "saved_run_page"]

_SUMMARY_FACTS = ("kind", "warnings", "passed", "failed_because", "fail_under", "threshold")


def _note(scored: int, details: int) -> str:
    """What the page holds, said when it is written."""
    return f"{scored} examples, full details for the {min(scored, details)} lowest-scoring"


class HtmlPage:
    """Collects a run for ``--format html``: every score, the details of the worst.

    Each chunk's batch brings its examples' rows (index, id, where, score, reason) and its
    own worst examples with their values; the page keeps the ``details`` worst of those, so
    what is kept stays small.
    """

    def __init__(self, details: int) -> None:
        self.details = details
        self.builder = ReportBuilder(details=details)
        self.scored = 0

    def add_batch(self, batch: Batch) -> None:
        """Add a batch's rows, problems and details (in input order)."""
        for row in batch.rows:
            self.builder.add_row(*row)
        self.scored += len(batch.rows)
        for problem in batch.tally.problems:
            self.builder.add_problem(problem.where, problem.message, counted=problem.counted)
        for example in batch.details:
            self.builder.offer(example)

    def render(self, summary: Summary, title: str) -> str:
        """The page, with the summary's verdict and counts (the same as the table's)."""
        facts = summary.as_dict()
        return render_page(
            self.builder.document(
                key_rows=summary.key_rows(),
                **{key: facts[key] for key in _SUMMARY_FACTS if key in facts},
                title=title,
                files=list(summary.files),
                id_key=summary.id_key,
                invalid=summary.invalid,
                examples_scored=summary.scored,
                mean_score=summary.mean,
                below_threshold=summary.stats.below_threshold,
            )
        )

    def note(self) -> str:
        return _note(self.scored, self.details)


def saved_run_page(
    results: str, output: str | None, title: str | None, details: int
) -> tuple[str, str, str]:
    """``matchevals report RESULTS``: where the page goes, the page, and what it holds.

    The target defaults to RESULTS with ``.html`` as its suffix; a ``SavedRunError`` when
    RESULTS is not a saved run or the page would overwrite it.
    """

    source = Path(results)
    target = output or str(source.with_suffix(".html"))
    if Path(target).resolve() == source.resolve():
        raise SavedRunError(f"{target}: the report would overwrite the run it is made from")
    builder = ReportBuilder(details=details)
    facts = read_saved_run(source, builder)
    facts["title"] = title or facts.get("title") or f"matchevals {facts.get('kind', 'run')}"
    page = render_page(builder.document(**facts))
    return target, page, _note(builder.stats.scored, details)
