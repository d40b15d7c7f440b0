"""HTML reports of evaluation runs: one self-contained page, from Python or the command line.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator()
>>> people = [({"name": "Ann", "age": 30}, {"name": "Ann", "age": 31})]
>>> examples = [{"results": evaluator(outputs=o, reference_outputs=r), "outputs": o,
...              "reference_outputs": r} for o, r in people]
>>> page = render_html_report(examples, title="extraction")
>>> page.startswith("<!DOCTYPE html>"), "<title>extraction</title>" in page
(True, True)

The page holds every example's score, id and one-line reason, and the full details (values,
differences located on both sides, superstep swimlanes) of the ``details`` lowest-scoring
examples (1000 by default), so a run of 100,000 examples still opens in a few seconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from matchevals.report._examples import DEFAULT_DETAILS

__all__ = ["DEFAULT_DETAILS", "render_html_report", "write_html_report"]


def render_html_report(
    examples: Iterable[Any],
    *,
    title: str | None = None,
    details: int = DEFAULT_DETAILS,
    fail_under: float | None = None,
) -> str:
    """The HTML page for a list of examples, each in any of these shapes:

    - what an evaluator returned: one result dict or a list of them (scores and comments only);
    - ``{"results": ..., "outputs": ..., "reference_outputs": ..., "id": ..., "where": ...}``:
      with the values, the page shows them side by side with the differing paths highlighted,
      and graph runs as superstep swimlanes;
    - the rows of ``langsmith.evaluate(...)`` (its ``ExperimentResults``): the run's outputs,
      the example's reference outputs and the evaluation results are taken from each row.

    ``fail_under`` adds the verdict a ``--fail-under`` gate would give; a pass mark the results
    carry (graph ``threshold=``) is a gate too, as ``--threshold`` is on the command line.
    """
    # imported here, so that the command line's scoring, which needs only a few of this
    # package's modules, does not load the page's (and graph_trajectory's) code
    from matchevals.report._examples import examples_from
    from matchevals.report._html import render_page
    from matchevals.report._model import ReportBuilder
    from matchevals.report._stats import verdict

    if isinstance(details, bool) or not isinstance(details, int) or details < 0:
        raise ValueError(f"details must be a whole number >= 0; got {details!r}")
    if fail_under is not None and not 0 <= fail_under <= 1:
        raise ValueError(f"fail_under must be a number in [0, 1]; got {fail_under!r}")
    builder = ReportBuilder(details=details)
    for example in examples_from(examples):
        builder.add(example)
    stats = builder.stats
    facts: dict[str, Any] = {"title": title, "fail_under": fail_under, "threshold": stats.threshold}
    if fail_under is not None or stats.threshold is not None:
        passed, reasons = verdict(
            mean=stats.mean,
            fail_under=fail_under,
            threshold=stats.threshold,
            below_threshold=stats.below_threshold,
        )
        facts |= {"passed": passed, "failed_because": reasons}
    return render_page(builder.document(**facts))


def write_html_report(
    examples: Iterable[Any],
    path: str | Path,
    *,
    title: str | None = None,
    details: int = DEFAULT_DETAILS,
    fail_under: float | None = None,
) -> Path:
    """Write :func:`render_html_report` to ``path`` (UTF-8) and return the path.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_html_report([{"key": "json_match:a", "score": 1}], folder / "r.html").name
    'r.html'
    """
    target = Path(path)
    target.write_text(
        render_html_report(examples, title=title, details=details, fail_under=fail_under),
        encoding="utf-8",
    )
    return target
