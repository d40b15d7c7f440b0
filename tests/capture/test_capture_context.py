"""capture_graph_runs(): scope, nesting, concurrency, and nothing left behind."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from matchevals.graph_trajectory import _callbacks as callbacks
from matchevals.graph_trajectory._callbacks import active_handler as active_capture
from matchevals.graph_trajectory.langgraph import (
    capture_graph_runs,
    record_graph_run,
)
from tests.capture.capture_graphs import State, diamond, logger, node

DIAMOND = [["a"], ["b", "c"], ["d"]]


def _our_handlers() -> list[Any]:
    manager = CallbackManager.configure()
    return [
        h for h in manager.handlers if type(h).__module__.endswith("graph_trajectory._callbacks")
    ]


def test_nothing_stays_active_after_exit() -> None:
    graph = diamond()
    with capture_graph_runs() as captured:
        assert len(_our_handlers()) == 1
        graph.invoke({"log": []})
    assert active_capture.get() is None
    assert _our_handlers() == []
    graph.invoke({"log": []})  # after exit: not recorded
    assert [r["steps"] for r in captured.trajectories] == [DIAMOND]


def test_the_configure_hook_is_registered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    callbacks.ensure_hook()  # the real hook, so that the captures below record
    registered: list[tuple[Any, ...]] = []
    monkeypatch.setattr(callbacks, "_hook_registered", False)  # as in a fresh process
    monkeypatch.setattr(callbacks, "register_configure_hook", lambda *a, **k: registered.append(a))
    graph = diamond()
    for _ in range(3):
        with capture_graph_runs() as captured:
            graph.invoke({"log": []})
        assert [r["steps"] for r in captured.trajectories] == [DIAMOND]
        record_graph_run(graph, {"log": []})
    assert registered == [(active_capture,)]  # once, for every capture and recording after it
    assert _our_handlers() == []  # and inert outside them


def test_exit_on_error_restores_the_context() -> None:
    with pytest.raises(ZeroDivisionError), capture_graph_runs():
        _ = 1 / 0
    assert active_capture.get() is None


def test_a_capture_cannot_be_entered_twice() -> None:
    captured = capture_graph_runs()
    with captured, pytest.raises(RuntimeError):
        captured.__enter__()


def test_trajectories_are_fresh_copies_in_start_order() -> None:
    graph = diamond()
    with capture_graph_runs() as captured:
        graph.invoke({"log": ["first"]})
        graph.invoke({"log": ["second"]})
    runs = captured.trajectories
    assert [r["inputs"] for r in runs] == [{"log": ["first"]}, {"log": ["second"]}]
    runs[0]["steps"].clear()
    assert captured.trajectories[0]["steps"] == DIAMOND


def test_nested_captures_both_record_the_inner_calls() -> None:
    graph = diamond()
    with capture_graph_runs() as outer:
        graph.invoke({"log": ["1"]})
        with capture_graph_runs() as inner:
            graph.invoke({"log": ["2"]})
        graph.invoke({"log": ["3"]})
    assert [r["inputs"] for r in outer.trajectories] == [{"log": [n]} for n in "123"]
    assert [r["inputs"] for r in inner.trajectories] == [{"log": ["2"]}]


def test_capture_inside_a_node_sees_the_call_as_top_level() -> None:
    sub = diamond()
    inner_runs: list[Any] = []

    def call(state: State) -> dict[str, Any]:
        with capture_graph_runs() as inner:
            RunnableLambda(lambda x: x).invoke(1)  # not a graph: not recorded
            sub.invoke({"log": []})
        inner_runs.extend(inner.trajectories)
        return {"log": ["call"]}

    builder = StateGraph(State)
    builder.add_node("call", call)
    builder.add_edge(START, "call")
    graph = builder.compile()
    with capture_graph_runs() as outer:
        graph.invoke({"log": []})
    assert [r["steps"] for r in inner_runs] == [DIAMOND]
    assert [r["steps"] for r in outer.trajectories] == [
        [["call"], ["call:a"], ["call:b", "call:c"], ["call:d"]]
    ]


def test_a_graph_called_from_another_runnable_is_top_level() -> None:
    graph = diamond()
    wrapper = RunnableLambda(lambda x: graph.invoke(x)) | RunnableLambda(lambda x: x)
    with capture_graph_runs() as captured:
        wrapper.invoke({"log": []})
    assert [r["steps"] for r in captured.trajectories] == [DIAMOND]


def test_stream_and_threads_with_a_copied_context_are_seen() -> None:
    graph = diamond()
    with capture_graph_runs() as captured:
        list(graph.stream({"log": ["stream"]}, stream_mode="updates"))
        with ThreadPoolExecutor(1) as pool:
            ctx = contextvars.copy_context()
            pool.submit(ctx.run, graph.invoke, {"log": ["copied"]}).result()
        bare = threading.Thread(target=graph.invoke, args=({"log": ["bare"]},))
        bare.start()
        bare.join()
    assert [r["inputs"] for r in captured.trajectories] == [
        {"log": ["stream"]},
        {"log": ["copied"]},
    ]
    assert captured.trajectories[0]["results"] == {"log": ["stream", "a", "b", "c", "d"]}


async def test_concurrent_async_captures_see_only_their_own_calls() -> None:
    async def pause(state: State) -> dict[str, Any]:
        await asyncio.sleep(0.001)
        return {"log": ["pause"]}

    builder = StateGraph(State)
    builder.add_node("pause", pause)
    builder.add_node("done", node(logger("done"), True))
    builder.add_edge(START, "pause")
    builder.add_edge("pause", "done")
    graph = builder.compile()

    async def worker(name: str) -> list[Any]:
        async with capture_graph_runs() as captured:
            for _ in range(3):
                await graph.ainvoke({"log": [name]})
        return captured.trajectories

    first, second = await asyncio.gather(worker("first"), worker("second"))
    assert [r["inputs"] for r in first] == [{"log": ["first"]}] * 3
    assert [r["inputs"] for r in second] == [{"log": ["second"]}] * 3
    assert all(r["steps"] == [["pause"], ["done"]] for r in first + second)
    assert active_capture.get() is None


def test_one_capture_around_parallel_threads() -> None:
    graph = diamond()
    with capture_graph_runs() as captured, ThreadPoolExecutor(4) as pool:
        futures = [
            pool.submit(contextvars.copy_context().run, graph.invoke, {"log": [str(i)]})
            for i in range(8)
        ]
        for future in futures:
            future.result()
    runs = captured.trajectories
    assert sorted(r["inputs"]["log"][0] for r in runs if r["inputs"]) == [str(i) for i in range(8)]
    assert all(r["steps"] == DIAMOND for r in runs)


def _marks_graph_runs() -> bool:
    """Whether this LangGraph marks graph runs (``ls_integration`` metadata; 1.2 does, 1.0 not)."""
    seen: list[Any] = []

    class Probe(BaseCallbackHandler):
        def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
            seen.append((kwargs.get("metadata") or {}).get("ls_integration"))

    diamond().invoke({"log": []}, {"callbacks": [Probe()]})
    return seen[:1] == ["langgraph"]


def test_an_invocation_that_runs_no_node_is_still_recorded() -> None:
    graph = diamond(InMemorySaver())
    config: Any = {"configurable": {"thread_id": "done"}}
    graph.invoke({"log": []}, config)
    with capture_graph_runs() as captured:
        graph.invoke(None, config)  # the thread is finished: nothing to run
    _, recorded = record_graph_run(graph, None, config)
    expected = {"inputs": None, "results": {"log": ["a", "b", "c", "d"]}, "steps": []}
    assert recorded == expected
    if _marks_graph_runs():
        assert captured.trajectories == [expected]
    else:  # documented: older LangGraph gives no sign of a graph run that runs no node
        assert captured.trajectories == []


def test_a_graph_called_from_a_tool_inside_a_node_is_namespaced() -> None:
    sub = diamond()

    @tool
    def lookup(question: str) -> str:
        """Ask the subgraph."""
        return ",".join(sub.invoke({"log": [question]})["log"])

    def call(state: State) -> dict[str, Any]:
        return {"log": [lookup.invoke({"question": "q"})]}

    builder = StateGraph(State)
    builder.add_node("call", call)
    builder.add_edge(START, "call")
    graph = builder.compile()
    with capture_graph_runs() as captured:
        _, recorded = record_graph_run(graph, {"log": []})
    assert recorded["steps"] == [["call"], ["call:a"], ["call:b", "call:c"], ["call:d"]]
    assert captured.trajectories == [recorded]
