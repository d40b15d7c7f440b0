"""Scores combined into results: one per key (``aggregator=None``) or one for all keys.

- Objects: one score per key (``nested=True``: per leaf path); ``aggregator`` combines them
  (mean, or 1 only when all are 1); with ``aggregator=None`` there is one result per key.
- Lists of objects: each counted item gets the aggregator's score over its keys (an unmatched
  item 0), and ``list_aggregator`` combines the items; with ``aggregator=None`` each key's
  result is ``list_aggregator`` over its scores in every counted item.
- ``nested=True`` lists: a path's occurrences in every counted item are combined the same way.

A result below 1 carries its explanation (see :mod:`._explanation`).

>>> combine([1, 0, 1], "average"), combine([1, 0, 1], "all"), combine([], "all")
(0.6666666666666666, 0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from matchevals._types import EvaluatorResult
from matchevals.json_match._evaluation import Evaluation, ItemScores, sorted_by_key
from matchevals.json_match._explanation import explain_key, listed_metadata, metadata
from matchevals.json_match._types import KEY_PREFIX, UNMATCHED_ITEM_KEY, Score

__all__ = ["combine", "item_score", "results"]


def combine(scores: Sequence[Any], how: str | None) -> Score:
    """``"average"``: the mean; ``"all"``: 1 when every score is 1, else 0. Nothing to combine
    scores 1 (1.0 for the mean)."""
    if how == "all":
        return int(min(scores, default=1) == 1)
    return math.fsum(scores) / len(scores) if scores else 1.0


def item_score(item: ItemScores, how: str | None) -> float:
    """The aggregator's score of one counted list item (0 without a partner)."""
    if item.unmatched:
        return 0.0
    return float(combine(list(item.scores.values()), how))


def results(evaluation: Evaluation, reasonings: dict[str, list[str]]) -> list[EvaluatorResult]:
    """The results of an evaluation whose judge verdicts are all in."""
    pairs = [[o, r] for o, r in evaluation.pairs] if evaluation.pairs is not None else None
    if evaluation.options.aggregator is None:
        if evaluation.is_list:
            return _list_results(evaluation, reasonings, pairs)
        return _object_results(evaluation, reasonings)
    return [_aggregated_result(evaluation, pairs)]


def _object_results(
    evaluation: Evaluation, reasonings: dict[str, list[str]]
) -> list[EvaluatorResult]:
    (item,) = evaluation.items
    none_is_missing = evaluation.options.none_is_missing
    leaves = item.leaves
    walk_alignments = leaves.alignments if leaves is not None and leaves.alignments else None
    found: list[EvaluatorResult] = []
    final_scores = cast(dict[str, Score], item.scores)
    for key, score in sorted_by_key(final_scores.items(), evaluation):
        comment: str | None = None
        key_metadata: dict[str, Any] | None = None
        if score != 1:
            if leaves is not None:  # a nested document: its differences at this path
                comment, key_metadata = listed_metadata(leaves.differences_at(key), walk_alignments)
            else:
                comment, key_metadata = explain_key(item, key, none_is_missing)
        elif key in reasonings:
            comment = " ".join(reasonings[key])
        found.append(
            {"key": f"{KEY_PREFIX}{key}", "score": score, "comment": comment,
             "metadata": key_metadata}
        )  # fmt: skip
    return found


def _list_results(
    evaluation: Evaluation,
    reasonings: dict[str, list[str]],
    pairs: list[list[int | None]] | None,
) -> list[EvaluatorResult]:
    by_key: dict[str, list[Score]] = {}
    for item in evaluation.items:
        if item.unmatched and not item.scores:
            by_key.setdefault(UNMATCHED_ITEM_KEY, []).append(0)
        if item.leaves is not None and not item.unmatched:
            for key, occurrences in item.leaves.occurrences.items():
                by_key.setdefault(key, []).extend(cast(list[Score], occurrences))
            continue
        for key, item_key_score in cast(dict[str, Score], item.scores).items():
            by_key.setdefault(key, []).append(item_key_score)
    shared = {"alignment": pairs}
    how = evaluation.options.list_aggregator
    found: list[EvaluatorResult] = []
    for key in sorted_by_key(by_key, evaluation):
        key_score = combine(by_key[key], how)
        key_comment: str | None = None
        key_metadata: dict[str, Any] = shared
        if key_score != 1:
            key_comment, key_metadata = metadata(evaluation, pairs, key)
        if key in reasonings:
            key_comment = " ".join(reasonings[key]) if key_comment is None else key_comment
        found.append(
            {"key": f"{KEY_PREFIX}{key}", "score": key_score, "comment": key_comment,
             "metadata": key_metadata}
        )  # fmt: skip
    return found


def _aggregated_result(
    evaluation: Evaluation, pairs: list[list[int | None]] | None
) -> EvaluatorResult:
    options = evaluation.options
    if evaluation.is_list:
        scores: list[Any] = [item_score(item, options.aggregator) for item in evaluation.items]
        score = combine(scores, options.list_aggregator)
    else:
        score = combine(list(evaluation.items[0].scores.values()), options.aggregator)
    key = f"{KEY_PREFIX}{options.aggregator}"
    if score == 1:
        found = {"alignment": pairs} if pairs is not None else None
        return {"key": key, "score": score, "comment": None, "metadata": found}
    comment, full = metadata(evaluation, pairs, None)
    return {"key": key, "score": score, "comment": comment, "metadata": full}
