"""A thread's checkpoint history read from LangGraph into plain views for ``_history``.

:func:`extract_graph_run_trajectories` (public in :mod:`matchevals.graph_trajectory.langgraph`)
reads the branch to extract, newest checkpoint back to the oldest, with each (sub)graph's
hidden nodes and static breakpoints (``_Level``), turns every ``StateSnapshot`` into a
:class:`~._history.CheckpointView` and hands them to :func:`~._history.split_history`.
:func:`tag_invocation` marks invocations so their boundaries are exact.
"""

from __future__ import annotations

import uuid
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig

from matchevals.graph_trajectory._conventions import HIDDEN_TAG, normalize_inputs, path_key
from matchevals.graph_trajectory._history import CheckpointView, TaskView, split_history
from matchevals.graph_trajectory._signals import is_resume
from matchevals.graph_trajectory._types import GraphRunTrajectory

if TYPE_CHECKING:
    from langgraph.pregel import Pregel
    from langgraph.types import StateSnapshot

    CompiledGraph = Pregel[Any, Any, Any, Any]

__all__ = [
    "INVOCATION_MARKER_KEY",
    "aextract_graph_run_trajectories",
    "extract_graph_run_trajectories",
    "tag_invocation",
]

_NS_SEP = "|"  # between the levels of a checkpoint namespace
_NS_END = ":"  # between a node name and its task id in one level

INVOCATION_MARKER_KEY = "matchevals_invocation"
"""The ``config["metadata"]`` key set by :func:`tag_invocation` (copied into checkpoints)."""


def tag_invocation(
    config: RunnableConfig | None = None, marker: str | None = None
) -> RunnableConfig:
    """A copy of ``config`` whose metadata marks one invocation (a fresh unique value by default).

    Call each invocation with its own tagged config so that
    :func:`extract_graph_run_trajectories` knows exactly where it starts and ends:

    >>> config = {"configurable": {"thread_id": "t1"}}
    >>> tagged = tag_invocation(config, "first")
    >>> tagged["metadata"]
    {'matchevals_invocation': 'first'}
    >>> graph.invoke({"question": "hi"}, tag_invocation(config))  # doctest: +SKIP

    The marker lives in ``config["metadata"]`` (never ``run_id``: reusing the latest checkpoint's
    ``run_id`` makes LangGraph treat a new call as a resume).
    """
    new: dict[str, Any] = dict(config or {})
    new["metadata"] = {
        **(new.get("metadata") or {}),
        INVOCATION_MARKER_KEY: marker if marker is not None else uuid.uuid4().hex,
    }
    return new  # type: ignore[return-value]


def _linear(
    snapshots: Sequence[StateSnapshot], head_id: str | None
) -> list[tuple[StateSnapshot, str | None]]:
    """The branch ending at ``head_id`` (default: the newest checkpoint), oldest first.

    Each checkpoint comes with the id of its earlier sibling, the child its parent had just
    before it (set for a later branch: a time-travel replay or fork). ``snapshots`` is newest
    first.
    """
    if not snapshots:
        return []
    by_id = {_checkpoint_id(s.config): s for s in snapshots}
    earlier: dict[str | None, str | None] = {}
    last_child: dict[str, str | None] = {}
    for snapshot in reversed(snapshots):  # oldest first
        parent_id = _checkpoint_id(snapshot.parent_config)
        if parent_id is not None:
            own_id = _checkpoint_id(snapshot.config)
            earlier[own_id] = last_child.get(parent_id)
            last_child[parent_id] = own_id
    current = by_id.get(head_id) if head_id is not None else snapshots[0]
    chain: list[tuple[StateSnapshot, str | None]] = []
    while current is not None:
        chain.append((current, earlier.get(_checkpoint_id(current.config))))
        parent_id = _checkpoint_id(current.parent_config)
        current = by_id.get(parent_id) if parent_id is not None else None
    chain.reverse()
    return chain


