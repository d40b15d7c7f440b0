"""The evaluators inside the real ``langsmith.evaluate`` / ``aevaluate``, run offline."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any
from uuid import uuid4

import pytest
from langsmith import aevaluate, evaluate
from langsmith.schemas import Example

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from tests.langsmith_offline import (
    langsmith_test_case,
    offline_aevaluate,
    offline_client,
    run_traced,
)

RUNS = {
    "loop twice": [["agent"], ["tools"], ["agent"], ["tools"], ["agent"]],
    "fan out": [["plan"], ["worker", "worker"], ["reduce"]],
}
REFERENCES = {
    "loop twice": {
        "inputs": None,
        "results": None,
        "steps": [Repeat([["agent"], ["tools"]], min=1), ["agent"]],
    },
    "fan out": {
        "inputs": None,
        "results": None,
        "steps": [["plan"], ReferenceStep(["worker"] * 3), ["reduce"]],
    },
}


def examples() -> list[Example]:
    return [
        Example(
            id=uuid4(),
            inputs={"case": case},
            outputs=REFERENCES[case],
            dataset_id=uuid4(),
            created_at=datetime.now(timezone.utc),
        )
        for case in RUNS
    ]


def target(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"inputs": inputs, "results": None, "steps": RUNS[inputs["case"]]}


async def atarget(inputs: dict[str, Any]) -> dict[str, Any]:
    return target(inputs)


def feedback(results: Any) -> dict[tuple[str, str], Any]:
    """(case, key) -> EvaluationResult for every row of an experiment."""
    found = {}
    for row in results:
        case = row["example"].inputs["case"]
        for result in row["evaluation_results"]["results"]:
            found[(case, result.key)] = result
    return found


def test_evaluators_inside_langsmith_evaluate() -> None:
    results = evaluate(
        target,
        data=examples(),
        evaluators=[
            graph_trajectory_match,
            create_graph_trajectory_rules_evaluator(max_visits={"agent": 3}),
        ],
        upload_results=False,
        client=offline_client(),
    )
    found = feedback(results)
    assert found[("loop twice", "graph_trajectory_match")].score is True
    assert found[("fan out", "graph_trajectory_match")].score is False
    assert found[("fan out", "graph_trajectory_match")].comment == (
        "run 0, superstep 1 (unordered, reference_outputs.steps[1]): "
        "expected [worker, worker, worker], got [worker, worker]; missing worker"
    )
    assert found[("loop twice", "graph_trajectory_max_visits")].score is True


def test_partial_credit_inside_langsmith_evaluate() -> None:
    results = evaluate(
        target,
        data=examples(),
        evaluators=[create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.9)],
        upload_results=False,
        client=offline_client(),
    )
    found = feedback(results)
    assert found[("loop twice", "graph_trajectory_match_partial")].score == 1.0
    assert abs(found[("fan out", "graph_trajectory_match_partial")].score - 8 / 9) < 1e-9


@offline_aevaluate
async def test_async_evaluators_inside_langsmith_aevaluate() -> None:
    results = await aevaluate(
        atarget,
        data=examples(),
        evaluators=[
            create_async_graph_trajectory_match_evaluator(partial_credit=True),
            graph_trajectory_match_async,
            create_async_graph_trajectory_rules_evaluator(forbidden=["tools"]),
        ],
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    found: dict[tuple[str, str], list[Any]] = {}
    async for row in results:
        case = row["example"].inputs["case"]
        for result in row["evaluation_results"]["results"]:
            found.setdefault((case, result.key), []).append(result.score)
    # the graded score has a key of its own: no key mixes booleans and fractions
    assert found[("loop twice", "graph_trajectory_match")] == [True]
    assert found[("loop twice", "graph_trajectory_match_partial")] == [1.0]
    assert found[("fan out", "graph_trajectory_match")] == [False]
    (fan_out,) = found[("fan out", "graph_trajectory_match_partial")]
    assert abs(fan_out - 8 / 9) < 1e-9
    assert found[("loop twice", "graph_trajectory_forbidden")] == [False]
    assert found[("fan out", "graph_trajectory_forbidden")] == [True]


def test_inside_a_trace_the_evaluators_are_traced_runs_named_after_their_key() -> None:
    outputs = target({"case": "fan out"})
    reference = REFERENCES["fan out"]
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    rules = create_graph_trajectory_rules_evaluator(max_supersteps=2)
    parent = run_traced(
        lambda: (
            evaluator(outputs=outputs, reference_outputs=reference),
            rules(outputs=outputs),
        )
    )
    match_run, rules_run = parent.child_runs
    assert match_run.name == "graph_trajectory_match"
    assert match_run.outputs == evaluator(outputs=outputs, reference_outputs=reference)
    assert match_run.metadata["__ls_framework"] == "matchevals"
    assert rules_run.name == "graph_trajectory_rules"
    assert rules_run.outputs == {"output": rules(outputs=outputs)}


def test_in_a_langsmith_pytest_test_results_are_logged_as_feedback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with langsmith_test_case(monkeypatch) as received:
        result = graph_trajectory_match(
            outputs=target({"case": "fan out"}), reference_outputs=REFERENCES["fan out"]
        )
        rules = create_graph_trajectory_rules_evaluator(forbidden=["x"], max_supersteps=2)(
            outputs=target({"case": "fan out"})
        )
    assert received == [
        {"key": result["key"], "score": False, "comment": result["comment"]},
        {"key": "graph_trajectory_forbidden", "score": True, "comment": rules[0]["comment"]},
        {"key": "graph_trajectory_max_supersteps", "score": False, "comment": rules[1]["comment"]},
    ]
