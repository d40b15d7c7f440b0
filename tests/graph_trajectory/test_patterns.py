"""Patterns in references: Repeat loops, optional steps and "*" wildcards."""

from __future__ import annotations

import pytest

from matchevals.graph_trajectory import ReferenceStep, Repeat, graph_trajectory_match
from tests.graph_trajectory.helpers import ref, run

AGENT_LOOP = ref(Repeat([["agent"], ["tools"]], min=1), ["agent"])


def match(outputs: object, reference: object) -> dict[str, object]:
    return dict(graph_trajectory_match(outputs=outputs, reference_outputs=reference))


def loop_run(iterations: int) -> dict[str, object]:
    return run(*([["agent"], ["tools"]] * iterations), ["agent"])


@pytest.mark.parametrize("iterations", [1, 2, 5])
def test_agent_tools_loop_of_1_2_and_5_iterations(iterations: int) -> None:
    result = match(loop_run(iterations), AGENT_LOOP)
    assert result["score"] is True
    meta = result["metadata"]["runs"][0]  # type: ignore[index]
    assert meta["expected_supersteps"] == {"min": 3, "max": None}
    assert meta["alignment"] == [
        "reference_outputs.steps[0].steps[0]",
        "reference_outputs.steps[0].steps[1]",
    ] * iterations + ["reference_outputs.steps[1]"]


def test_loop_needs_its_minimum() -> None:
    result = match(run(["agent"]), AGENT_LOOP)
    assert result["score"] is False
    assert result["comment"] == (
        "run 0 ended after 1 superstep, before the reference pattern was complete: "
        "superstep 1 should have been [tools] (unordered, reference_outputs.steps[0].steps[1])"
    )
    zero = ref(Repeat([["agent"], ["tools"]], min=0), ["agent"])
    assert match(run(["agent"]), zero)["score"] is True


@pytest.mark.parametrize(("iterations", "verdict"), [(1, True), (2, True), (3, False)])
def test_loop_respects_its_maximum(iterations: int, verdict: bool) -> None:
    bounded = ref(Repeat([["agent"], ["tools"]], min=1, max=2), ["agent"])
    assert match(loop_run(iterations), bounded)["score"] is verdict


def test_where_the_run_left_the_loop_is_named() -> None:
    outputs = run(["agent"], ["tools"], ["agent"], ["tools", "tools"], ["agent"])
    result = match(outputs, AGENT_LOOP)
    assert result["score"] is False
    assert result["comment"] == (
        "run 0 left the reference pattern at superstep 3 (unordered, "
        "reference_outputs.steps[0].steps[1]): expected [tools], got [tools, tools]; extra tools"
    )
    meta = result["metadata"]["runs"][0]  # type: ignore[index]
    assert meta["verdicts"] == ["match", "match", "match", "mismatch", "unchecked"]
    assert meta["divergence"]["superstep"] == 3


def test_alternatives_are_listed_when_several_steps_could_follow() -> None:
    result = match(run(["agent"], ["tools"], ["other"]), AGENT_LOOP)
    assert result["comment"] == (
        "run 0 left the reference pattern at superstep 2 (unordered, "
        "reference_outputs.steps[0].steps[0] or reference_outputs.steps[1]): "
        "expected [agent], got [other]; missing agent; extra other"
    )
    fork = ref(["a"], ReferenceStep(["b"], optional=True), ["c"])
    assert match(run(["a"], ["d"]), fork)["comment"] == (
        "run 0 left the reference pattern at superstep 1: expected [b] (unordered, "
        "reference_outputs.steps[1]) or [c] (unordered, reference_outputs.steps[2]), got [d]"
    )


def test_run_longer_than_the_pattern() -> None:
    bounded = ref(Repeat([["a"]], min=1, max=2))
    assert match(run(["a"], ["a"], ["a"]), bounded)["comment"] == (
        "run 0 had 3 supersteps where at most 2 were expected; superstep 2 [a] is extra"
    )
    unbounded = ref(Repeat([["a"]]), ["b"])
    assert match(run(["a"], ["b"], ["c"]), unbounded)["comment"] == (
        "run 0 went past the end of the reference pattern: superstep 2 [c] is extra"
    )


@pytest.mark.parametrize(
    ("steps", "verdict"),
    [
        ([["a"], ["b"], ["c"]], True),
        ([["a"], ["c"]], True),
        ([["a"], ["b"], ["b"], ["c"]], False),
        ([["a"]], False),
    ],
)
def test_optional_step(steps: list[list[str]], verdict: bool) -> None:
    reference = ref(["a"], ReferenceStep(["b"], optional=True), ["c"])
    assert match(run(*steps), reference)["score"] is verdict


def test_optional_step_inside_a_repeat_and_an_all_optional_body() -> None:
    body = Repeat([["agent"], ReferenceStep(["tools"], optional=True)], min=1)
    reference = ref(body, ["done"])
    assert match(run(["agent"], ["agent"], ["tools"], ["done"]), reference)["score"] is True
    assert match(run(["done"]), reference)["score"] is False
    empty_ok = ref(["a"], Repeat([ReferenceStep(["x"], optional=True)]), ["b"])
    assert match(run(["a"], ["b"]), empty_ok)["score"] is True
    assert match(run(["a"], ["x"], ["x"], ["b"]), empty_ok)["score"] is True


@pytest.mark.parametrize(
    ("mode", "actual", "verdict"),
    [
        ("exact", ["a", "zz"], True),
        ("exact", ["zz", "a"], False),
        ("unordered", ["zz", "a"], True),
        ("unordered", ["a"], False),
        ("unordered", ["a", "b", "c"], False),
        ("subset", ["a"], True),
        ("subset", ["q"], True),
        ("subset", ["q", "r"], False),
        ("superset", ["a", "q", "r"], True),
        ("superset", ["a"], False),
    ],
)
def test_wildcard_matches_any_one_node(mode: str, actual: list[str], verdict: bool) -> None:
    reference = ref(ReferenceStep(["a", "*"], mode))  # type: ignore[arg-type]
    assert match(run(actual), reference)["score"] is verdict


def test_wildcard_in_a_bare_list_and_in_a_loop() -> None:
    assert match(run(["start"], ["any"]), ref(["start"], ["*"]))["score"] is True
    reference = ref(Repeat([["agent"], ["*"]]), ["agent"])
    assert (
        match(run(["agent"], ["search"], ["agent"], ["calc"], ["agent"]), reference)["score"]
        is True
    )
    missing = match(run(["start"], []), ref(["start"], ["*"]))
    assert missing["comment"].endswith("expected [*], got []; missing *")  # type: ignore[union-attr]


def test_repeat_over_a_thousand_supersteps() -> None:
    outputs = run(*([["agent"], ["tools", "search"]] * 500), ["agent"])
    reference = ref(Repeat([["agent"], ReferenceStep(["search", "tools"])], min=1), ["agent"])
    assert match(outputs, reference)["score"] is True
    outputs["steps"][-3] = ["other"]  # type: ignore[index]
    result = match(outputs, reference)
    assert result["score"] is False
    assert result["metadata"]["runs"][0]["divergence"]["superstep"] == 998  # type: ignore[index]


def test_json_forms_of_reference_steps() -> None:
    reference = ref(
        {"repeat": [["agent"], {"steps": ["tools"], "match_mode": "superset"}], "min": 1},
        {"steps": ["agent"], "match_mode": "exact"},
        {"steps": ["log"], "optional": True},
    )
    assert match(run(["agent"], ["tools", "x"], ["agent"]), reference)["score"] is True