def _checkpoint_id(config: Mapping[str, Any] | None) -> str | None:
    if not config:
        return None
    value = config.get("configurable", {}).get("checkpoint_id")
    return value if isinstance(value, str) else None


def _thread_config(config: RunnableConfig) -> tuple[RunnableConfig, str | None]:
    configurable = dict(config.get("configurable") or {})
    head = configurable.pop("checkpoint_id", None)
    new: dict[str, Any] = {"configurable": configurable}
    return new, head  # type: ignore[return-value]


def _task_view(task: Any, hidden: bool, subgraph: list[CheckpointView] | None) -> TaskView:
    return TaskView(
        name=task.name,
        key=path_key(task.path),
        finished=task.result is not None,
        interrupts=[getattr(i, "value", i) for i in task.interrupts or ()],
        failed=task.error is not None,
        hidden=hidden,
        subgraph=subgraph,
    )


def _checkpoint_view(
    snapshot: StateSnapshot, tasks: list[TaskView], branched: bool, stops: bool
) -> CheckpointView:
    metadata: Mapping[str, Any] = snapshot.metadata or {}
    source = metadata.get("source")
    input_value: Any = None
    if source == "input":
        for task in snapshot.tasks:
            if task.name == "__start__":
                input_value = task.result
    return CheckpointView(
        source=source if isinstance(source, str) else None,
        marker=metadata.get(INVOCATION_MARKER_KEY),
        values=snapshot.values,
        tasks=tasks,
        input_value=normalize_inputs(input_value, is_resume=is_resume),
        branched=branched,
        stops=stops,
    )


class _Level:
    """What reading one (sub)graph's history needs from its compiled graph.

    ``graph`` is ``None`` for a subgraph ``get_subgraphs()`` does not list: then only
    ``__start__`` is hidden and no breakpoint is known.
    """

    def __init__(self, graph: Any) -> None:
        self.hidden = {"__start__"}
        for name, node in (getattr(graph, "nodes", None) or {}).items():
            if HIDDEN_TAG in (getattr(node, "tags", None) or ()):
                self.hidden.add(name)
        # static breakpoints compiled into the graph ("*" or node names)
        self.before: Any = getattr(graph, "interrupt_before_nodes", None) or ()
        self.after: Any = getattr(graph, "interrupt_after_nodes", None) or ()
        # compiled with checkpointer=True: one history per thread, under the namespace without
        # task ids (langgraph < 1.2.13 does not strip them when reading a task's history)
        self.own_history = getattr(graph, "checkpointer", None) is True
        get_subgraphs = getattr(graph, "get_subgraphs", None)
        self._subgraphs = dict(get_subgraphs()) if callable(get_subgraphs) else {}
        self._children: dict[str, _Level] = {}

    def child(self, name: str) -> _Level:
        """The level of the subgraph run by node ``name``."""
        if name not in self._children:
            self._children[name] = _Level(self._subgraphs.get(name))
        return self._children[name]

    def _breaks(self, nodes: Any, tasks: Sequence[Any]) -> bool:
        if nodes == "*":
            return any(t.name not in self.hidden for t in tasks)
        return any(t.name in nodes for t in tasks)

    def stops(self, snapshot: StateSnapshot, previous: StateSnapshot | None) -> bool:
        """True if a run stops right after writing ``snapshot`` (``previous``: the one before).

        That is before a superstep with an ``interrupt_before`` node, and after one with an
        ``interrupt_after`` node (LangGraph stops there unless it is resuming from there).
        """
        if self._breaks(self.before, snapshot.tasks):
            return True
        source = (snapshot.metadata or {}).get("source")
        return (
            previous is not None and source == "loop" and self._breaks(self.after, previous.tasks)
        )


