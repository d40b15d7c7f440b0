"""extract_graph_run_trajectories(): boundaries, branches, and the documented blind spots."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from matchevals.graph_trajectory.langgraph import (
    INVOCATION_MARKER_KEY,
    extract_graph_run_trajectories,
    record_graph_run,
    tag_invocation,
)
from tests.capture.capture_graphs import boom_beside_slow, diamond

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
