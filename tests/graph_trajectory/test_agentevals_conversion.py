"""Conversion both ways between matchevals runs and agentevals' flat thread trajectories."""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
from agentevals.graph_trajectory.strict import (
    graph_trajectory_strict_match as agentevals_strict,
)
from agentevals.graph_trajectory.utils import (
    extract_langgraph_trajectory_from_thread as agentevals_extract,
)
from langgraph.checkpoint.memory import InMemorySaver

from matchevals.graph_trajectory import (
    ReferenceStep,
    from_agentevals_trajectory,
    graph_trajectory_match,
    to_agentevals_trajectory,
)
from matchevals.graph_trajectory.langgraph import capture_graph_runs
from tests.capture.capture_graphs import SCENARIOS, Call, Scenario, chain

THREAD: Any = {"configurable": {"thread_id": "conversion"}}
BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
EMPTY: dict[str, Any] = {"log": []}
# Threads whose runs hold everything agentevals' reading uses: no subgraph (agentevals splits a
# call where a subgraph's history ends and reports the subgraph's state) and parallel nodes added
# in name order (a run sorts them; agentevals follows LangGraph's task order).
EXACT = [
    BY_NAME[name]
    for name in (
        "diamond_twice",
        "agent_tools_loop",
        "interrupt_then_resume",
        "send_fanout",
        "failure_beside_running_node",
        "interrupt_before",
    )
] + [
    Scenario(
        "breakpoint_after",
        lambda checkpointer=None, is_async=False: chain(
            "a b c", is_async, checkpointer, interrupt_after=["a"]
        ),
        [Call(EMPTY), Call(None)],
        [],
    )
]


def live_and_agentevals(scenario: Scenario) -> tuple[list[Any], dict[str, Any]]:
    graph = scenario.build(InMemorySaver(), False)
    previous: Any = None
    with capture_graph_runs() as captured:
        for call in scenario.calls:
            try:
                previous = graph.invoke(call.resolve(previous), THREAD, **call.kwargs)
            except Exception:
                previous = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        extracted = agentevals_extract(graph, THREAD)
    return captured.trajectories, extracted


@pytest.mark.parametrize("scenario", EXACT, ids=[s.name for s in EXACT])
def test_live_runs_convert_to_what_agentevals_extracts(scenario: Scenario) -> None:
    runs, extracted = live_and_agentevals(scenario)
    assert to_agentevals_trajectory(runs) == extracted


def test_what_a_run_cannot_tell_is_documented_not_guessed() -> None:
    """A subgraph: agentevals splits the call where the subgraph's own history ends."""
    runs, extracted = live_and_agentevals(BY_NAME["subgraph_beside_parallel_node"])
    converted = to_agentevals_trajectory(runs)
    assert extracted["outputs"]["steps"] == [
        ["__start__", "pre", "sub", "other", "sub:__start__", "sub:x", "sub:z", "sub:y"],
        ["post"],
    ]
    assert converted["outputs"]["steps"] == [
        ["__start__", "pre", "sub", "other", "sub:__start__", "sub:x", "sub:z", "sub:y", "post"]
    ]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_an_extracted_thread_converts_to_runs_its_own_reference_accepts(
    scenario: Scenario,
) -> None:
    _, extracted = live_and_agentevals(scenario)
    runs, references = from_agentevals_trajectory(extracted, extracted["outputs"])
    assert references is not None
    assert len(runs) == len(references) == len(extracted["outputs"]["steps"])
    for run, names in zip(runs, extracted["outputs"]["steps"], strict=True):
        kept = [n for n in names if n != "__interrupt__" and not n.endswith("__start__")]
        assert run["steps"] == ([kept] if kept else [])
    if runs:
        assert graph_trajectory_match(outputs=runs, reference_outputs=references)["score"] is True


def test_inputs_and_results_come_over() -> None:
    runs, extracted = live_and_agentevals(BY_NAME["interrupt_then_resume"])
    converted, references = from_agentevals_trajectory(extracted)
    assert references is None
    assert [run["inputs"] for run in converted] == [{"log": []}, None]  # "__resuming__": None
    assert converted[0]["results"] is None  # agentevals' {} for the interrupted call
    assert converted[1]["results"] == runs[1]["results"]
    assert converted[0]["steps"] == [["prep", "ask"]]
    bare, _ = from_agentevals_trajectory(extracted["outputs"])  # a bare GraphTrajectory
    assert [run["inputs"] for run in bare] == [None, None]
    assert [run["steps"] for run in bare] == [run["steps"] for run in converted]


