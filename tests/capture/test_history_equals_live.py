"""History extraction against live capture around interrupts, at parent and subgraph level.

Each case runs its calls on one thread inside :func:`capture_graph_runs` (the live reference),
then reads the same thread back with ``extract_graph_run_trajectories``. Tagged calls must give
exactly what live capture gave; untagged ones at least every node that ran, as many times.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from matchevals.graph_trajectory import GraphRunTrajectory
from matchevals.graph_trajectory.langgraph import (
    aextract_graph_run_trajectories,
    capture_graph_runs,
    extract_graph_run_trajectories,
    tag_invocation,
)
from tests.capture.capture_graphs import (
    EMPTY,
    beside,
    chain,
    handoff,
    nested_breakpoint,
    own_history_branches,
    parallel_subgraph_asks,
    send_to_breakpoint,
    side_by_side,
)

Steps = list[list[str]]
Build = Callable[[Any, bool, Any], Any]  # (checkpointer, is_async, the subgraphs' checkpointer)
Runs = tuple[list[GraphRunTrajectory], list[GraphRunTrajectory]]  # (live, from history)
THREAD: Any = {"configurable": {"thread_id": "history-equals-live"}}
RESUME = Command(resume="!")


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    calls: list[Any]
    steps: list[Steps]  # what live capture gives, one entry per call
    subgraph_level: bool = True  # the interrupt is inside a subgraph
    own_history: bool = True  # also run with the subgraphs compiled with checkpointer=True


BESIDE_PLAIN: Steps = [["inner", "o1"], ["inner:i1"], ["inner:i2"]]

CASES = [
    Case(
        "parent_static_before",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub), cp, a, interrupt_before=["o2"]),
        [EMPTY, None],
        [BESIDE_PLAIN, [["o2"]]],
        subgraph_level=False,
    ),
    Case(
        "parent_static_after",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub), cp, a, interrupt_after=["o1"]),
        [EMPTY, None],
        [BESIDE_PLAIN, [["o2"]]],
        subgraph_level=False,
    ),
    Case(
        "parent_dynamic",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub), cp, a, ask="o1"),
        [EMPTY, RESUME],
        [BESIDE_PLAIN, [["o1"], ["o2"]]],
        subgraph_level=False,
    ),
    Case(  # the first invocation came back empty and inner:i1 was lost
        "subgraph_static_before",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub, interrupt_before=["i2"]), cp, a),
        [EMPTY, None],
        [[["inner", "o1"], ["inner:i1"]], [["inner"], ["inner:i2"], ["o2"]]],
    ),
    Case(
        "subgraph_static_after",
        lambda cp, a, sub: beside(chain("i1 i2 i3", a, sub, interrupt_after=["i1"]), cp, a),
        [EMPTY, None],
        [[["inner", "o1"], ["inner:i1"]], [["inner"], ["inner:i2"], ["inner:i3"], ["o2"]]],
    ),
    Case(  # the middle call writes no parent checkpoint: only the subgraph's show it
        "subgraph_two_breakpoints",
        lambda cp, a, sub: beside(chain("i1 i2 i3", a, sub, interrupt_before=["i2", "i3"]), cp, a),
        [EMPTY, None, None],
        [
            [["inner", "o1"], ["inner:i1"]],
            [["inner"], ["inner:i2"]],
            [["inner"], ["inner:i3"], ["o2"]],
        ],
    ),
    Case(
        "subgraph_dynamic",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub, ask="i1"), cp, a),
        [EMPTY, RESUME],
        [[["inner", "o1"], ["inner:i1"]], [["inner"], ["inner:i1"], ["inner:i2"], ["o2"]]],
    ),
    Case(  # resumed past a breakpoint after the subgraph's last node: nothing left but to end
        "subgraph_static_after_its_last_node",
        lambda cp, a, sub: beside(chain("i1 i2", a, sub, interrupt_after=["i2"]), cp, a),
        [EMPTY, None],
        [BESIDE_PLAIN, [["inner"], ["o2"]]],
    ),
    Case(
        "subgraphs_static_and_dynamic_side_by_side",
        lambda cp, a, sub: side_by_side(cp, a, sub),
        [EMPTY, RESUME],
        [
            [["s1", "s2"], ["s1:x"], ["s2:p"]],
            [["s1", "s2"], ["s1:y"], ["s2:p"], ["s2:q"], ["o2"]],
        ],
    ),
    Case(
        "send_to_subgraph_static_before",
        lambda cp, a, sub: send_to_breakpoint(cp, a, sub),
        [EMPTY, None],
        [
            [["plan"], ["sub", "sub"], ["sub:x"], ["sub:x"]],
            [["sub", "sub"], ["sub:y"], ["sub:y"], ["reduce"]],
        ],
        own_history=False,  # with checkpointer=True both runs share one history: a blind spot
    ),
    Case(
        "nested_subgraph_static_before",
        lambda cp, a, sub: nested_breakpoint(cp, a, sub),
        [EMPTY, None],
        [
            [["mid"], ["mid:m1"], ["mid:inner"], ["mid:inner:x"]],
            [["mid"], ["mid:inner"], ["mid:inner:y"], ["mid:m2"], ["post"]],
        ],
    ),
]
# a subgraph compiled with checkpointer=None inherits the parent's (namespace "inner:<task id>");
# with checkpointer=True it keeps one history per thread (namespace "inner")
TABLE = pytest.mark.parametrize(
    ("case", "sub"),
    [
        pytest.param(case, sub, id=f"{case.name}-{label}")
        for case in CASES
        for sub, label in ((None, "inherited"), (True, "own"))
        if sub is None or (case.subgraph_level and case.own_history)
    ],
)
MODES = pytest.mark.parametrize("mode", ["sync", "async"])


def run_sync(case: Case, sub: Any, tagged: bool) -> Runs:
    graph = case.build(InMemorySaver(), False, sub)
    with capture_graph_runs() as captured:
        for value in case.calls:
            graph.invoke(value, tag_invocation(THREAD) if tagged else THREAD)
    return captured.trajectories, extract_graph_run_trajectories(graph, THREAD)


async def run_async(case: Case, sub: Any, tagged: bool) -> Runs:
    graph = case.build(InMemorySaver(), True, sub)
    async with capture_graph_runs() as captured:
        for value in case.calls:
            await graph.ainvoke(value, tag_invocation(THREAD) if tagged else THREAD)
    return captured.trajectories, await aextract_graph_run_trajectories(graph, THREAD)


def run(case: Case, sub: Any, mode: str, tagged: bool) -> Runs:
    if mode == "async":
        return asyncio.run(run_async(case, sub, tagged))
    return run_sync(case, sub, tagged)


def node_counts(runs: list[GraphRunTrajectory]) -> Counter[str]:
    return Counter(name for r in runs for step in r["steps"] for name in step)


@MODES
@TABLE
def test_tagged_history_equals_live_capture(case: Case, sub: Any, mode: str) -> None:
    live, extracted = run(case, sub, mode, tagged=True)
    assert [r["steps"] for r in live] == case.steps
    assert [r["steps"] for r in extracted] == case.steps
    assert [r["inputs"] for r in extracted] == [r["inputs"] for r in live]
    assert [r["inputs"] for r in live] == [EMPTY] + [None] * (len(case.calls) - 1)
    for got, want in zip(extracted[:-1], live[:-1], strict=True):
        # stopped invocations: history keeps the interrupt values, but not the writes of the
        # tasks that finished in the stopped superstep (they are pending writes, not state)
        assert got["results"] is not None and want["results"] is not None
        assert got["results"].get("__interrupt__") == want["results"].get("__interrupt__")
    assert extracted[-1]["results"] == live[-1]["results"]
    assert live[-1]["results"] is not None and "__interrupt__" not in live[-1]["results"]


@MODES
@TABLE
def test_untagged_history_keeps_every_node_that_ran(case: Case, sub: Any, mode: str) -> None:
    live, extracted = run(case, sub, mode, tagged=False)
    assert [r["steps"] for r in live] == case.steps
    assert node_counts(extracted) == node_counts(live)
    # breakpoints compiled into the graphs and interrupt() calls also give exact boundaries
    assert [r["steps"] for r in extracted] == case.steps


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
def test_a_subgraph_with_its_own_history_is_read_per_parent_superstep(tagged: bool) -> None:
    # checkpointer=True: every call's subgraph run lands in one history (namespace "inner");
    # each parent superstep reads only the checkpoints written under it
    graph = own_history_branches(InMemorySaver())
    with capture_graph_runs() as captured:
        for _ in range(2):
            graph.invoke(EMPTY, tag_invocation(THREAD) if tagged else THREAD)
    first = [["inner"], ["inner:i1"], ["inner:a"], ["o1"]]
    second = [["inner"], ["inner:i1"], ["inner:b"], ["o1"]]
    assert [r["steps"] for r in captured.trajectories] == [first, second]
    assert [r["steps"] for r in extract_graph_run_trajectories(graph, THREAD)] == [first, second]


@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "untagged"])
def test_a_subgraph_node_that_hands_off_to_the_parent_is_kept(tagged: bool) -> None:
    # h ends the subgraph with Command.PARENT: its checkpoint stays pending, but the subgraph
    # task finished, so everything pending in the subgraph ran
    graph = handoff(InMemorySaver())
    with capture_graph_runs() as captured:
        graph.invoke(EMPTY, tag_invocation(THREAD) if tagged else THREAD)
    steps = [["inner", "o1"], ["inner:i1"], ["inner:h"], ["o2"]]
    assert [r["steps"] for r in captured.trajectories] == [steps]
    assert extract_graph_run_trajectories(graph, THREAD) == captured.trajectories


def test_blind_spot_a_subgraph_that_interrupts_again_at_once_writes_nothing() -> None:
    # the second call answers x only: s2 runs again and z interrupts again before s2 wrote a
    # checkpoint, so history knows s2 ran in that call but not what ran inside it
    graph = parallel_subgraph_asks(InMemorySaver())
    first = graph.invoke(EMPTY, tag_invocation(THREAD))
    ids = {i.value: i.id for i in first["__interrupt__"]}
    graph.invoke(Command(resume={ids["x"]: "1"}), tag_invocation(THREAD))
    # by id: langgraph 0.6.11 to 1.2.12 still count x's interrupt as pending once s1 finished,
    # and refuse a bare resume value while more than one is
    graph.invoke(Command(resume={ids["z"]: "2"}), tag_invocation(THREAD))
    assert [r["steps"] for r in extract_graph_run_trajectories(graph, THREAD)] == [
        [["s1", "s2"], ["s1:x"], ["s2:z"]],
        [["s1", "s2"], ["s1:x"]],  # live also has ["s2:z"]
        [["s2"], ["s2:z"], ["end"]],
    ]
