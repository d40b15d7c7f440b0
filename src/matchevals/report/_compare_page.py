"""The HTML page of a comparison of two runs: one self-contained file (the report's page
machinery, drawn by ``compare.js``), regressions first, each with both runs' details side by
side: results, differences located in the values, superstep swimlanes.

Every number is written here, as the table and Markdown write it, so the page shows the same
text. Each change's details come from its lowest-scoring trial in each run; values are embedded
while the page's budget lasts, the biggest changes first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from matchevals.report._compare_text import delta_text, headline
from matchevals.report._examples import ReportExample
from matchevals.report._html import render_page
from matchevals.report._model import VALUES_BUDGET, detail_within
from matchevals.report._stats import is_superstep, score_text

if TYPE_CHECKING:  # the comparison's own modules import this package's: types only
    from matchevals.compare import Comparison, ExampleChange

__all__ = ["comparison_page"]


def _side(examples: Sequence[Any], budget: int) -> tuple[dict[str, Any] | None, int]:
    """One run's side of a change: its lowest-scoring trial's details, and every trial's score."""
    if not examples:
        return None, budget
    worst = min(examples, key=lambda example: example.score)
    if not isinstance(worst, ReportExample):  # a saved run's lighter record
        worst = worst.report_example()
    detail, budget = detail_within(worst, budget)
    detail["where"] = worst.where
    detail["trial_scores"] = [score_text(example.score) for example in examples]
    return detail, budget


def _change(change: ExampleChange, budget: int) -> tuple[dict[str, Any], int]:
    entry = change.as_dict()
    entry["id_text"] = change.id if isinstance(change.id, str) else repr(change.id)
    entry["texts"] = {
        "base": score_text(change.base_score),
        "new": score_text(change.new_score),
        "delta": delta_text(change.delta),
    }
    entry["base"], budget = _side(change.base_examples, budget)
    entry["new"], budget = _side(change.new_examples, budget)
    return entry, budget


def _texts(comparison: Comparison) -> dict[str, str]:
    difference, found = comparison.difference, comparison.pass_fail
    interval = (
        f"95% CI [{delta_text(difference.low)}, {delta_text(difference.high)}]"
        if difference.low is not None
        else "no interval"
    )
    return {
        "headline": headline(comparison),
        "base_mean": score_text(comparison.base_mean),
        "new_mean": score_text(comparison.new_mean),
        "difference": delta_text(difference.mean),
        "interval": f"{interval} ({difference.method})",
        "base_pass_rate": score_text(found.base_pass_rate),
        "new_pass_rate": score_text(found.new_pass_rate),
        "mcnemar": f"{found.p_value:.3g}",
        "threshold": f"{found.threshold:g}",
    }


def comparison_page(
    comparison: Comparison,
    *,
    title: str | None = None,
    verdict: tuple[bool, list[str]] | None = None,
) -> str:
    """The page of ``comparison``; ``verdict`` adds the gates' (passed, reasons)."""
    budget = VALUES_BUDGET
    changes = []
    for change in (*comparison.regressions, *comparison.improvements):
        entry, budget = _change(change, budget)
        changes.append(entry)
    document = comparison.as_dict()
    for name in ("regressions", "improvements"):
        del document[name]
    document["summary"] = {
        "title": title or "matchevals compare",
        "passed": None if verdict is None else verdict[0],
        "failed_because": [] if verdict is None else verdict[1],
        "worse": comparison.significance.worse,
        "better": comparison.significance.better,
        "texts": _texts(comparison),
    }
    document["format"] = "matchevals-compare/1"
    document["changes"] = changes
    for row in document["per_key"]:
        row["texts"] = [score_text(row["base_mean"]), score_text(row["new_mean"]),
                        delta_text(row["delta"])]  # fmt: skip
        row["superstep"] = is_superstep(row["key"])
    for side in ("base", "new"):
        trials = document["repeated"][side]
        if trials is not None:
            for name in ("pass_at_k", "pass_hat_k"):
                trials[name] = {k: score_text(v) for k, v in trials[name].items()}
    return render_page(document, script="compare.js")
