"""Pure bookkeeping behind :mod:`matchevals.graph_trajectory.langgraph`.

Nothing here imports LangGraph. Two independent pieces:

* :class:`RunTree` turns a stream of callback events (run started / ended / failed, with
  ``parent_run_id``, tags and metadata) into one :class:`Invocation` per top-level graph call, and
  :func:`flatten_steps` turns an invocation into supersteps.
* :func:`split_history` turns plain views of checkpoint history (:class:`CheckpointView`, oldest
  first) into one trajectory per invocation.

Naming rules shared by both: node names are joined with ``":"`` along the subgraph path
(``"mid:inner:x"``), names within a superstep are sorted with duplicates kept, hidden nodes (tagged
``langsmith:hidden``, and ``__start__``) are dropped, and a subgraph's own supersteps follow the
parent superstep that ran it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from matchevals.graph_trajectory._types import GraphRunTrajectory

__all__ = [
    "HIDDEN_TAG",
    "CheckpointView",
    "Invocation",
    "RunTree",
    "TaskView",
    "flatten_steps",
    "normalize_inputs",
    "normalize_results",
    "path_key",
    "split_history",
]

HIDDEN_TAG = "langsmith:hidden"
_STEP_TAG = "graph:step:"
_START = "__start__"

PathKey = tuple[tuple[int, int, str], ...]


def path_key(path: Any) -> PathKey:
    """A sortable key for a LangGraph task path (``('__pregel_push', 10, False)`` after ``2``)."""
    if not isinstance(path, (tuple, list)):
        path = (path,)
    return tuple(
        (0, p, "") if isinstance(p, int) and not isinstance(p, bool) else (1, 0, str(p))
        for p in path
    )


def normalize_inputs(value: Any, *, is_resume: Callable[[Any], bool]) -> dict[str, Any] | None:
    """``inputs`` of a trajectory: a mapping as a dict, ``None`` for a resume or no input."""
    if value is None or is_resume(value):
        return None
    return _as_dict(value, "input")


def normalize_results(value: Any, interrupts: Sequence[Any]) -> dict[str, Any]:
    """``results`` of a trajectory: the final state, plus ``"__interrupt__"`` when interrupted."""
    results = _as_dict(value, "output") if value is not None else {}
    if interrupts:
        results["__interrupt__"] = list(interrupts)
    return results


def _as_dict(value: Any, key: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, dict):
            return dumped
    return {key: value}


# --------------------------------------------------------------------------------------------
# Live recording: callback events -> invocations
# --------------------------------------------------------------------------------------------


@dataclass
class _Task:
    """One node execution; its retries are folded into it."""

    name: str
    step: int
    key: PathKey
    seq: int
    hidden: bool
    owner: _Graph
    graphs: list[_Graph] = field(default_factory=list)  # subgraph runs made by the task
    next_graph: int = 0  # which of `graphs` the next subgraph run of this attempt is
    interrupts: list[Any] = field(default_factory=list)


@dataclass
class _Graph:
    """One run of a (sub)graph: its tasks, keyed by (step, name, path).

    A retried task's subgraph runs again into the same ``_Graph``, so the retry adds nothing.
    """

    tasks: dict[tuple[int, str, PathKey], _Task] = field(default_factory=dict)


@dataclass
class Invocation:
    """A top-level graph call seen by a :class:`RunTree`; ``done`` once it ended or failed."""

    run_id: UUID
    inputs: dict[str, Any] | None
    graph: _Graph = field(default_factory=_Graph)
    done: bool = False
    failed: bool = False
    output: Any = None

    def trajectory(self) -> GraphRunTrajectory:
        """The trajectory so far (complete once ``done``)."""
        results: dict[str, Any] | None = None
        if self.done and not self.failed:
            results = normalize_results(self.output, _interrupts(self.graph))
        return {"inputs": self.inputs, "results": results, "steps": flatten_steps(self.graph)}


@dataclass
class _Run:
    """What the tree remembers about a run while it is open."""

    task: _Task | None  # the nearest task at or above this run
    invocation: Invocation | None  # the top-level invocation this run belongs to
    inputs: Any = None
    graph: _Graph | None = None  # set when this run turns out to be a graph run
    is_task: bool = False
    is_langgraph: bool = False


def _interrupts(graph: _Graph) -> list[Any]:
    tasks = sorted(graph.tasks.values(), key=lambda t: (t.step, t.name, t.key, t.seq))
    return [value for t in tasks for value in t.interrupts]


def flatten_steps(graph: _Graph, prefix: str = "") -> list[list[str]]:
    """Supersteps of ``graph``, each followed by the supersteps of the subgraphs it ran."""
    by_step: dict[int, list[_Task]] = {}
    for task in graph.tasks.values():
        by_step.setdefault(task.step, []).append(task)
    steps: list[list[str]] = []
    for step in sorted(by_step):
        tasks = sorted(by_step[step], key=lambda t: (t.name, t.key, t.seq))
        names = [prefix + t.name for t in tasks if not t.hidden]
        if names:
            steps.append(names)  # already sorted: prefix is shared
        for task in tasks:
            for child in task.graphs:
                steps.extend(flatten_steps(child, f"{prefix}{task.name}:"))
    return steps


def _step_of(tags: Sequence[str] | None, metadata: Mapping[str, Any] | None) -> int | None:
    for tag in tags or ():
        if tag.startswith(_STEP_TAG):
            if metadata is not None:
                step = metadata.get("langgraph_step")
                if isinstance(step, int):
                    return step
            try:
                return int(tag[len(_STEP_TAG) :])
            except ValueError:
                return None
    return None


class RunTree:
    """Turns callback events into :class:`Invocation` objects; safe to call from many threads.

    ``on_invocation`` is called (under the lock) when a new top-level graph call is detected;
    ``is_resume`` tells a resume command from an input.
    """

    def __init__(
        self,
        on_invocation: Callable[[Invocation], None],
        is_resume: Callable[[Any], bool],
        interrupt_values: Callable[[BaseException], list[Any] | None],
    ) -> None:
        self._runs: dict[UUID, _Run] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self._on_invocation = on_invocation
        self._is_resume = is_resume
        self._interrupt_values = interrupt_values

    def tracks_nested(self, run_id: UUID) -> bool:
        """True if ``run_id`` is an open run inside a graph task this tree follows."""
        run = self._runs.get(run_id)
        return run is not None and run.task is not None

    def start(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: Sequence[str] | None,
        metadata: Mapping[str, Any] | None,
        inputs: Any,
        *,
        chain: bool = True,
    ) -> None:
        """A run started (``chain=False`` for tools and other non-chain runs)."""
        with self._lock:
            parent = self._runs.get(parent_run_id) if parent_run_id is not None else None
            step = _step_of(tags, metadata) if chain and parent is not None else None
            if step is None or parent is None:
                # Not a task: inherits the enclosing task and invocation.
                if parent is None:
                    run = _Run(task=None, invocation=None)
                else:
                    run = _Run(task=parent.task, invocation=parent.invocation)
                if run.task is None:
                    run.inputs = inputs
                    # A graph run announces itself (LangGraph >= 1.x) unless it runs inside some
                    # graph's task; otherwise it is known by its first task (below).
                    run.is_langgraph = bool(
                        chain
                        and metadata is not None
                        and metadata.get("ls_integration") == "langgraph"
                        and "langgraph_node" not in metadata
                        and (parent is None or not parent.is_langgraph)
                    )
                    if run.is_langgraph:
                        self._new_invocation(run_id, run)
                self._runs[run_id] = run
                return
            # A task of the graph run `parent`.
            graph = parent.graph
            if graph is None:
                graph = self._graph_for(parent_run_id, parent)  # type: ignore[arg-type]
            md = metadata or {}
            raw_name = md.get("langgraph_node")
            name = raw_name if isinstance(raw_name, str) else str(raw_name)
            path = md.get("langgraph_path")
            key = path_key(path if path is not None else md.get("langgraph_checkpoint_ns", run_id))
            task = graph.tasks.get((step, name, key))
            if task is None:
                self._seq += 1
                task = _Task(
                    name=name,
                    step=step,
                    key=key,
                    seq=self._seq,
                    hidden=HIDDEN_TAG in (tags or ()) or name == _START,
                    owner=graph,
                )
                graph.tasks[(step, name, key)] = task
            else:  # a retry: same task, its subgraph runs start over
                task.next_graph = 0
                task.interrupts = []
            self._runs[run_id] = _Run(task=task, invocation=parent.invocation, is_task=True)

    def _graph_for(self, run_id: UUID, run: _Run) -> _Graph:
        """Make ``run`` a graph run: a top-level invocation, or a subgraph of its enclosing task."""
        if run.task is None:
            invocation = run.invocation
            if invocation is None or invocation.run_id != run_id:
                invocation = self._new_invocation(run_id, run)
            run.graph = invocation.graph
        else:
            task = run.task
            if task.next_graph == len(task.graphs):
                task.graphs.append(_Graph())
            run.graph = task.graphs[task.next_graph]
            task.next_graph += 1
        return run.graph

    def _new_invocation(self, run_id: UUID, run: _Run) -> Invocation:
        invocation = Invocation(
            run_id=run_id, inputs=normalize_inputs(run.inputs, is_resume=self._is_resume)
        )
        run.invocation = invocation
        run.graph = invocation.graph
        run.inputs = None
        self._on_invocation(invocation)
        return invocation

    def end(self, run_id: UUID, outputs: Any) -> None:
        """A run ended normally."""
        with self._lock:
            run = self._runs.pop(run_id, None)
            if run is not None and run.invocation is not None and run.invocation.run_id == run_id:
                run.invocation.output = outputs
                run.invocation.done = True

    def error(self, run_id: UUID, error: BaseException) -> None:
        """A run raised (an interrupt raised by a task is remembered as such)."""
        with self._lock:
            run = self._runs.pop(run_id, None)
            if run is None:
                return
            invocation = run.invocation
            if invocation is None:
                return
            if invocation.run_id == run_id:
                invocation.done = True
                invocation.failed = True
                return
            task = run.task
            if run.is_task and task is not None and task.owner is invocation.graph:
                values = self._interrupt_values(error)
                if values is not None:
                    task.interrupts = values

    def forget(self, run_id: UUID) -> None:
        """A non-chain run ended: drop it."""
        with self._lock:
            self._runs.pop(run_id, None)


# --------------------------------------------------------------------------------------------
# Checkpoint history -> invocations
# --------------------------------------------------------------------------------------------


@dataclass
class TaskView:
    """What :func:`split_history` needs to know about a task of a checkpoint."""

    name: str
    key: PathKey
    finished: bool  # has a result
    interrupts: list[Any]
    failed: bool
    hidden: bool
    subgraph: list[CheckpointView] | None = None  # the subgraph's own history, oldest first


@dataclass
class CheckpointView:
    """What :func:`split_history` needs to know about a checkpoint (oldest first)."""

    source: str | None
    marker: Any  # the invocation marker found in its metadata, None if absent
    values: Any
    tasks: list[TaskView]
    input_value: Any = None  # for an ``input`` checkpoint: what the invocation was called with
    branched: bool = False  # written after an older sibling (time travel): a new invocation


@dataclass
class _Step:
    names: list[TaskView]
    group: int  # index of the invocation the superstep belongs to


def _stopped(task: TaskView) -> bool:
    return bool(task.interrupts) or task.failed


def _groups(history: Sequence[CheckpointView]) -> list[int]:
    """Invocation index of each checkpoint.

    Exact where checkpoints carry a marker (a new marker starts a new invocation); between
    unmarked checkpoints a guess: an ``input``, ``update`` or ``fork`` checkpoint, one that
    branches off an older sibling (a replay), or one after a superstep that was interrupted or
    failed, starts a new invocation.
    """
    out: list[int] = []
    group = -1
    previous: CheckpointView | None = None
    for cp in history:
        if (
            previous is None
            or cp.marker != previous.marker
            or (
                cp.marker is None
                and (
                    cp.source in ("input", "update", "fork")
                    or cp.branched
                    or any(_stopped(t) for t in previous.tasks)
                )
            )
        ):
            group += 1
        out.append(group)
        previous = cp
    return out


def _steps(history: Sequence[CheckpointView], groups: Sequence[int]) -> list[_Step]:
    """The supersteps of a history, each attributed to the invocation that ran it."""
    steps: list[_Step] = []
    for i, cp in enumerate(history):
        tasks = sorted(cp.tasks, key=lambda t: (t.name, t.key))
        nxt = history[i + 1] if i + 1 < len(history) else None
        if nxt is None:
            ran = [t for t in tasks if t.finished or _stopped(t)]
            if ran:
                steps.append(_Step(ran, groups[i]))
            continue
        if groups[i + 1] == groups[i]:
            if nxt.source == "loop" and tasks:
                steps.append(_Step(tasks, groups[i]))
            continue
        # The invocation of `cp` ended here: what ran in its last superstep stopped it.
        if any(_stopped(t) for t in tasks):
            steps.append(_Step([t for t in tasks if t.finished or _stopped(t)], groups[i]))
            if nxt.source == "loop":
                steps.append(_Step([t for t in tasks if _stopped(t)], groups[i + 1]))
        elif nxt.source == "loop" and tasks:
            steps.append(_Step(tasks, groups[i + 1]))
    return steps


def _expand(
    steps: Sequence[_Step],
    group: int,
    prefix: str,
    markers: Sequence[Any],
    occurrence: dict[int, int],
) -> list[list[str]]:
    out: list[list[str]] = []
    for step in steps:
        if step.group != group:
            continue
        names = [prefix + t.name for t in step.names if not t.hidden]
        if names:
            out.append(names)
        for task in step.names:
            if task.subgraph:
                out.extend(
                    _subgraph_steps(task, f"{prefix}{task.name}:", markers[group], occurrence)
                )
    return out


def _subgraph_steps(
    task: TaskView, prefix: str, marker: Any, occurrence: dict[int, int]
) -> list[list[str]]:
    history = task.subgraph or []
    groups = _groups(history)
    steps = _steps(history, groups)
    markers = _markers(history, groups)
    if marker is not None:
        wanted = [g for g, m in enumerate(markers) if m == marker]
    else:  # the n-th appearance of this task gets the subgraph's n-th invocation
        n = occurrence.get(id(task), 0)
        occurrence[id(task)] = n + 1
        wanted = [n] if n < len(markers) else []
    out: list[list[str]] = []
    for g in wanted:
        out.extend(_expand(steps, g, prefix, markers, occurrence))
    return out


def _markers(history: Sequence[CheckpointView], groups: Sequence[int]) -> list[Any]:
    markers: list[Any] = []
    for cp, g in zip(history, groups, strict=True):
        if g == len(markers):
            markers.append(cp.marker)
    return markers


def split_history(history: Sequence[CheckpointView]) -> list[GraphRunTrajectory]:
    """One trajectory per invocation found in ``history`` (oldest first)."""
    if not history:
        return []
    groups = _groups(history)
    steps = _steps(history, groups)
    markers = _markers(history, groups)
    bounds: dict[int, tuple[CheckpointView, CheckpointView]] = {}
    for cp, g in zip(history, groups, strict=True):
        first = bounds[g][0] if g in bounds else cp
        bounds[g] = (first, cp)
    occurrence: dict[int, int] = {}
    out: list[GraphRunTrajectory] = []
    for g in range(len(markers)):
        expanded = _expand(steps, g, "", markers, occurrence)
        first, last = bounds[g]
        if not expanded and first.source in ("update", "fork") and first is last:
            continue  # a state update nobody ran from (yet)
        inputs = first.input_value if first.source == "input" else None
        results: dict[str, Any] | None = None
        if not any(t.failed for t in last.tasks):
            tasks = sorted(last.tasks, key=lambda t: (t.name, t.key))
            results = normalize_results(last.values, [v for t in tasks for v in t.interrupts])
        out.append({"inputs": inputs, "results": results, "steps": expanded})
    return out
