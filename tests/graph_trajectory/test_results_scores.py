"""A results evaluator's scores are bools or numbers in [0, 1]; anything else is refused."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
)

PAIR = {"steps": [["a"]], "results": {"x": 1}}


def answering(score: Any) -> Any:
    def results_evaluator(**kwargs: Any) -> dict[str, Any]:
        return {"key": "results", "score": score}

    return results_evaluator


@pytest.mark.parametrize("score", [2, -0.5, float("nan"), float("inf")])
async def test_a_score_outside_0_1_is_a_value_error_naming_the_run(score: float) -> None:
    sync = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=answering(score)
    )
    asynchronous = create_async_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=answering(score)
    )
    message = rf"^results_evaluator returned the score {score!r} for run 0; scores are numbers"
    with pytest.raises(ValueError, match=message):
        sync(outputs=PAIR, reference_outputs=PAIR)
    with pytest.raises(ValueError, match=message):
        await asynchronous(outputs=PAIR, reference_outputs=PAIR)


@pytest.mark.parametrize(("score", "passed"), [(1, True), (True, True), (0.5, False), (0, False)])
def test_scores_in_range_are_read(score: Any, passed: bool) -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=answering(score)
    )
    assert evaluator(outputs=PAIR, reference_outputs=PAIR)["score"] is passed
