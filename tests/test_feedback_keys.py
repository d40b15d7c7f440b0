"""Feedback keys LangSmith can chart: a graded score never shares a key with a boolean one, and
every factory takes ``feedback_key=`` (for json_match, the prefix of its keys).

The real ``langsmith.evaluate`` runs offline with evaluators that differ only in how they score;
the keys it records are checked.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from typing import Any
from uuid import uuid4

import pytest
from langsmith import evaluate
from langsmith.schemas import Example

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.langsmith_offline import offline_client


def call(name: str) -> dict[str, Any]:
    return {"role": "ai", "tool_calls": [{"name": name, "args": {}}]}


CASES = {
    "all tools": ([call("a"), call("b")], [call("a"), call("b")]),
    "one tool missing": ([call("a")], [call("a"), call("b")]),
}


def examples() -> list[Example]:
    return [
        Example(
            id=uuid4(),
            inputs={"case": case},
            outputs={"messages": reference},
            dataset_id=uuid4(),
            created_at=datetime.now(timezone.utc),
        )
        for case, (_, reference) in CASES.items()
    ]


def target(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"messages": CASES[inputs["case"]][0]}


def recorded(evaluators: list[Any]) -> dict[str, dict[str, Any]]:
    results = evaluate(
        target, data=examples(), evaluators=evaluators, upload_results=False,
        client=offline_client(),
    )  # fmt: skip
    found: dict[str, dict[str, Any]] = {}
    for row in results:
        for result in row["evaluation_results"]["results"]:
            found.setdefault(result.key, {})[row["example"].inputs["case"]] = result.score
    return found


def test_langsmith_records_a_boolean_and_a_graded_score_under_different_keys() -> None:
    found = recorded(
        [
            create_trajectory_match_evaluator(trajectory_match_mode="superset"),
            create_trajectory_match_evaluator(trajectory_match_mode="superset", score="recall"),
        ]
    )
    assert found == {
        "trajectory_superset_match": {"all tools": True, "one tool missing": False},
        "trajectory_superset_match_recall": {"all tools": 1.0, "one tool missing": 0.5},
    }


def test_langsmith_records_the_chosen_keys() -> None:
    found = recorded(
        [
            create_trajectory_match_evaluator(feedback_key="tools_in_order"),
            create_trajectory_match_evaluator(
                trajectory_match_mode="unordered", score="f1", feedback_key="tools_f1"
            ),
        ]
    )
    assert set(found) == {"tools_in_order", "tools_f1"}
    assert found["tools_f1"]["one tool missing"] == pytest.approx(2 / 3)


def test_every_graded_default_key_differs_from_its_boolean_one() -> None:
    steps = {"steps": [["a"], ["b"]]}
    graph = create_graph_trajectory_match_evaluator(partial_credit=True)
    assert graph(outputs=steps, reference_outputs=steps)["key"] == "graph_trajectory_match_partial"
    assert (
        create_graph_trajectory_match_evaluator()(outputs=steps, reference_outputs=steps)["key"]
        == "graph_trajectory_match"
    )
    for score in ("precision", "recall", "f1"):
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode="unordered", score=score
        )
        assert (
            evaluator(outputs=[], reference_outputs=[])["key"]
            == f"trajectory_unordered_match_{score}"
        )
    for partial, key in ((False, "trajectory_pattern_match"), (True, "trajectory_pattern_match_partial")):  # fmt: skip # noqa: E501
        pattern = create_trajectory_match_evaluator(
            trajectory_match_mode="pattern", partial_credit=partial
        )
        assert pattern(outputs=[], reference_outputs={"turns": []})["key"] == key


def test_every_factory_takes_feedback_key() -> None:
    invoice = create_json_match_evaluator(feedback_key="invoice")
    assert [r["key"] for r in invoice(outputs={"total": 1}, reference_outputs={"total": 1})] == [
        "invoice:total"
    ]
    average = create_json_match_evaluator(aggregator="average", feedback_key="invoice")
    assert (
        average(outputs={"total": 1}, reference_outputs={"total": 2})[0]["key"] == "invoice:average"
    )
    rubric_free = asyncio.run(
        create_async_json_match_evaluator(feedback_key="invoice")(
            outputs={"a": 1}, reference_outputs={"a": 1}
        )
    )
    assert rubric_free[0]["key"] == "invoice:a"
    steps = {"steps": [["a"]]}
    graph = create_async_graph_trajectory_match_evaluator(partial_credit=True, feedback_key="plan")
    assert asyncio.run(graph(outputs=steps, reference_outputs=steps))["key"] == "plan"
    rules = create_graph_trajectory_rules_evaluator(
        forbidden=["x"], max_supersteps=3, feedback_key="safety"
    )
    assert [r["key"] for r in rules(outputs=steps)] == ["safety_forbidden", "safety_max_supersteps"]
    async_rules = create_async_graph_trajectory_rules_evaluator(
        forbidden=["x"], feedback_key="safety"
    )
    assert asyncio.run(async_rules(outputs=steps))[0]["key"] == "safety_forbidden"
    trajectory = create_async_trajectory_match_evaluator(feedback_key="tools")
    assert asyncio.run(trajectory(outputs=[], reference_outputs=[]))["key"] == "tools"


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [(3, TypeError, "feedback_key must be a str"), ("", ValueError, "non-empty"),
     (" x", ValueError, "surrounding spaces")],
)  # fmt: skip
def test_a_bad_feedback_key_is_refused_when_the_evaluator_is_built(
    bad: Any, error: type[Exception], message: str
) -> None:
    for factory, options in (
        (create_json_match_evaluator, {}),
        (create_trajectory_match_evaluator, {}),
        (create_graph_trajectory_match_evaluator, {}),
        (create_graph_trajectory_rules_evaluator, {"forbidden": ["x"]}),
    ):
        with pytest.raises(error, match=message):
            factory(feedback_key=bad, **options)
