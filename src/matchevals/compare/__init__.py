"""Did a change make the agent worse? Two runs compared example by example, with statistics.

>>> from matchevals.compare import compare_runs
>>> def run(*scores):
...     return [{"id": f"ex-{i}", "results": [{"key": "match", "score": s}]}
...             for i, s in enumerate(scores)]
>>> comparison = compare_runs(run(1, 1, 1, 0, 1), run(1, 0, 1, 0, 0))
>>> comparison.counts["regressed"], comparison.pass_fail.pass_to_fail
(2, 2)
>>> comparison.significance.test, comparison.significance.worse
('mcnemar', False)

Each example gets a verdict (improved, regressed, unchanged, added, removed) and, where it
regressed, what newly fails in it (JSON paths, tool calls, supersteps, read from the results'
own metadata). The summary holds each run's mean score and the paired difference with its 95%
t interval, pass rates and the exact McNemar test, per-key mean deltas, and pass@k and pass^k
for run sets holding several trials of each example. ``matchevals compare BASE NEW`` is the
same on the command line.
"""

from __future__ import annotations

from pathlib import Path

from matchevals.compare._comparing import compare_runs
from matchevals.compare._given import Trials
from matchevals.compare._model import (
    CATEGORIES,
    Comparison,
    ExampleChange,
    KeyDelta,
    PairedDifference,
    PassFail,
    RepeatedTrials,
    Significance,
)

__all__ = [
    "CATEGORIES",
    "Comparison",
    "ExampleChange",
    "KeyDelta",
    "PairedDifference",
    "PassFail",
    "RepeatedTrials",
    "Significance",
    "Trials",
    "compare_runs",
    "render_comparison_html",
    "write_comparison_html",
]


def render_comparison_html(comparison: Comparison, *, title: str | None = None) -> str:
    """The HTML page of a comparison: one self-contained file, regressions first, each with
    both runs' differences side by side.

    >>> from matchevals.compare import compare_runs
    >>> page = render_comparison_html(compare_runs([{"key": "k", "score": 1}],
    ...                                            [{"key": "k", "score": 0}]))
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    from matchevals.report._compare_page import comparison_page

    return comparison_page(comparison, title=title)


def write_comparison_html(
    comparison: Comparison, path: str | Path, *, title: str | None = None
) -> Path:
    """Write :func:`render_comparison_html` to ``path`` (UTF-8) and return the path."""
    target = Path(path)
    target.write_text(render_comparison_html(comparison, title=title), encoding="utf-8")
    return target


for _public in (
    Comparison,
    ExampleChange,
    KeyDelta,
    PairedDifference,
    PassFail,
    RepeatedTrials,
    Significance,
    Trials,
    compare_runs,
):
    _public.__module__ = __name__  # they report where users import them from
del _public
