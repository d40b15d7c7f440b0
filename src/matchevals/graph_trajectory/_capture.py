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
    subgraph: list[CheckpointView] | None = None  # the subgraph checkpoints it wrote, oldest first


@dataclass
class CheckpointView:
    """What :func:`split_history` needs to know about a checkpoint (oldest first)."""

    source: str | None
    marker: Any  # the invocation marker found in its metadata, None if absent
    values: Any
    tasks: list[TaskView]
    input_value: Any = None  # for an ``input`` checkpoint: what the invocation was called with
    branched: bool = False  # written after an older sibling (time travel): a new invocation
    stops: bool = False  # its run stopped right after writing it, at a static breakpoint


_NEW_SOURCES = ("input", "update", "fork")


@dataclass
class _Unit:
    """A piece of one invocation: a checkpoint it wrote, or one run of a superstep's tasks.

    A superstep runs once, after its checkpoint is written; one that stopped (an interrupt, a
    failure, a static breakpoint in a subgraph) runs again in each resume, with the tasks that
    had not finished.
    """

    cp: CheckpointView  # the checkpoint written, or the one whose superstep ran
    marker: Any
    new: bool  # for unmarked units: a guess that a new invocation starts here
    steps: list[list[str]]
    written: bool = False  # the checkpoint itself, not a run of its superstep


@dataclass
class _Segment:
    """One invocation's part of a (sub)graph history: consecutive units."""

    first: _Unit
    last: _Unit
    steps: list[list[str]] = field(default_factory=list)

    @property
    def marker(self) -> Any:
        return self.first.marker

    @property
    def fresh(self) -> bool:
        """A new run of the graph (an ``input`` checkpoint), not a resume of the previous one."""
        return self.first.written and self.first.cp.source == "input"

    @property
    def stopped(self) -> bool:
        """It ended at a static breakpoint."""
        return self.last.written and self.last.cp.stops


def _stopped(task: TaskView) -> bool:
    return bool(task.interrupts) or task.failed


def _segments(history: Sequence[CheckpointView], prefix: str, finished: bool) -> list[_Segment]:
    """The invocations found in ``history``, in order (``finished``: the graph's run ended).

    Exact where checkpoints carry a marker (a new marker starts a new invocation). Between
    unmarked ones a guess: an ``input``, ``update`` or ``fork`` checkpoint, one that branches off
    an older sibling (a replay), and each resume of a superstep that stopped start a new one.
    """
    units: list[_Unit] = []
    for i, cp in enumerate(history):
        # A replay's first checkpoint is a fork (langgraph >= 1.2) or, before, the second
        # ``loop`` child of the replayed one: then the run that wrote it already started the
        # new invocation (see ``_runs``).
        written_by_run = cp.source == "loop" and bool(units) and not units[-1].written
        new = cp.source in _NEW_SOURCES or (cp.branched and not written_by_run)
        units.append(_Unit(cp, cp.marker, new, [], True))
        nxt = history[i + 1] if i + 1 < len(history) else None
        units.extend(_runs(cp, nxt, prefix, ran_all=finished and nxt is None))
    segments: list[_Segment] = []
    previous: _Unit | None = None
    for unit in units:
        if previous is None or unit.marker != previous.marker or (unit.marker is None and unit.new):
            segments.append(_Segment(unit, unit))
        segment = segments[-1]
        segment.steps.extend(unit.steps)
        segment.last = unit
        previous = unit
    return segments


