"""A value in agentevals' graph-trajectory format is refused with a TypeError that says what was
recognized and what takes it, never read as a native run (where it would score differently)."""

from __future__ import annotations

from typing import Any

import pytest
from agentevals.graph_trajectory.strict import graph_trajectory_strict_match

from matchevals.graph_trajectory import (
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)

FLAT = {"inputs": [{"q": 1}, {"q": 2}], "results": [{}, {}], "steps": [["a", "b"], ["c"]]}
FLAT_REFERENCE = {"inputs": [], "results": [], "steps": [["b", "a"], ["c"]]}
NATIVE = {"inputs": None, "results": None, "steps": [["a"], ["b", "a"], ["c"]]}


def test_agentevals_scores_the_flat_example_false() -> None:
    """What agentevals answers for the measured case: invocation 0 is the ordered list a, b."""
    answer = graph_trajectory_strict_match(outputs=FLAT, reference_outputs=FLAT_REFERENCE)
    assert answer["score"] is False


@pytest.mark.parametrize(
    ("outputs", "reference", "recognized"),
    [
        (FLAT, NATIVE, r"outputs looks like agentevals' GraphTrajectory \(outputs.inputs is a"),
        (FLAT, FLAT_REFERENCE, r"looks like agentevals' GraphTrajectory"),
        (NATIVE, FLAT_REFERENCE, r"reference_outputs looks like agentevals' GraphTrajectory"),
        (
            {"steps": [["a"]], "results": [{"x": 1}]},
            NATIVE,
            r"outputs looks like agentevals' GraphTrajectory \(outputs.results is a list",
        ),
        (
            {"inputs": [{}], "outputs": {"results": [{}], "steps": [["__start__", "a"]]}},
            NATIVE,
            r"outputs looks like agentevals' thread trajectory",
        ),
        (
            {"inputs": None, "results": None, "steps": [["__start__", "a"], ["b"]]},
            NATIVE,
            r"outputs.steps\[0\]\[0\] is '__start__', a LangGraph pseudo-node",
        ),
        (
            NATIVE,
            {"inputs": None, "results": None, "steps": [["a"], ["inner:__start__"]]},
            r"reference_outputs.steps\[1\]\[0\] is 'inner:__start__'",
        ),
        (
            [NATIVE, {"inputs": None, "results": None, "steps": [["a", "__interrupt__"]]}],
            [NATIVE, NATIVE],
            r"outputs\[1\].steps\[0\]\[1\] is '__interrupt__'",
        ),
    ],
)
async def test_agentevals_shapes_are_refused_naming_what_takes_them(
    outputs: Any, reference: Any, recognized: str
) -> None:
    with pytest.raises(TypeError, match=recognized) as raised:
        graph_trajectory_match(outputs=outputs, reference_outputs=reference)
    assert "matchevals.graph_trajectory.from_agentevals_trajectory" in str(raised.value)
    assert "matchevals.graph_trajectory.strict.graph_trajectory_strict_match" in str(raised.value)
    with pytest.raises(TypeError, match=recognized):
        await graph_trajectory_match_async(outputs=outputs, reference_outputs=reference)


def test_the_rules_evaluator_refuses_them_too() -> None:
    rules = create_graph_trajectory_rules_evaluator(max_supersteps=5)
    with pytest.raises(TypeError, match="outputs looks like agentevals' GraphTrajectory"):
        rules(outputs=FLAT)


def test_node_names_with_double_underscores_are_still_fine() -> None:
    run = {"inputs": None, "results": None, "steps": [["my__node"], ["__private_helper"]]}
    assert graph_trajectory_match(outputs=run, reference_outputs=run)["score"] is True
