"""Capture faults: a graph whose node raises, is interrupted, or is cancelled mid-run. The recorder
returns what ran and marks the failure (``results`` is None; the exception carries the
trajectory); no callback stays active after the context exits."""

from __future__ import annotations

import asyncio
import contextvars
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from matchevals.graph_trajectory import graph_trajectory_match
from matchevals.graph_trajectory._callbacks import active_handler
from matchevals.graph_trajectory.langgraph import (
    arecord_graph_run,
    capture_graph_runs,
    record_graph_run,
)


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


class Boom(RuntimeError):
    pass


def no_capture_active() -> bool:
    return active_handler.get() is None


def failing_graph(error: BaseException) -> Any:
    """START → a → (boom, ok) in parallel → END; boom raises ``error``."""

    def a(state: State) -> dict[str, Any]:
        return {"log": ["a"]}

    def boom(state: State) -> dict[str, Any]:
        raise error

    def ok(state: State) -> dict[str, Any]:
        return {"log": ["ok"]}

    builder = StateGraph(State)
    builder.add_node("a", a)
    builder.add_node("boom", boom)
    builder.add_node("ok", ok)
    builder.add_edge(START, "a")
    builder.add_edge("a", "boom")
    builder.add_edge("a", "ok")
    builder.add_edge(["boom", "ok"], END)
    return builder.compile()


def single_failure_graph(error: BaseException) -> Any:
    """START → a → boom → END: boom runs alone in its superstep (in the calling thread)."""

    def a(state: State) -> dict[str, Any]:
        return {"log": ["a"]}

    def boom(state: State) -> dict[str, Any]:
        raise error

    builder = StateGraph(State)
    builder.add_node("a", a)
    builder.add_node("boom", boom)
    builder.add_edge(START, "a")
    builder.add_edge("a", "boom")
    builder.add_edge("boom", END)
    return builder.compile()


FAILED = {"inputs": {"log": []}, "results": None, "steps": [["a"], ["boom", "ok"]]}


def test_a_failing_node_returns_what_ran_and_marks_the_failure() -> None:
    graph = failing_graph(Boom("node failed"))
    result, trajectory = record_graph_run(graph, {"log": []})
    assert result is None
    assert trajectory == FAILED
    assert no_capture_active()
    with pytest.raises(Boom, match="node failed") as caught:
        record_graph_run(graph, {"log": []}, raise_on_error=True)
    assert caught.value.graph_run_trajectory == FAILED  # type: ignore[attr-defined]
    assert no_capture_active()
    # the failed run still scores against a reference
    reference = {"inputs": None, "results": None, "steps": [["a"], ["boom", "ok"], ["done"]]}
    verdict = graph_trajectory_match(outputs=trajectory, reference_outputs=reference)
    assert verdict["score"] is False
    assert verdict["comment"].startswith("run 0 had 2 supersteps where 3 were expected")


def test_capture_records_the_failed_run_and_lets_the_error_through() -> None:
    graph = failing_graph(Boom("node failed"))
    with pytest.raises(Boom), capture_graph_runs() as captured:
        graph.invoke({"log": []})
    assert no_capture_active()
    assert captured.trajectories == [FAILED]
    ok_graph = failing_graph(Boom("again"))
    with pytest.raises(Boom):
        ok_graph.invoke({"log": []})
    assert captured.trajectories == [FAILED]  # a run after the block is not recorded


def test_keyboard_interrupt_propagates_with_what_ran() -> None:
    graph = single_failure_graph(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt) as caught:
        record_graph_run(graph, {"log": []})
    assert caught.value.graph_run_trajectory == {  # type: ignore[attr-defined]
        "inputs": {"log": []},
        "results": None,
        "steps": [["a"], ["boom"]],
    }
    assert no_capture_active()


def interrupting_graph() -> Any:
    def a(state: State) -> dict[str, Any]:
        return {"log": ["a"]}

    def ask(state: State) -> dict[str, Any]:
        answer = interrupt("approve?")
        return {"log": [f"ask:{answer}"]}

    builder = StateGraph(State)
    builder.add_node("a", a)
    builder.add_node("ask", ask)
    builder.add_edge(START, "a")
    builder.add_edge("a", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=InMemorySaver())


def test_an_interrupted_run_is_recorded_with_its_interrupt_and_resumes() -> None:
    graph = interrupting_graph()
    config = {"configurable": {"thread_id": "robustness"}}
    result, first = record_graph_run(graph, {"log": []}, config)
    assert first["steps"] == [["a"], ["ask"]]
    assert first["results"] is not None
    assert first["results"]["__interrupt__"] == ["approve?"]
    assert "__interrupt__" in result
    resumed, second = record_graph_run(graph, Command(resume="yes"), config)
    assert second == {
        "inputs": None,
        "results": {"log": ["a", "ask:yes"]},
        "steps": [["ask"]],
    }
    assert resumed == {"log": ["a", "ask:yes"]}
    assert no_capture_active()


def slow_graph(started: asyncio.Event) -> Any:
    async def a(state: State) -> dict[str, Any]:
        return {"log": ["a"]}

    async def slow(state: State) -> dict[str, Any]:
        started.set()
        await asyncio.sleep(60)
        return {"log": ["slow"]}

    async def fast(state: State) -> dict[str, Any]:
        return {"log": ["fast"]}

    builder = StateGraph(State)
    builder.add_node("a", a)
    builder.add_node("slow", slow)
    builder.add_node("fast", fast)
    builder.add_edge(START, "a")
    builder.add_edge("a", "slow")
    builder.add_edge("a", "fast")
    builder.add_edge(["slow", "fast"], END)
    return builder.compile()


CANCELLED = {"inputs": {"log": []}, "results": None, "steps": [["a"], ["fast", "slow"]]}


def test_a_cancelled_run_is_recorded_as_failed_by_the_capture() -> None:
    async def scenario() -> Any:
        started = asyncio.Event()
        graph = slow_graph(started)
        async with capture_graph_runs() as captured:
            task = asyncio.create_task(graph.ainvoke({"log": []}))
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert no_capture_active()
        return captured.trajectories

    assert asyncio.run(scenario()) == [CANCELLED]
    assert no_capture_active()


def test_a_cancelled_recorder_propagates_the_cancellation_with_what_ran() -> None:
    async def scenario() -> Any:
        started = asyncio.Event()
        task = asyncio.create_task(arecord_graph_run(slow_graph(started), {"log": []}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        assert no_capture_active()
        return caught.value.graph_run_trajectory  # type: ignore[attr-defined]

    assert asyncio.run(scenario()) == CANCELLED


def test_no_callback_outlives_the_block_in_threads_or_copied_contexts() -> None:
    graph = failing_graph(Boom("x"))
    with capture_graph_runs() as captured:
        inside = contextvars.copy_context()
        with pytest.raises(Boom):
            graph.invoke({"log": []})
    assert no_capture_active()
    seen: list[bool] = []
    thread = threading.Thread(target=lambda: seen.append(no_capture_active()))
    thread.start()
    thread.join()
    assert seen == [True]
    # a context copied inside the block still sees the capture (by design); one copied after does
    # not, and runs made after the block are never added to it
    assert inside.run(no_capture_active) is False
    with pytest.raises(Boom):
        contextvars.copy_context().run(graph.invoke, {"log": []})
    assert len(captured.trajectories) == 1