def _runs(
    cp: CheckpointView, nxt: CheckpointView | None, prefix: str, *, ran_all: bool
) -> list[_Unit]:
    """The runs of ``cp``'s superstep (``nxt``: the checkpoint after it; ``ran_all``: all ran).

    A subgraph task's own history tells in which runs it took part; a task that stopped without
    one is taken to run again in every later run. With markers each run is the invocation that
    wrote them; without, the first run belongs to ``cp``'s invocation (unless it stopped at a
    breakpoint right after writing ``cp``) and every later run is a new one.
    """
    tasks = sorted(cp.tasks, key=lambda t: (t.name, t.key))
    done = nxt is not None and nxt.source == "loop"  # completed by its last run, which wrote nxt
    replayed = nxt is not None and nxt.branched  # time travel: nxt's invocation ran it again
    if replayed and not done:
        return []  # what ran from here on the older branch is not on the one being read
    subs = [
        _segments(t.subgraph, f"{prefix}{t.name}:", t.finished) if t.subgraph else [] for t in tasks
    ]
    if done or ran_all:
        first = [True] * len(tasks)
    else:  # the history ends here, or was edited: only what shows it ran
        first = [t.finished or _stopped(t) or bool(s) for t, s in zip(tasks, subs, strict=True)]
    if not any(first):
        return []
    end = nxt.marker if done and nxt is not None else None
    sub_markers = [seg.marker for s in subs for seg in s]
    if cp.marker is None and end is None and all(m is None for m in sub_markers):
        markers, places = _runs_in_order(tasks, subs, done)
    else:
        markers, places = _runs_by_marker(cp, end, tasks, subs, done, replayed)
    members: list[list[tuple[TaskView, list[_Segment]]]] = [[] for _ in markers]
    for task, segs, ran, place in zip(tasks, subs, first, places, strict=True):
        at: dict[int, list[_Segment]] = {0: []} if ran else {}
        for seg, j in zip(segs, place, strict=True):
            at.setdefault(j, []).append(seg)
        if place:  # unfinished in between: each resume ran it again, even if it wrote nothing
            for j in range(place[0], place[-1]):
                at.setdefault(j, [])
        if segs and segs[-1].stopped and done:  # resumed past its breakpoint with nothing left
            at.setdefault(min(place[-1] + 1, len(markers) - 1), [])
        if not segs and _stopped(task):
            for j in range(1, len(markers)):
                at.setdefault(j, [])
        for j in sorted(at):
            members[j].append((task, at[j]))
    units: list[_Unit] = []
    for j, (marker, ran_tasks) in enumerate(zip(markers, members, strict=True)):
        names = [prefix + t.name for t, _ in ran_tasks if not t.hidden]
        steps = [names] if names else []
        for _, segs in ran_tasks:
            for seg in segs:
                steps.extend(seg.steps)
        own = j == 0 and not (cp.stops or replayed) and marker == cp.marker
        units.append(_Unit(cp, marker, not own, steps))
    return units


def _runs_in_order(
    tasks: Sequence[TaskView], subs: Sequence[list[_Segment]], done: bool
) -> tuple[list[Any], list[list[int]]]:
    """Unmarked runs: a subgraph's resumes are the superstep's later runs, in order."""
    places: list[list[int]] = []
    count = 2 if done and any(_stopped(t) for t in tasks) else 1
    for segs in subs:
        place: list[int] = []
        run = 0
        for k, seg in enumerate(segs):
            if k and not seg.fresh:
                run += 1
            place.append(run)
        places.append(place)
        if segs:
            count = max(count, run + (2 if done and segs[-1].stopped else 1))
    return [None] * count, places


def _runs_by_marker(
    cp: CheckpointView,
    end: Any,
    tasks: Sequence[TaskView],
    subs: Sequence[list[_Segment]],
    done: bool,
    replayed: bool,
) -> tuple[list[Any], list[list[int]]]:
    """Marked runs: one per invocation seen running the superstep, in order."""
    sub_markers = [seg.marker for s in subs for seg in s]
    if cp.stops or replayed:
        here = False
    elif sub_markers:
        here = cp.marker in sub_markers
    else:
        here = not done or end == cp.marker or any(_stopped(t) for t in tasks)
    markers: list[Any] = [cp.marker] if here else []
    for k in range(max((len(s) for s in subs), default=0)):
        for segs in subs:
            if k < len(segs) and segs[k].marker not in markers:
                markers.append(segs[k].marker)
    if done and end not in markers:
        markers.append(end)
    if not markers:  # ran in an invocation that wrote no checkpoint here
        markers.append(None)
    return markers, [[markers.index(seg.marker) for seg in s] for s in subs]


def split_history(history: Sequence[CheckpointView]) -> list[GraphRunTrajectory]:
    """One trajectory per invocation found in ``history`` (oldest first)."""
    out: list[GraphRunTrajectory] = []
    for segment in _segments(history, "", finished=False):
        first, last = segment.first, segment.last
        if not segment.steps and first is last and first.cp.source in ("update", "fork"):
            continue  # a state update nobody ran from (yet)
        inputs = first.cp.input_value if first.written and first.cp.source == "input" else None
        results: dict[str, Any] | None = None
        if not any(t.failed for t in last.cp.tasks):
            tasks = sorted(last.cp.tasks, key=lambda t: (t.name, t.key))
            results = normalize_results(last.cp.values, [v for t in tasks for v in t.interrupts])
        out.append({"inputs": inputs, "results": results, "steps": segment.steps})
    return out
