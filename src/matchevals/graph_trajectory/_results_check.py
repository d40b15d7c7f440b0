"""How a run's ``results`` are compared with its reference's, and what the comment says.

Without a results evaluator, results must be JSON-equal; when they are not, json_match explains
the difference path by path (``results.answer: expected "Rome", got "Paris"``). With one, its
answer (any evaluator result, a list of them such as a json_match evaluator's, or
``{"results": [...]}``) is read as a score, and the explanations of its failing results are kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from matchevals._conversion import to_json
from matchevals._differences import Kind, sentence
from matchevals._values import json_equal
from matchevals.graph_trajectory._reference import Pair, describe
from matchevals.graph_trajectory._verdict import ResultsCheck

__all__ = ["UNEQUAL", "equal_results", "evaluator_results", "read_results_score"]

UNEQUAL = "its results differ from the reference results"
"""How the comment on unequal results begins (then json_match's account of what differs)."""


def equal_results(pair: Pair) -> ResultsCheck:
    """Results compared for JSON equality; a difference is explained by json_match.

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs(
    ...     {"steps": [["a"]], "results": {"answer": "Paris"}},
    ...     {"steps": [["a"]], "results": {"answer": "Rome"}},
    ... )[0]
    >>> equal_results(pair).comment
    'its results differ from the reference results: results.answer: expected "Rome", got "Paris"'
    """
    results = to_json(pair.results, f"{pair.path}.results")
    expected = to_json(pair.reference.results, f"{pair.reference.path}.results")
    try:
        if json_equal(results, expected):
            return ResultsCheck(True, 1.0)
        explanation, mismatches = _explain(results, expected)
    except RecursionError:
        raise ValueError(
            f"{pair.path}.results or its reference's results are nested too deeply (or contain "
            "themselves) to compare"
        ) from None
    return ResultsCheck(False, 0.0, f"{UNEQUAL}: {explanation}", mismatches)


def _explain(actual: Any, expected: Any) -> tuple[str, list[dict[str, Any]]]:
    """json_match's account of what differs, every leaf compared in order (as equality does),
    under the name ``results`` so that a scalar or a list is explained as well as an object."""
    from matchevals.json_match._core import score
    from matchevals.json_match._options import JsonMatchOptions

    options = JsonMatchOptions.build(
        aggregator="all",
        list_aggregator="all",
        rubric=None,
        exclude_keys=(),
        use_reasoning=True,
        list_match_mode="ordered",
        alignment="optimal",
        nested=True,
    )
    try:
        [result] = score(options, {"results": actual}, {"results": expected})
    except (TypeError, ValueError):  # not JSON that json_match reads (a custom object)
        return _plainly(actual, expected)
    comment, metadata = result.get("comment"), result.get("metadata") or {}
    if not isinstance(comment, str):  # equality and json_match disagree: say it plainly
        return _plainly(actual, expected)
    return comment, list(metadata.get("mismatches", []))


def _plainly(actual: Any, expected: Any) -> tuple[str, list[dict[str, Any]]]:
    return sentence(Kind.VALUE, expected, actual, "results"), []


def evaluator_results(pair: Pair, answer: object, threshold: float) -> ResultsCheck:
    """A results evaluator's answer, checked against ``threshold``.

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs({"steps": [["a"]]}, {"steps": [["a"]]})[0]
    >>> answer = [{"key": "q", "score": 0, "comment": "q: expected 1, got 2"}, {"score": 1}]
    >>> evaluator_results(pair, answer, 1.0).comment
    'its results scored 0.5 with results_evaluator, below the threshold 1: q: expected 1, got 2'
    """
    items = _answer_items(answer)
    score = read_results_score(items, pair.index)
    verdict = _one_verdict(items)
    if score >= threshold and (score > 0 or not verdict):
        return ResultsCheck(True, score)
    comment = (
        "its results scored False with results_evaluator"
        if verdict
        else f"its results scored {score:g} with results_evaluator, below the threshold "
        f"{threshold:g}"
    )
    failing = [item for item in items if _score_of(item, pair.index) < 1]
    explanations = [text for text in map(_comment_of, failing) if text]
    if explanations:
        comment = f"{comment}: {'; '.join(explanations)}"
    mismatches = [entry for item in failing for entry in _mismatches_of(item)]
    return ResultsCheck(False, score, comment, mismatches or None)


def _one_verdict(items: list[object]) -> bool:
    """Whether the answer is one boolean result: a verdict, which passes only when True (its
    False is not a 0 that a threshold of 0 lets through); several results are averaged."""
    if len(items) != 1:
        return False
    item = items[0]
    score = item.get("score") if isinstance(item, Mapping) else getattr(item, "score", None)
    return isinstance(score, bool)


def read_results_score(answer: object, run: int) -> float:
    """The score of a results evaluator's answer: a result (a dict, or an object with a
    ``score`` such as langsmith's ``EvaluationResult``), a list of them, or ``{"results": [...]}``;
    several scores are averaged.

    >>> read_results_score([{"key": "a", "score": True}, {"key": "b", "score": 0.5}], 0)
    0.75
    """
    scores = [_score_of(item, run) for item in _answer_items(answer)]
    if not scores:
        raise ValueError(f"results_evaluator returned no results for run {run}")
    return math.fsum(scores) / len(scores)


def _answer_items(answer: object) -> list[object]:
    if isinstance(answer, Mapping) and "results" in answer and "score" not in answer:
        answer = answer["results"]
    return list(answer) if isinstance(answer, list) else [answer]


def _score_of(item: object, run: int) -> float:
    if isinstance(item, Mapping) and "score" in item:
        score = item["score"]
    elif not isinstance(item, Mapping) and hasattr(item, "score"):
        score = item.score
    else:
        raise TypeError(
            f"results_evaluator returned {describe(item)} for run {run}; "
            "expected an evaluator result with a score"
        )
    if not isinstance(score, (bool, int, float)):
        raise TypeError(
            f"results_evaluator returned the score {score!r} for run {run}; "
            "expected a number in [0, 1] or a bool"
        )
    if not 0 <= score <= 1:  # NaN too
        raise ValueError(
            f"results_evaluator returned the score {score!r} for run {run}; "
            "scores are numbers in [0, 1] or bools"
        )
    return float(score)


def _comment_of(item: object) -> str | None:
    comment = item.get("comment") if isinstance(item, Mapping) else getattr(item, "comment", None)
    return comment if isinstance(comment, str) else None


def _mismatches_of(item: object) -> list[dict[str, Any]]:
    metadata = (
        item.get("metadata") if isinstance(item, Mapping) else getattr(item, "metadata", None)
    )
    entries = metadata.get("mismatches") if isinstance(metadata, Mapping) else None
    return [dict(entry) for entry in entries if isinstance(entry, Mapping)] if entries else []
