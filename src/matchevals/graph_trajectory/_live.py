"""Live recording: LangChain callback events of graph runs -> one :class:`Invocation` per
top-level graph call (:class:`RunTree`, a pure state machine fed by the callback handler in
:mod:`matchevals.graph_trajectory.langgraph`), and :func:`flatten_steps` from an invocation to
supersteps.

Nothing here imports LangGraph; the naming rules are in ``_conventions``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from matchevals.graph_trajectory._conventions import (
    HIDDEN_TAG,
    PathKey,
    normalize_inputs,
    normalize_results,
    path_key,
)
from matchevals.graph_trajectory._types import GraphRunTrajectory

__all__ = ["Invocation", "RunTree", "flatten_steps"]

_STEP_TAG = "graph:step:"
_START = "__start__"


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
