"""Google ADK eval sets and eval results, built from ADK's documented JSON shapes (google-adk
itself pulls in Google Cloud clients; its pydantic models define these fields)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.traces import ADK_MATCH_TYPES, read_adk_eval
from matchevals.trajectory import create_trajectory_match_evaluator


def _invocation(calls_per_event: list[list[dict]], *, camel: bool = False) -> dict:
    events = [{"author": "agent", "content": {"role": "model", "parts": [
        {"functionCall" if camel else "function_call": call} for call in calls]}} for calls in calls_per_event]  # fmt: skip # noqa: E501
    key = "invocationEvents" if camel else "invocation_events"
    return {"invocation_id": "i1", "user_content": {"role": "user", "parts": [{"text": "Weather?"}]},  # noqa: E501
            "intermediate_data": {key: events},
            "final_response": {"role": "model", "parts": [{"text": "Sunny."}]}}  # fmt: skip


SF = {"id": "a1", "name": "get_weather", "args": {"city": "SF"}}
LA = {"id": "a2", "name": "get_weather", "args": {"city": "LA"}}


def test_eval_results_pair_actual_and_expected_per_invocation(tmp_path: Path) -> None:
    result = {"eval_set_result_id": "r", "eval_case_results": [{"eval_id": "case1", "eval_metric_result_per_invocation": [  # noqa: E501
        {"actual_invocation": _invocation([[SF, LA]], camel=True),
         "expected_invocation": {"invocation_id": "i1", "user_content": {"parts": [{"text": "Weather?"}]},  # noqa: E501
                                 "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "LA"}}]}}}]}]}  # fmt: skip # noqa: E501
    path = tmp_path / "weather.evalset_result.json"
    path.write_text(json.dumps(result))
    (invocation,) = read_adk_eval(path)
    assert invocation["eval_id"] == "case1"
    outputs = invocation["outputs"]
    assert outputs is not None
    assert [m["role"] for m in outputs] == ["user", "assistant", "tool", "tool", "assistant"]
    assert len(outputs[1]["tool_calls"]) == 2  # one event's calls are one turn
    any_order = create_trajectory_match_evaluator(trajectory_match_mode=ADK_MATCH_TYPES["ANY_ORDER"])  # fmt: skip # noqa: E501
    exact = create_trajectory_match_evaluator(trajectory_match_mode=ADK_MATCH_TYPES["EXACT"])
    assert any_order(outputs=outputs, reference_outputs=invocation["reference_outputs"])["score"] is True  # fmt: skip # noqa: E501
    assert exact(outputs=outputs, reference_outputs=invocation["reference_outputs"])["score"] is False  # fmt: skip # noqa: E501


def test_eval_sets_give_references_and_refuse_what_is_not_a_trajectory() -> None:
    evalset = {"eval_set_id": "s", "eval_cases": [{"eval_id": "e", "conversation": [_invocation([[SF], [LA]])]}]}  # fmt: skip # noqa: E501
    (invocation,) = read_adk_eval(evalset)
    assert invocation["outputs"] is None
    assert [m["role"] for m in invocation["reference_outputs"]] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]  # fmt: skip # noqa: E501
    with pytest.raises(ValueError, match="conversation scenario"):
        read_adk_eval({"eval_set_id": "s", "eval_cases": [{"eval_id": "e", "conversation_scenario": {}}]})  # fmt: skip # noqa: E501
    with pytest.raises(ValueError, match=r"tool_uses\[0\] is a function call without a name"):
        read_adk_eval({"eval_set_id": "s", "eval_cases": [{"eval_id": "e", "conversation": [
            {"user_content": {"parts": []}, "intermediate_data": {"tool_uses": [{"args": {}}]}}]}]})  # fmt: skip # noqa: E501
    with pytest.raises(ValueError, match="expected an ADK eval set"):
        read_adk_eval({"something": 1})
    assert ADK_MATCH_TYPES["IN_ORDER"] == "in_order"


def test_in_order_scores_as_adk_on_flat_tool_uses() -> None:
    """Each call of a flat ``tool_uses`` is its own turn: the expected calls must come in
    their order, other calls allowed between them."""

    def invocation(*cities: str) -> dict[str, Any]:
        uses = [{"name": "get_weather", "args": {"city": city}} for city in cities]
        return {"invocation_id": "i", "user_content": {"parts": [{"text": "?"}]},
                "intermediate_data": {"tool_uses": uses}}  # fmt: skip

    def score(actual: dict[str, Any], expected: dict[str, Any]) -> Any:
        result = {"eval_set_result_id": "r", "eval_case_results": [{"eval_id": "e",
                  "eval_metric_result_per_invocation": [{"actual_invocation": actual,
                                                         "expected_invocation": expected}]}]}  # fmt: skip # noqa: E501
        (case,) = read_adk_eval(result)
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode=ADK_MATCH_TYPES["IN_ORDER"])  # fmt: skip # noqa: E501
        return evaluator(outputs=case["outputs"], reference_outputs=case["reference_outputs"])["score"]  # fmt: skip # noqa: E501

    assert score(invocation("SF", "NY", "LA"), invocation("SF", "LA")) is True
    assert score(invocation("LA", "SF"), invocation("SF", "LA")) is False
    assert score(invocation("SF"), invocation("SF", "LA")) is False