def test_a_reference_becomes_exact_steps() -> None:
    _, references = from_agentevals_trajectory(
        {"results": [], "steps": [["__start__", "a", "b"]]},
        {"results": [], "steps": [["__start__", "b", "a"], ["__start__"]]},
    )
    assert references == [
        {"inputs": None, "results": None, "steps": [ReferenceStep(["b", "a"], "exact")]},
        {"inputs": None, "results": None, "steps": []},
    ]


NAMES = ["a", "b", "c", "inner:x"]
PSEUDO = ["__start__", "__interrupt__", "inner:__start__"]


def random_flat(rng: random.Random, invocations: int, pseudo: bool) -> dict[str, Any]:
    names = NAMES + (PSEUDO if pseudo else [])
    return {
        "results": [],
        "steps": [
            [rng.choice(names) for _ in range(rng.randint(0, 4))] for _ in range(invocations)
        ],
    }


@pytest.mark.parametrize("pseudo", [False, True])
def test_a_converted_reference_accepts_the_runs_its_original_accepted(pseudo: bool) -> None:
    """Without pseudo-nodes the answers are the same; with them, every run agentevals accepts is
    accepted (pseudo-nodes are dropped, so lists that differ only in them match too)."""
    rng = random.Random(1414)
    for _ in range(1500):
        invocations = rng.randint(1, 3)
        outputs = random_flat(rng, invocations, pseudo)
        if rng.random() < 0.4:
            reference = {"results": [], "steps": [list(s) for s in outputs["steps"]]}
        else:
            reference = random_flat(rng, invocations, pseudo)
        theirs = agentevals_strict(outputs=outputs, reference_outputs=reference)["score"]
        runs, references = from_agentevals_trajectory(outputs, reference)
        ours = graph_trajectory_match(outputs=runs, reference_outputs=references)["score"]
        if pseudo:
            assert ours or not theirs, (outputs, reference)
        else:
            assert ours == theirs, (outputs, reference)


@pytest.mark.parametrize("scenario", EXACT, ids=[s.name for s in EXACT])
def test_runs_round_trip_through_agentevals_format(scenario: Scenario) -> None:
    """to_agentevals then from_agentevals keeps each invocation's nodes, inputs and results
    where agentevals keeps them (a resume's re-run of its interrupted node is agentevals' loss)."""
    runs, _ = live_and_agentevals(scenario)
    back, _ = from_agentevals_trajectory(to_agentevals_trajectory(runs))
    assert from_agentevals_trajectory(to_agentevals_trajectory(runs)).runs == back  # stable
    ended = [run for run in runs if run["results"] is not None]  # failed calls are merged
    if len(back) != len(ended):  # a call stopped at a breakpoint: merged into its resume
        (merged,) = back
        assert merged["inputs"] == runs[0]["inputs"]
        assert sorted(merged["steps"][0]) == sorted(n for r in runs for s in r["steps"] for n in s)
        return
    for run, converted in zip(ended, back, strict=True):
        assert converted["inputs"] == run["inputs"]
        nodes = [name for step in run["steps"] for name in step]
        if run["inputs"] is not None:
            assert sorted(converted["steps"][0]) == sorted(nodes)
        if "__interrupt__" not in run["results"]:
            assert converted["results"] == run["results"]


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (None, ValueError, "outputs is None"),
        ({"inputs": [], "outputs": {"steps": 3}}, TypeError, "outputs.outputs.steps is an int"),
        ({"steps": [["a"], [None]]}, TypeError, r"outputs.steps\[1\]\[0\] is None"),
        (
            {"inputs": None, "results": {"x": 1}, "steps": [["a"]]},
            TypeError,
            "outputs looks like a matchevals run",
        ),
    ],
)
def test_bad_trajectories_are_clear_errors(value: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        from_agentevals_trajectory(value)
