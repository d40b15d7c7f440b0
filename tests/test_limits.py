"""Every evaluator shows the same number of differences: the limits live in matchevals._limits."""

from __future__ import annotations

import pytest

from matchevals import _limits
from matchevals.json_match import create_json_match_evaluator
from matchevals.trajectory import create_trajectory_match_evaluator


def _json_result(count: int) -> dict:
    outputs = {f"k{i:02}": i for i in range(count)}
    references = {f"k{i:02}": -i - 1 for i in range(count)}
    return create_json_match_evaluator(aggregator="all")(
        outputs=outputs, reference_outputs=references
    )[0]


def _trajectory_result(count: int) -> dict:
    def turn(sign: int) -> list[dict]:
        calls = [{"name": f"t{i:02}", "args": {"x": sign * (i + 1)}} for i in range(count)]
        return [
            {"role": "user", "content": "go"},
            {"role": "ai", "content": "", "tool_calls": calls},
        ]

    evaluate = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    return evaluate(outputs=turn(1), reference_outputs=turn(-1))  # type: ignore[return-value]


@pytest.mark.parametrize("result_of", [_json_result, _trajectory_result])
def test_comments_and_mismatches_stop_at_the_shared_limits(result_of: object) -> None:
    count = 30
    result = result_of(count)  # type: ignore[operator]
    clauses, omitted = _limits.MAX_COMMENT_CLAUSES, count - _limits.MAX_COMMENT_CLAUSES
    assert result["comment"].count(": expected ") == clauses
    assert result["comment"].endswith(f"… and {omitted} more")
    assert len(result["metadata"]["mismatches"]) == _limits.MAX_METADATA_MISMATCHES
    assert result["metadata"]["mismatches_omitted"] == count - _limits.MAX_METADATA_MISMATCHES
