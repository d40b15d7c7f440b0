"""Cost of capturing LangGraph trajectories (run: ``python benchmarks/bench_capture.py``).

* Recording a 4-node graph (START→a→{b,c}→d, plain Python nodes, no checkpointer) with
  ``record_graph_run`` / inside ``capture_graph_runs`` against a plain ``invoke`` (target ≤ 1.5×),
  beside AgentEvals' way to get one run's trajectory (invoke with a checkpointer, then
  ``extract_langgraph_trajectory_from_thread``).
* Extracting a thread with 100 invocations of that graph from checkpoint history with
  ``extract_graph_run_trajectories`` (target < 0.5 s), beside AgentEvals'
  ``extract_langgraph_trajectory_from_thread`` on the same thread.

Medians, one process, under a minute.
"""

from __future__ import annotations

import gc
import operator
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from agentevals.graph_trajectory.utils import extract_langgraph_trajectory_from_thread
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from matchevals.graph_trajectory.langgraph import (
    capture_graph_runs,
    extract_graph_run_trajectories,
    record_graph_run,
    tag_invocation,
)


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def four_nodes(checkpointer: Any = None) -> Any:
    builder = StateGraph(State)
    for name in "abcd":
        builder.add_node(name, lambda s, name=name: {"log": [name]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge(["b", "c"], "d")
    return builder.compile(checkpointer=checkpointer)


def interleaved(
    fns: dict[str, Callable[[], Any]], rounds: int, collect_every: int = 1
) -> dict[str, float]:
    """Median seconds per call of each function, measured round-robin to share any drift.

    Like ``timeit``, the garbage collector is paused while timing (collections would otherwise
    land on whichever function happens to run when a threshold is crossed).
    """
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(rounds):
        if i % collect_every == 0:
            gc.collect()
        names = list(fns)
        for name in names[i % len(names) :] + names[: i % len(names)]:  # rotate: no fixed slot
            fn = fns[name]
            gc.disable()
            try:
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
            finally:
                gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    warnings.simplefilter("ignore")
    graph = four_nodes()
    state: dict[str, Any] = {"log": []}
    checkpointed = four_nodes(InMemorySaver())
    threads = iter(range(10**9))

    def agentevals_way() -> None:
        config: Any = {"configurable": {"thread_id": f"t{next(threads)}"}}
        checkpointed.invoke(state, config)
        extract_langgraph_trajectory_from_thread(checkpointed, config)

    def in_capture() -> None:
        with capture_graph_runs():
            graph.invoke(state)

    live_fns: dict[str, Callable[[], Any]] = {
        "plain invoke": lambda: graph.invoke(state),
        "record_graph_run": lambda: record_graph_run(graph, state),
        "invoke inside capture_graph_runs": in_capture,
        "agentevals: checkpointed invoke + extract thread": agentevals_way,
    }
    interleaved(live_fns, 50, collect_every=50)  # warm up
    live = interleaved(live_fns, 600, collect_every=50)

    # one thread, 100 invocations
    saved = four_nodes(InMemorySaver())
    tagged: Any = {"configurable": {"thread_id": "tagged"}}
    untagged: Any = {"configurable": {"thread_id": "untagged"}}
    for _ in range(100):
        saved.invoke(state, tag_invocation(tagged))
        saved.invoke(state, untagged)
    runs = extract_graph_run_trajectories(saved, tagged)
    assert len(runs) == 100 and all(r["steps"] == [["a"], ["b", "c"], ["d"]] for r in runs)
    assert len(extract_graph_run_trajectories(saved, untagged)) == 100
    history_fns: dict[str, Callable[[], Any]] = {
        "extract_graph_run_trajectories (tagged)": lambda: extract_graph_run_trajectories(
            saved, tagged
        ),
        "extract_graph_run_trajectories (untagged)": lambda: extract_graph_run_trajectories(
            saved, untagged
        ),
        "agentevals extract_langgraph_trajectory_from_thread": lambda: (
            extract_langgraph_trajectory_from_thread(saved, untagged)
        ),
    }
    history = interleaved(history_fns, 15)

    base = live["plain invoke"]
    print("Recording a 4-node graph (median per call)")
    print(f"{'':<52}{'ms':>10}{'x invoke':>10}")
    for name, seconds in live.items():
        print(f"{name:<52}{seconds * 1e3:>10.3f}{seconds / base:>10.2f}")
    print("  target: recording <= 1.50x plain invoke")
    print()
    agent = history["agentevals extract_langgraph_trajectory_from_thread"]
    print("Extracting a thread of 100 invocations from checkpoint history (median)")
    print(f"{'':<52}{'s':>10}{'x agentevals':>14}")
    for name, seconds in history.items():
        print(f"{name:<52}{seconds:>10.3f}{seconds / agent:>14.2f}")
    print("  target: < 0.5 s")


if __name__ == "__main__":
    main()