def _written_under(snapshot: StateSnapshot, parent_id: str | None) -> bool:
    """True if a subgraph's checkpoint was written while ``parent_id``'s superstep ran.

    A subgraph compiled with ``checkpointer=True`` keeps one history across all its runs on the
    thread; ``metadata["parents"]`` tells which parent checkpoint each of its checkpoints ran
    under.
    """
    if parent_id is None:
        return True
    parents = (snapshot.metadata or {}).get("parents")
    return not isinstance(parents, Mapping) or parent_id in parents.values()


def _subgraph_config(task: Any, level: _Level) -> RunnableConfig | None:
    """Where the history of the subgraph run by ``task`` (of ``level``'s graph) is read."""
    state = task.state
    if not isinstance(state, Mapping):
        return None
    configurable = state.get("configurable") or {}
    namespace = configurable.get("checkpoint_ns")
    if not isinstance(namespace, str) or not namespace:
        return None
    if level.child(task.name).own_history:
        # "mid:<task id>|inner:<task id>" -> "mid|inner", where such a subgraph writes
        namespace = _NS_SEP.join(part.split(_NS_END)[0] for part in namespace.split(_NS_SEP))
    sub_config: dict[str, Any] = {
        **state,
        "configurable": {**configurable, "checkpoint_ns": namespace},
    }
    return sub_config  # type: ignore[return-value]


# Where a subgraph's checkpoints must lie to belong to a run of the parent superstep on the
# branch being read: after the parent checkpoint's earlier child (if any), before the child on
# the branch. Checkpoint ids increase monotonically (LangGraph's ``Checkpoint.id``).
_Window = tuple[str | None, str | None]


def _within(snapshot: StateSnapshot, window: _Window | None) -> bool:
    if window is None:
        return True
    own_id = _checkpoint_id(snapshot.config)
    after, before = window
    return (
        own_id is not None
        and (after is None or own_id > after)
        and (before is None or own_id < before)
    )


def _chain(
    snapshots: Sequence[StateSnapshot],
    head: str | None,
    parent_id: str | None,
    window: _Window | None,
) -> list[tuple[StateSnapshot, str | None]]:
    """The checkpoints to read, oldest first (``parent_id``: a subgraph's, under that one).

    Before langgraph 1.2 a time-travel replay runs a superstep again under the same parent
    checkpoint, so a subgraph's checkpoints from the first run are also "under" it: ``window``
    keeps those of the run on the branch being read.
    """
    kept = [s for s in snapshots if _written_under(s, parent_id) and _within(s, window)]
    return _linear(kept, head)


def _windows(chain: Sequence[tuple[StateSnapshot, str | None]]) -> list[_Window | None]:
    """For each checkpoint of ``chain``: where its superstep's run on this branch wrote."""
    windows: list[_Window | None] = []
    for i in range(len(chain)):
        if i + 1 < len(chain):
            nxt, earlier = chain[i + 1]
            windows.append((earlier, _checkpoint_id(nxt.config)))
        else:
            windows.append(None)
    return windows


# Reading a history is one walk (sans-I/O): it yields the thread config whose snapshots it needs
# and is sent them back; the sync and async readers differ only in how they fetch.
if TYPE_CHECKING:
    _Walk = Generator[RunnableConfig, list[StateSnapshot], list[CheckpointView]]


def _walk(
    level: _Level,
    config: RunnableConfig,
    parent_id: str | None = None,
    window: _Window | None = None,
) -> _Walk:
    thread, head = _thread_config(config)
    chain = _chain((yield thread), head, parent_id, window)
    views: list[CheckpointView] = []
    previous: StateSnapshot | None = None
    for (snapshot, earlier), ran_in in zip(chain, _windows(chain), strict=True):
        tasks = []
        for task in snapshot.tasks:
            sub_config = _subgraph_config(task, level)
            sub = None
            if sub_config is not None:
                under = _checkpoint_id(snapshot.config)
                sub = yield from _walk(level.child(task.name), sub_config, under, ran_in)
            tasks.append(_task_view(task, task.name in level.hidden, sub))
        branched = earlier is not None
        views.append(_checkpoint_view(snapshot, tasks, branched, level.stops(snapshot, previous)))
        previous = snapshot
    return views


