"""extract_graph_run_trajectories(): boundaries, branches, and the documented blind spots."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from matchevals.graph_trajectory._conventions import path_key
from matchevals.graph_trajectory._history import CheckpointView, TaskView, split_history
from matchevals.graph_trajectory.langgraph import (
    INVOCATION_MARKER_KEY,
    extract_graph_run_trajectories,
    record_graph_run,
    tag_invocation,
)
from tests.capture.capture_graphs import EMPTY, beside, boom_beside_slow, chain, diamond

THREAD: Any = {"configurable": {"thread_id": "history"}}
DIAMOND = [["a"], ["b", "c"], ["d"]]


def steps(graph: Any, config: Any = THREAD) -> list[list[list[str]]]:
    return [r["steps"] for r in extract_graph_run_trajectories(graph, config)]


def test_tag_invocation_copies_and_keeps_metadata() -> None:
    config: Any = {"configurable": {"thread_id": "t"}, "metadata": {"user": "u"}}
    tagged = tag_invocation(config)
    assert tagged["metadata"]["user"] == "u"
    assert len(tagged["metadata"][INVOCATION_MARKER_KEY]) == 32
    assert tag_invocation(config)["metadata"] != tagged["metadata"]  # unique by default
    assert tag_invocation(config, "mine")["metadata"][INVOCATION_MARKER_KEY] == "mine"
    assert config == {"configurable": {"thread_id": "t"}, "metadata": {"user": "u"}}
    assert tag_invocation()["metadata"][INVOCATION_MARKER_KEY]


def test_empty_thread_has_no_invocations() -> None:
    assert extract_graph_run_trajectories(diamond(InMemorySaver()), THREAD) == []


@pytest.mark.parametrize("tagged", [True, False])
def test_time_travel_reads_the_branch_ending_at_the_head(tagged: bool) -> None:
    graph = diamond(InMemorySaver())
    graph.invoke({"log": []}, tag_invocation(THREAD) if tagged else THREAD)
    after_a = next(s for s in graph.get_state_history(THREAD) if s.next == ("b", "c"))
    original_end = next(s for s in graph.get_state_history(THREAD) if not s.next)
    _, replay = record_graph_run(
        graph, None, tag_invocation(after_a.config) if tagged else after_a.config
    )
    assert replay["steps"] == [["b", "c"], ["d"]]
    # newest branch: the first call only got as far as the fork point on it
    assert steps(graph) == [[["a"]], [["b", "c"], ["d"]]]
    # the original branch, by its checkpoint id
    assert steps(graph, original_end.config) == [DIAMOND]


@pytest.mark.parametrize("sub", [None, True], ids=["inherited", "own"])
@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
def test_time_travel_over_a_subgraph_superstep_agrees_with_live(tagged: bool, sub: Any) -> None:
    # Before langgraph 1.2 a replay runs the superstep again under the same parent checkpoint,
    # where the first call's subgraph checkpoints also are (before 1.1 the subgraph, already
    # finished, runs no node again; 1.1 runs it afresh there); from 1.2 it forks first.
    graph = beside(chain("i1 i2", False, sub), InMemorySaver())

    def config(base: Any = THREAD) -> Any:
        return tag_invocation(base) if tagged else base

    first = record_graph_run(graph, EMPTY, config())[1]
    fork = next(s for s in graph.get_state_history(THREAD) if s.next == ("inner", "o1"))
    original_end = next(s for s in graph.get_state_history(THREAD) if not s.next)
    replay = record_graph_run(graph, None, config(fork.config))[1]
    again = record_graph_run(graph, EMPTY, config())[1]
    full = [["inner", "o1"], ["inner:i1"], ["inner:i2"], ["o2"]]
    assert first["steps"] == again["steps"] == full
    assert replay["steps"] in ([["inner", "o1"], ["o2"]], full)  # before 1.1, from 1.1
    # the head branch: the first call only got as far as the fork point (it ran no node there)
    assert steps(graph) == [[], replay["steps"], full]
    assert extract_graph_run_trajectories(graph, THREAD)[1:] == [replay, again]
    assert steps(graph, original_end.config) == [full]


def _task(name: str, finished: bool = True) -> TaskView:
    hidden = name == "__start__"
    return TaskView(name, path_key(("__pregel_pull", name)), finished, [], False, hidden)


def test_a_replay_written_as_a_second_loop_child_is_one_invocation() -> None:
    # langgraph < 1.2: replaying from a checkpoint writes a second ``loop`` child of it, not a
    # fork; the run that wrote it is the replay's first superstep, not a third invocation
    history = [
        CheckpointView("input", None, {}, [_task("__start__")], input_value={"q": 1}),
        CheckpointView("loop", None, {}, [_task("a")]),
        CheckpointView("loop", None, {}, [_task("b"), _task("c")]),  # the replayed one
        CheckpointView("loop", None, {}, [_task("d")], branched=True),
        CheckpointView("loop", None, {"done": True}, []),
    ]
    runs = split_history(history)
    assert [r["steps"] for r in runs] == [[["a"]], [["b", "c"], ["d"]]]
    assert [r["inputs"] for r in runs] == [{"q": 1}, None]
    assert runs[1]["results"] == {"done": True}


@pytest.mark.parametrize("tagged", [True, False])
def test_failed_run_then_retry_agrees_with_live(tagged: bool) -> None:
    graph = boom_beside_slow(InMemorySaver(), failures=1)

    def config() -> Any:
        return tag_invocation(THREAD) if tagged else THREAD

    live = [record_graph_run(graph, {"log": []}, config())[1]]
    live.append(record_graph_run(graph, None, config())[1])
    assert [r["steps"] for r in live] == [[["boom", "slow"]], [["boom"], ["after"]]]
    assert [r["results"] for r in live] == [None, {"log": ["boom", "slow", "after"]}]
    assert extract_graph_run_trajectories(graph, THREAD) == live


def test_update_state_starts_a_new_invocation_untagged() -> None:
    graph = diamond(InMemorySaver())
    graph.invoke({"log": []}, THREAD, interrupt_before=["d"])
    graph.update_state(THREAD, {"log": ["edit"]}, as_node="c")
    graph.invoke(None, THREAD)
    runs = extract_graph_run_trajectories(graph, THREAD)
    assert [r["steps"] for r in runs] == [[["a"], ["b", "c"]], [["d"]]]
    assert runs[1]["inputs"] is None
    assert runs[1]["results"] == {"log": ["a", "b", "c", "edit", "d"]}


def test_tagged_and_untagged_calls_mix() -> None:
    graph = diamond(InMemorySaver())
    graph.invoke({"log": []}, THREAD)
    graph.invoke({"log": []}, tag_invocation(THREAD))
    graph.invoke({"log": []}, THREAD)
    graph.invoke({"log": []}, THREAD)
    assert steps(graph) == [DIAMOND] * 4


def test_blind_spot_durability_exit_keeps_only_the_final_state() -> None:
    graph = diamond(InMemorySaver())
    graph.invoke({"log": []}, tag_invocation(THREAD), durability="exit")
    (run,) = extract_graph_run_trajectories(graph, THREAD)
    assert run["steps"] == []  # documented: no intermediate checkpoints, no supersteps
    assert run["results"] == {"log": ["a", "b", "c", "d"]}
