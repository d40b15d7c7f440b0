"""Where the judge's verdicts become scores: :func:`apply_verdicts` fills every pending rubric
key (flat keys of an item, or leaves of a ``nested=True`` document) and gathers the reasoning
that ``use_reasoning`` shows; for a document it also turns each path's occurrences into one
score (``list_aggregator`` over them when the path lies inside a list).

>>> from matchevals.json_match._core import prepare
>>> from matchevals.json_match._options import JsonMatchOptions
>>> evaluation = prepare({"a": 1}, {"a": 2}, JsonMatchOptions())
>>> apply_verdicts(evaluation, {}), evaluation.items[0].scores
({}, {'a': 0})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from matchevals._differences import Kind
from matchevals.json_match._evaluation import Evaluation, Leaves
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._types import Difference, JudgeVerdict, Score

__all__ = ["apply_verdicts"]


def apply_verdicts(
    evaluation: Evaluation, verdicts: Mapping[str, JudgeVerdict]
) -> dict[str, list[str]]:
    """Fill in the judge's verdicts; return the reasonings to show, by key."""
    options = evaluation.options
    reasonings: dict[str, list[str]] = {}
    for item in evaluation.items:
        if item.leaves is not None:
            item.scores = _resolve_leaves(item.leaves, verdicts, reasonings, options)
            continue
        for key, request in item.pending.items():
            verdict = verdicts[request]
            item.scores[key] = verdict.score
            if verdict.error is not None:
                item.judge_errors = item.judge_errors or {}
                item.judge_errors[key] = verdict.error
                continue
            if verdict.reasoning and options.use_reasoning:
                reasonings.setdefault(key, []).append(verdict.reasoning)
            if not verdict.score:
                item.judge_reasons = item.judge_reasons or {}
                item.judge_reasons[key] = verdict.reasoning
    return reasonings


def _resolve_leaves(
    leaves: Leaves,
    verdicts: Mapping[str, JudgeVerdict],
    reasonings: dict[str, list[str]],
    options: JsonMatchOptions,
) -> dict[str, Score | None]:
    """Fill in the judge's verdicts; return the document's score per path (``list_aggregator``
    over a path's occurrences when it lies inside a list)."""
    for occurrences, index, request, at in leaves.pending:
        verdict = verdicts[request.request_id]
        occurrences[index] = verdict.score
        path = request.key
        reason: str | None
        if verdict.error is not None:
            kind, reason = Kind.JUDGE_ERROR, verdict.error
        elif verdict.score:
            if verdict.reasoning and options.use_reasoning:
                reasonings.setdefault(path, []).append(verdict.reasoning)
            continue
        else:
            kind, reason = Kind.JUDGED, verdict.reasoning
        leaves.differences.append(
            Difference(
                path,
                kind,
                request.reference_value,
                request.output_value,
                verdict.score,
                at[0] if at else None,
                at[1] if at else None,
                reason,
            )
        )
    leaves.pending.clear()
    # Sorted by path (stably: items keep their order), as keys are for plain objects.
    leaves.differences.sort(key=_difference_path)
    leaves.forget_index()
    average = options.list_aggregator == "average"
    scores: dict[str, Score | None] = {}
    for path, occurrences in leaves.occurrences.items():
        values: list[Any] = occurrences
        if path not in leaves.listed and len(values) == 1:
            scores[path] = values[0]
        elif average:
            scores[path] = math.fsum(values) / len(values)
        else:
            scores[path] = int(min(values) == 1)
    return scores


def _difference_path(difference: Difference) -> str:
    return difference.path or ""
