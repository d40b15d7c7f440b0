"""Checkpoint history -> invocations: :func:`split_history` turns plain views of a thread's
checkpoint history (:class:`CheckpointView`, oldest first, read from LangGraph by
``_checkpoints``) into one trajectory per invocation.

Nothing here imports LangGraph; the naming rules are in ``_conventions``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from matchevals.graph_trajectory._conventions import PathKey, normalize_results
from matchevals.graph_trajectory._types import GraphRunTrajectory

__all__ = ["CheckpointView", "TaskView", "split_history"]


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
