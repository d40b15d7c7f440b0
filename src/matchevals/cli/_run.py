"""Scoring one example: the evaluator a command builds, and what one scored example holds.

>>> evaluator = build_evaluator("json", {"aggregator": "average"})
>>> scored = score_example(evaluator, 0, 0, "out.jsonl:1", {"a": 1}, {"a": 2})
>>> scored.score, scored.results[0]["comment"]
(0.0, 'a: expected 2, got 1')
>>> scored
Scored(index=0, id=0, where='out.jsonl:1', score=0.0, results=[...])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from matchevals.cli._read import Problem

__all__ = ["Kind", "Scored", "build_evaluator", "example_score", "score_example"]

Kind = Literal["json", "graph", "trajectory"]


class Scored:
    """One scored example: its score in [0, 1] and the evaluator's results.

    A plain slotted record (a frozen dataclass costs a few microseconds more to make, and
    one is made per example); it is never changed after it is made.
    """

    __slots__ = ("id", "index", "results", "score", "where")

    def __init__(
        self, index: int, id: Any, where: str, score: float, results: list[dict[str, Any]]
    ) -> None:
        self.index, self.id, self.where, self.score, self.results = index, id, where, score, results

    def __repr__(self) -> str:
        return (
            f"Scored(index={self.index!r}, id={self.id!r}, where={self.where!r}, "
            f"score={self.score!r}, results=[...])"
        )


def build_evaluator(kind: Kind, options: dict[str, Any]) -> Callable[..., Any]:
    """The evaluator a command scores with (raises the factory's ValueError/TypeError)."""
    if kind == "json":
        from matchevals.json_match import create_json_match_evaluator

        return create_json_match_evaluator(**options)
    if kind == "trajectory":
        from matchevals.cli._trajectory import trajectory_evaluator

        return trajectory_evaluator(options)
    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

    return create_graph_trajectory_match_evaluator(**options)


def example_score(results: list[dict[str, Any]]) -> float:
    """The mean of the results' scores (booleans count 0/1); nothing to score is 1."""
    if not results:
        return 1.0
    if len(results) == 1:
        return float(results[0]["score"])
    return math.fsum(float(result["score"]) for result in results) / len(results)


def score_example(
    evaluator: Callable[..., Any], index: int, ident: Any, where: str, outputs: Any, reference: Any
) -> Scored | Problem:
    """Example ``index`` (``ident``, read at ``where``) scored, or the problem the evaluator
    found with it."""
    try:
        answer = evaluator(outputs=outputs, reference_outputs=reference)
    except (TypeError, ValueError, KeyError) as error:
        return Problem(where, f"cannot score: {error}")
    results = [
        r if type(r) is dict else dict(r)
        for r in (answer if isinstance(answer, list) else [answer])
    ]
    return Scored(index, ident, where, example_score(results), results)
