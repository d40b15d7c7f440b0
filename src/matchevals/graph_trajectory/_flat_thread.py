"""agentevals' flat thread trajectory, rebuilt from checkpoint snapshots (pure: no LangGraph).

agentevals 0.0.9 reads a thread's checkpoint history (newest first, each snapshot preceded by the
histories of the subgraphs its tasks point at) into one flat list of node names per invocation.
This module reproduces that reading exactly, quirks included, so that
:mod:`matchevals.graph_trajectory.utils` is a drop-in: an invocation ends at a snapshot with no
next node or with an interrupted task; its list holds every task of the snapshots read after that
one (``__interrupt__`` after an interrupted task, ``parent:`` before a subgraph's tasks, where
``parent`` is the first segment of the snapshot's namespace), in the reverse of reading order;
inputs are ``{task: result}`` of ``input`` snapshots, or ``"__resuming__"`` before a snapshot
that was interrupted.

What this format cannot say, and :func:`~matchevals.graph_trajectory.langgraph.
extract_graph_run_trajectories` does: which nodes ran together (superstep boundaries), a resume's
re-run of the interrupted node, an invocation stopped by a static breakpoint or a failure (it is
merged into the next one), and nested subgraph namespaces (``mid:inner:x`` reads ``mid:x``).

>>> views = [SnapshotView(True, False, "", (), False, {"n": 1}),
...          SnapshotView(False, False, "", (FlatTask("a", False, None),), False, None),
...          SnapshotView(False, False, "", (FlatTask("__start__", False, {"n": 0}),), True, None)]
>>> flat_thread_trajectory(views)["outputs"]["steps"]
[['__start__', 'a']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INTERRUPT",
    "RESUMING",
    "START",
    "FlatTask",
    "SnapshotView",
    "flat_thread_trajectory",
    "incomplete_warning",
]

START = "__start__"
INTERRUPT = "__interrupt__"
RESUMING = "__resuming__"


@dataclass(frozen=True, slots=True)
class FlatTask:
    """One task of a snapshot, as agentevals reads it."""

    name: str
    interrupted: bool
    result: Any


@dataclass(frozen=True, slots=True)
class SnapshotView:
    """One checkpoint snapshot, as agentevals reads it.

    ``ends_invocation``: no next node, or a task was interrupted; ``interrupted``: a task was;
    ``prefix``: ``"parent:"`` for a subgraph's snapshot; ``result``: what the invocation that ends
    here reports (``{}`` when interrupted, the last message for a state with ``messages``).
    """

    ends_invocation: bool
    interrupted: bool
    prefix: str
    tasks: tuple[FlatTask, ...]
    is_input: bool
    result: Any


def flat_thread_trajectory(views: Sequence[SnapshotView]) -> dict[str, Any]:
    """agentevals' ``{"inputs": [...], "outputs": {"inputs": [], "results": [...], "steps":
    [...]}}`` for snapshots in agentevals' reading order (newest first)."""
    inputs: list[Any] = []
    results: list[Any] = []
    steps: list[list[str]] = []
    reading = False  # nothing is kept until the newest invocation's end is found
    for index, view in enumerate(views):
        if view.ends_invocation:
            reading = True
            results.append(view.result)
            steps.append([])
        if not reading:
            continue
        for task in view.tasks:
            if task.interrupted:
                steps[-1].append(INTERRUPT)
            steps[-1].append(view.prefix + task.name)
        if view.is_input:
            inputs.extend({task.name: task.result} for task in view.tasks)
        elif index + 1 < len(views) and views[index + 1].interrupted:
            inputs.append(RESUMING)
    return {
        "inputs": inputs[::-1],
        "outputs": {
            "inputs": [],
            "results": results[::-1],
            "steps": [names[::-1] for names in steps[::-1]],
        },
    }


def incomplete_warning(trajectory: dict[str, Any]) -> str | None:
    """The warning agentevals gives when the lists it built disagree in length."""
    inputs, outputs = trajectory["inputs"], trajectory["outputs"]
    if len(inputs) != len(outputs["results"]):
        return "Trajectory parsing may be incomplete: inputs and results have different lengths"
    if len(inputs) != len(outputs["steps"]):
        return "Trajectory parsing may be incomplete: inputs and steps have different lengths"
    return None
