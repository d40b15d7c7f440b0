"""Reference-free rules: forbidden nodes, visit limits, superstep budget, ordering."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from tests.graph_trajectory.helpers import run


def by_key(results: list[Any]) -> dict[str, Any]:
    return {result["key"]: result for result in results}


def test_all_rules_pass() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(
        forbidden=["drop_db"],
        max_visits={"tools": 2},
        max_supersteps=5,
        before=[("plan", "act")],
    )
    results = evaluator(outputs=run(["plan"], ["act", "tools"], ["tools"], ["act"]))
    assert [(r["key"], r["score"]) for r in results] == [
        ("graph_trajectory_forbidden", True),
        ("graph_trajectory_max_visits", True),
        ("graph_trajectory_max_supersteps", True),
        ("graph_trajectory_before", True),
    ]
    assert by_key(results)["graph_trajectory_forbidden"]["comment"] == (
        "no forbidden node (drop_db) ran in the run"
    )
    assert by_key(results)["graph_trajectory_max_supersteps"]["comment"] == (
        "the run stayed within 5 supersteps"
    )


def test_each_rule_fails_with_a_comment() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(
        forbidden=["drop_db"],
        max_visits={"tools": 1},
        max_supersteps=3,
        before=[("plan", "act")],
    )
    outputs = run(["act"], ["plan", "tools"], ["tools", "drop_db"], ["act"])
    results = by_key(evaluator(outputs=outputs))
    assert all(result["score"] is False for result in results.values())
    assert results["graph_trajectory_forbidden"]["comment"] == (
        "run 0 ran the forbidden node drop_db in superstep 2"
    )
    assert results["graph_trajectory_max_visits"]["comment"] == (
        "run 0 ran tools more than its limit of 1 (visit 2 in superstep 2)"
    )
    assert results["graph_trajectory_max_supersteps"]["comment"] == (
        "run 0 had 4 supersteps, more than the budget of 3"
    )
    assert results["graph_trajectory_before"]["comment"] == (
        "run 0 ran act in superstep 0 but plan still ran in superstep 1 "
        "(every plan must run in an earlier superstep than any act)"
    )
    assert results["graph_trajectory_forbidden"]["metadata"] == {
        "runs": [
            {
                "run": 0,
                "pass": False,
                "violations": ["ran the forbidden node drop_db in superstep 2"],
            }
        ]
    }


def test_fan_out_counts_towards_visits() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(max_visits={"worker": 2})
    [result] = evaluator(outputs=run(["plan"], ["worker", "worker", "worker"]))
    assert result["score"] is False


def test_before_needs_strictly_earlier_supersteps() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(before=[("a", "b")])
    assert evaluator(outputs=run(["a", "b"]))[0]["score"] is False
    assert evaluator(outputs=run(["a"], ["b"], ["a"]))[0]["score"] is False
    assert evaluator(outputs=run(["a"], ["a"], ["b"]))[0]["score"] is True
    # vacuously true when either node never runs
    assert evaluator(outputs=run(["b"]))[0]["score"] is True
    assert evaluator(outputs=run(["a"]))[0]["score"] is True


def test_only_configured_rules_are_reported_and_several_runs_all_count() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(max_supersteps=1)
    [result] = evaluator(outputs=[run(["a"]), run(["a"], ["b"])])
    assert result["key"] == "graph_trajectory_max_supersteps"
    assert result["score"] is False
    assert result["comment"] == "run 1 had 2 supersteps, more than the budget of 1"
    assert [r["pass"] for r in result["metadata"]["runs"]] == [True, False]


async def test_async_rules_evaluator_equals_sync() -> None:
    options: dict[str, Any] = {"forbidden": ["x"], "max_visits": {"a": 1}, "before": [("a", "x")]}
    outputs = run(["a"], ["x", "a"])
    sync = create_graph_trajectory_rules_evaluator(**options)(outputs=outputs)
    asynchronous = await create_async_graph_trajectory_rules_evaluator(**options)(outputs=outputs)
    assert sync == asynchronous


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({}, ValueError, "no rule given"),
        ({"forbidden": "drop_db"}, TypeError, "forbidden is a str"),
        ({"forbidden": [1]}, TypeError, r"forbidden\[0\] is an int"),
        ({"max_visits": {"a": -1}}, ValueError, r"max_visits\['a'\] is -1"),
        ({"max_visits": {"a": 1.5}}, TypeError, r"max_visits\['a'\] is a float"),
        ({"max_visits": ["a"]}, TypeError, "max_visits is a list"),
        ({"max_supersteps": -1}, ValueError, "max_supersteps is -1"),
        ({"max_supersteps": True}, TypeError, "max_supersteps is a bool"),
        ({"before": [("a",)]}, TypeError, r"before\[0\]"),
        ({"before": "ab"}, TypeError, "before is a str"),
    ],
)
def test_bad_options(options: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        create_graph_trajectory_rules_evaluator(**options)


def test_bad_outputs_are_named() -> None:
    evaluator = create_graph_trajectory_rules_evaluator(max_supersteps=3)
    with pytest.raises(TypeError, match=r"outputs\.steps\[1\] is a str, expected a list"):
        evaluator(outputs={"steps": [["a"], "b"]})
    with pytest.raises(ValueError, match="outputs is None"):
        evaluator(outputs=None)
