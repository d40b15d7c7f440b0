"""The agentevals converter, graph states that are not dicts, and the error without LangGraph."""

from __future__ import annotations

import importlib
import sys

import pytest
from agentevals.graph_trajectory.strict import graph_trajectory_strict_match
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Command
from pydantic import BaseModel

from matchevals.graph_trajectory.langgraph import (
    capture_graph_runs,
    record_graph_run,
    to_agentevals_trajectory,
)
from tests.capture.capture_graphs import ask_resume, diamond


def test_converter_gives_agentevals_thread_trajectories() -> None:
    graph = ask_resume(InMemorySaver())
    config = {"configurable": {"thread_id": "flat"}}
    with capture_graph_runs() as captured:
        graph.invoke({"log": []}, config)
        graph.invoke(Command(resume="yes"), config)
    flat = to_agentevals_trajectory(captured.trajectories)
    assert flat["outputs"]["steps"] == [["__start__", "prep", "ask", "__interrupt__"], ["after"]]
    assert flat["inputs"] == [{"__start__": {"log": []}}, "__resuming__"]
    assert flat["outputs"]["results"] == [{}, {"log": ["prep", "ok?yes", "after"]}]
    reference = {"results": [], "steps": [["__start__", "prep", "ask", "__interrupt__"], ["after"]]}
    strict = graph_trajectory_strict_match(outputs=flat["outputs"], reference_outputs=reference)
    assert strict["score"]


def test_converter_accepts_one_trajectory_and_failed_runs() -> None:
    run = {"inputs": None, "results": None, "steps": [["a"], ["b", "c"]]}
    # a failed call that nothing resumed: agentevals' reading never reaches it
    assert to_agentevals_trajectory(run) == {
        "inputs": [],
        "outputs": {"inputs": [], "results": [], "steps": []},
    }
    with capture_graph_runs() as captured:
        diamond().invoke({"log": []})
    assert to_agentevals_trajectory(captured.trajectories)["outputs"]["steps"] == [
        ["__start__", "a", "c", "b", "d"]
    ]


def test_missing_langgraph_gives_a_clear_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("langgraph", "langgraph.errors", "langgraph.types"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "matchevals.graph_trajectory.langgraph")
    with pytest.raises(ImportError, match=r'pip install "matchevals\[langgraph\]"'):
        importlib.import_module("matchevals.graph_trajectory.langgraph")


def test_inputs_and_results_of_other_state_types() -> None:
    class Counter(BaseModel):
        n: int = 0

    builder = StateGraph(Counter)
    builder.add_node("inc", lambda s: {"n": s.n + 1})
    builder.add_edge(START, "inc")
    _, run = record_graph_run(builder.compile(), Counter(n=1))
    assert run == {"inputs": {"n": 1}, "results": {"n": 2}, "steps": [["inc"]]}

    @entrypoint()
    def main(xs: list[int]) -> int:
        return sum(xs)

    _, run = record_graph_run(main, [1, 2])
    assert run == {"inputs": {"input": [1, 2]}, "results": {"output": 3}, "steps": [["main"]]}
