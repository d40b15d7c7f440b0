"""Each scenario, recorded live, captured and extracted from history, sync and async: all agree."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from matchevals.graph_trajectory import GraphRunTrajectory
from matchevals.graph_trajectory.langgraph import (
    aextract_graph_run_trajectories,
    arecord_graph_run,
    capture_graph_runs,
    extract_graph_run_trajectories,
    record_graph_run,
    tag_invocation,
)
from tests.capture.capture_graphs import SCENARIOS, Boom, Scenario, boom_beside_slow, diamond

THREAD = {"configurable": {"thread_id": "thread-1"}}
IDS = [s.name for s in SCENARIOS]


def _invoke(graph: Any, value: Any, config: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return graph.invoke(value, config, **kwargs)
    except Exception:
        return None


async def _ainvoke(graph: Any, value: Any, config: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return await graph.ainvoke(value, config, **kwargs)
    except Exception:
        return None


def config_for(source: str) -> Any:
    return THREAD if source == "extract_untagged" else tag_invocation(THREAD)


def run_sync(scenario: Scenario, source: str) -> tuple[list[GraphRunTrajectory], list[Any]]:
    graph = scenario.build(InMemorySaver(), False)
    runs: list[GraphRunTrajectory] = []
    results: list[Any] = []
    previous: Any = None
    if source == "record":
        for call in scenario.calls:
            previous, run = record_graph_run(
                graph, call.resolve(previous), tag_invocation(THREAD), **call.kwargs
            )
            runs.append(run)
            results.append(previous)
        return runs, results
    if source == "capture":
        with capture_graph_runs() as captured:
            for call in scenario.calls:
                previous = _invoke(
                    graph, call.resolve(previous), tag_invocation(THREAD), call.kwargs
                )
                results.append(previous)
        return captured.trajectories, results
    for call in scenario.calls:
        previous = _invoke(graph, call.resolve(previous), config_for(source), call.kwargs)
        results.append(previous)
    return extract_graph_run_trajectories(graph, THREAD), results


async def run_async(scenario: Scenario, source: str) -> tuple[list[GraphRunTrajectory], list[Any]]:
    graph = scenario.build(InMemorySaver(), True)
    runs: list[GraphRunTrajectory] = []
    results: list[Any] = []
    previous: Any = None
    if source == "record":
        for call in scenario.calls:
            previous, run = await arecord_graph_run(
                graph, call.resolve(previous), tag_invocation(THREAD), **call.kwargs
            )
            runs.append(run)
            results.append(previous)
        return runs, results
    if source == "capture":
        async with capture_graph_runs() as captured:
            for call in scenario.calls:
                previous = await _ainvoke(
                    graph, call.resolve(previous), tag_invocation(THREAD), call.kwargs
                )
                results.append(previous)
        return captured.trajectories, results
    for call in scenario.calls:
        previous = await _ainvoke(graph, call.resolve(previous), config_for(source), call.kwargs)
        results.append(previous)
    return await aextract_graph_run_trajectories(graph, THREAD), results


def run(scenario: Scenario, mode: str, source: str) -> tuple[list[GraphRunTrajectory], list[Any]]:
    if mode == "async":
        return asyncio.run(run_async(scenario, source))
    return run_sync(scenario, source)


def expected_results(result: Any) -> dict[str, Any] | None:
    """What ``results`` should be, from what ``invoke`` returned (None: it raised)."""
    if result is None:
        return None
    expected = dict(result)
    if "__interrupt__" in expected:
        # invoke lists parallel interrupts as they happened; trajectories sort them by node
        expected["__interrupt__"] = sorted(i.value for i in expected["__interrupt__"])
    return expected


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_live_recorder_and_capture_agree_with_the_table(scenario: Scenario, mode: str) -> None:
    recorded, results = run(scenario, mode, "record")
    captured, _ = run(scenario, mode, "capture")
    assert [r["steps"] for r in recorded] == scenario.steps
    assert captured == recorded
    for call, run_, result in zip(scenario.calls, recorded, results, strict=True):
        value = call.input if not callable(call.input) else None
        assert run_["inputs"] == (value if isinstance(value, dict) else None)
        assert run_["results"] == expected_results(result)


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_history_agrees_where_it_can_know(scenario: Scenario, mode: str, tagged: bool) -> None:
    extracted, _ = run(scenario, mode, "extract" if tagged else "extract_untagged")
    expected = scenario.history if scenario.history is not None else scenario.steps
    if not tagged and scenario.untagged_history is not None:
        expected = scenario.untagged_history
    assert [r["steps"] for r in extracted] == expected, scenario.history_note
    if expected == scenario.steps:
        recorded, _ = run(scenario, mode, "record")
        assert [r["inputs"] for r in extracted] == [r["inputs"] for r in recorded]
        for got, want in zip(extracted, recorded, strict=True):
            if want["results"] is None or "__interrupt__" not in want["results"]:
                assert got["results"] == want["results"]
            else:
                # writes of an interrupted superstep's finished tasks stay pending: not in the
                # checkpoint's state, so only the interrupt values are compared
                assert got["results"] is not None
                assert got["results"]["__interrupt__"] == want["results"]["__interrupt__"]


def test_failed_run_returns_trajectory_and_reraises_only_if_asked() -> None:
    graph = boom_beside_slow()
    result, run_ = record_graph_run(graph, {"log": []})
    assert result is None
    assert run_ == {"inputs": {"log": []}, "results": None, "steps": [["boom", "slow"]]}
    with pytest.raises(Boom) as raised:
        record_graph_run(graph, {"log": []}, raise_on_error=True)
    assert raised.value.graph_run_trajectory == run_  # type: ignore[attr-defined]


async def test_async_failed_run_reraises_only_if_asked() -> None:
    graph = boom_beside_slow(is_async=True)
    result, run_ = await arecord_graph_run(graph, {"log": []})
    assert (result, run_["steps"], run_["results"]) == (None, [["boom", "slow"]], None)
    with pytest.raises(Boom):
        await arecord_graph_run(graph, {"log": []}, raise_on_error=True)


def test_recorder_needs_no_checkpointer_and_passes_invoke_kwargs() -> None:
    result, run_ = record_graph_run(diamond(), {"log": []}, stream_mode="updates")
    assert isinstance(result, list)  # invoke's own return value for that stream mode
    assert run_["results"] == {"log": ["a", "b", "c", "d"]}
    assert run_["steps"] == [["a"], ["b", "c"], ["d"]]


SINGLE_CALL = [s for s in SCENARIOS if len(s.calls) == 1 and not s.calls[0].kwargs]


@pytest.mark.parametrize("scenario", SINGLE_CALL, ids=[s.name for s in SINGLE_CALL])
def test_recorder_without_checkpointer_matches_the_table(scenario: Scenario) -> None:
    _, run_ = record_graph_run(scenario.build(None, False), scenario.calls[0].input)
    assert [run_["steps"]] == scenario.steps
