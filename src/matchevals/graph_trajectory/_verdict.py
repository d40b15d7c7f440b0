"""The verdict on all runs: one ``EvaluatorResult`` with a score, a one-sentence comment and
metadata (:func:`score_runs`).

Scores over several runs: strict is ``True`` only when every run matches; partial credit is the
mean of the runs' scores. With results compared, a run's results count as one more aligned item
in its partial score: 1 when they pass, else their score (0 for unequal results); the alignment
is the best for that score, not for the steps alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from matchevals._patterns import either, names
from matchevals._types import EvaluatorResult
from matchevals._values import counted
from matchevals.graph_trajectory._match import Divergence, RunMatch, match_run
from matchevals.graph_trajectory._partial import partial_credit
from matchevals.graph_trajectory._reference import Pair, Step

__all__ = ["KEY", "ResultsCheck", "score_runs"]

KEY = "graph_trajectory_match"
_BELOW_ONE = math.nextafter(1.0, 0.0)


@dataclass(slots=True)
class ResultsCheck:
    """How a run's ``results`` compared with the reference's."""

    passed: bool
    score: float
    comment: str | None = None
    mismatches: list[dict[str, Any]] | None = None
    """json_match's mismatch entries for what differs (None when nothing explains it)."""


def score_runs(
    pairs: Sequence[Pair],
    checks: Sequence[ResultsCheck] | None,
    *,
    partial: bool,
    threshold: float | None,
    fast: bool = True,
) -> EvaluatorResult:
    """One result for all runs (``checks`` is None when results are not compared; ``fast=False``
    takes the general paths only)."""
    runs: list[dict[str, Any]] = []
    scores: list[float] = []
    comment: str | None = None
    for pair in pairs:
        check = None if checks is None else checks[pair.index]
        verdict = match_run(pair.steps, pair.reference, pair.same, fast=fast)
        matched = verdict.matched and (check is None or check.passed)
        run_meta = _run_metadata(pair, verdict, check, matched)
        if partial:
            run_score = 1.0
            if not matched:
                alignment = partial_credit(
                    pair.steps, pair.reference, results=_results_item(check), fast=fast
                )
                run_score = min(alignment.score, _BELOW_ONE)
                run_meta["partial_alignment"] = alignment.pairs
            run_meta["score"] = run_score
            scores.append(run_score)
        runs.append(run_meta)
        if comment is None and not matched:
            comment = _comment(pair, verdict, check)
    all_matched = comment is None
    if comment is None:
        comment = (
            "the run matched its reference"
            if len(pairs) == 1
            else f"all {len(pairs)} runs matched their references"
        )
    metadata: dict[str, Any] = {"runs": runs}
    score: float | bool = all_matched
    if partial:
        score = math.fsum(scores) / len(scores)
        if not all_matched:
            score = min(score, _BELOW_ONE)
        if threshold is not None:
            metadata["threshold"] = threshold
            metadata["pass"] = score >= threshold
    return cast(
        EvaluatorResult, {"key": KEY, "score": score, "comment": comment, "metadata": metadata}
    )


def _results_item(check: ResultsCheck | None) -> float | None:
    """The results as one more aligned item: 1 when they pass, else their score below 1."""
    if check is None:
        return None
    return 1.0 if check.passed else max(0.0, min(check.score, _BELOW_ONE))


def _run_metadata(
    pair: Pair, verdict: RunMatch, check: ResultsCheck | None, matched: bool
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "run": pair.index,
        "match": matched,
        "steps_match": verdict.matched,
        "supersteps": len(pair.steps),
        "expected_supersteps": {"min": verdict.expected_min, "max": verdict.expected_max},
        "verdicts": verdict.verdicts,
        "divergence": None if verdict.divergence is None else _divergence(verdict.divergence),
    }
    if verdict.alignment is not None:
        meta["alignment"] = verdict.alignment
    if check is not None:
        meta["results"] = {"match": check.passed, "score": check.score, "comment": check.comment}
        if check.mismatches is not None:
            meta["results"]["mismatches"] = check.mismatches
    return meta


def _divergence(divergence: Divergence) -> dict[str, Any]:
    return {
        "superstep": divergence.superstep,
        "expected": [
            {"steps": list(step.nodes), "match_mode": step.mode, "reference": step.path}
            for step in divergence.expected
        ],
        "actual": None if divergence.actual is None else list(divergence.actual),
        "missing": divergence.missing,
        "extra": divergence.extra,
    }


def _were(count: int) -> str:
    return "1 was" if count == 1 else f"{count} were"


def _nodes(nodes: Sequence[str] | None) -> str:
    return "[" + names(nodes or ()) + "]"


def _steps(steps: Sequence[Step]) -> str:
    """``[a] (unordered, p1 or p2) or [b] (exact, p3)``: alternatives grouped by content."""
    groups: dict[tuple[tuple[str, ...], str], list[str]] = {}
    for step in steps:
        groups.setdefault((tuple(step.nodes), step.mode), []).append(step.path)
    return either(
        [f"{_nodes(nodes)} ({mode}, {either(paths)})" for (nodes, mode), paths in groups.items()]
    )


def _comment(pair: Pair, verdict: RunMatch, check: ResultsCheck | None) -> str:
    run = f"run {pair.index}"
    divergence = verdict.divergence
    if divergence is None:
        assert check is not None
        detail = check.comment or "its results differ from the reference results"
        return f"{run} matched its reference steps but {detail}"
    count = len(pair.steps)
    had = counted(count, "superstep")
    low, high = verdict.expected_min, verdict.expected_max
    pattern = verdict.alignment is not None
    where = f"superstep {divergence.superstep}"
    if divergence.actual is None:
        expected = _steps(divergence.expected)
        if pattern:
            return (
                f"{run} ended after {had}, before the reference pattern was "
                f"complete: {where} should have been {expected}"
            )
        return f"{run} had {had} where {_were(low)} expected; {where} should have been {expected}"
    actual = _nodes(divergence.actual)
    if not divergence.expected:
        if high is None:
            return f"{run} went past the end of the reference pattern: {where} {actual} is extra"
        limit = f"at most {_were(high)}" if pattern else _were(high)
        return f"{run} had {had} where {limit} expected; {where} {actual} is extra"
    step = divergence.expected[0]
    if len({(tuple(s.nodes), s.mode) for s in divergence.expected}) > 1:
        expected = _steps(divergence.expected)
        return f"{run} left the reference pattern at {where}: expected {expected}, got {actual}"
    paths = either([s.path for s in divergence.expected])
    lead = f"{run} left the reference pattern at {where}" if pattern else f"{run}, {where}"
    sentence = f"{lead} ({step.mode}, {paths}): expected {_nodes(step.nodes)}, got {actual}"
    if divergence.missing or divergence.extra:
        parts = []
        if divergence.missing:
            parts.append("missing " + names(divergence.missing))
        if divergence.extra:
            parts.append("extra " + names(divergence.extra))
        sentence += "; " + "; ".join(parts)
    elif step.mode == "exact":
        sentence += "; same nodes in a different order"
    if not pattern and count != low:
        sentence += f"; the run also had {had} where {_were(low)} expected"
    return sentence