def _views(graph: CompiledGraph, config: RunnableConfig) -> list[CheckpointView]:
    walk = _walk(_Level(graph), config)
    try:
        thread = next(walk)
        while True:
            thread = walk.send(list(graph.get_state_history(thread)))
    except StopIteration as done:
        views: list[CheckpointView] = done.value
        return views


async def _aviews(graph: CompiledGraph, config: RunnableConfig) -> list[CheckpointView]:
    walk = _walk(_Level(graph), config)
    try:
        thread = next(walk)
        while True:
            thread = walk.send([s async for s in graph.aget_state_history(thread)])
    except StopIteration as done:
        views: list[CheckpointView] = done.value
        return views


def extract_graph_run_trajectories(
    graph: CompiledGraph, config: RunnableConfig
) -> list[GraphRunTrajectory]:
    """One trajectory per invocation of the thread in ``config``, oldest first, from its history.

    >>> config = {"configurable": {"thread_id": "t1"}}
    >>> graph.invoke({"question": "hi"}, tag_invocation(config))  # doctest: +SKIP
    >>> extract_graph_run_trajectories(graph, config)[0]["steps"]  # doctest: +SKIP
    [['a'], ['b', 'c'], ['d']]

    Boundaries are exact for calls made with :func:`tag_invocation`. Between untagged
    checkpoints they are guessed: a new invocation starts at an ``input``, ``update`` or ``fork``
    checkpoint, at each resume of a superstep that was interrupted or failed, and after a static
    breakpoint compiled into the graph or a subgraph (``compile(interrupt_before=...,
    interrupt_after=...)``). A subgraph's own checkpoints tell in which invocations its node ran,
    so a subgraph node stopped inside (breakpoint, interrupt, failure) counts in each of them, as
    in live recording. With a ``checkpoint_id`` in ``config`` the branch ending there is read
    (history is a tree after time travel).

    Blind spots (what a checkpoint history cannot tell; record live to avoid them):

    * an invocation that wrote no checkpoint, in the graph or any subgraph, is invisible (e.g.
      one of two parallel interrupts resumed while the other still waits); the next resume's
      first superstep then lists every task that was interrupted in that step. A subgraph that
      wrote none in a resume (it interrupted again at once) shows there without its nodes;
    * a task interrupted in a superstep that was resumed more than once is listed in every
      resume of it (history does not tell in which one it finished);
    * interrupts and errors keep only their latest value; retries never appear;
    * untagged, a resume after a breakpoint given to the call (``invoke(...,
      interrupt_before=...)``, which replaces the compiled ones) or after ``update_state``
      without a new checkpoint source cannot be told from a continuous run;
    * with ``durability="exit"`` only the final checkpoint exists, so supersteps are lost;
    * a subgraph invoked inside a node function where ``get_subgraphs()`` cannot find it, run
      without its own checkpoints, or invoked again by the same node (only the first run is
      reachable) has no history: its nodes are missing;
    * parallel runs of one subgraph compiled with ``checkpointer=True`` (``Send``) share one
      history, which cannot tell them apart;
    * ``results`` of an interrupted invocation lacks the writes of the tasks that finished in
      the interrupted superstep (they are pending writes, not yet state);
    * after time travel, an invocation is cut where its branch leaves the one being read;
    * ``inputs`` is the input after LangGraph mapped it onto the input channels.
    """
    return split_history(_views(graph, config))


async def aextract_graph_run_trajectories(
    graph: CompiledGraph, config: RunnableConfig
) -> list[GraphRunTrajectory]:
    """Async :func:`extract_graph_run_trajectories` (uses ``aget_state_history``).

    >>> runs = await aextract_graph_run_trajectories(graph, config)  # doctest: +SKIP
    """
    return split_history(await _aviews(graph, config))
