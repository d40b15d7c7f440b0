"""agentevals 0.0.9's ``graph_trajectory.utils``, as a drop-in: change the import, keep the code.

>>> from matchevals.graph_trajectory.utils import extract_langgraph_trajectory_from_thread
>>> extract_langgraph_trajectory_from_thread(graph, {"configurable": {"thread_id": "1"}})
... # doctest: +SKIP
{'inputs': [{'__start__': {...}}, '__resuming__'],
 'outputs': {'inputs': [], 'results': [{}, {...}],
             'steps': [['__start__', 'agent', 'tools', '__interrupt__'], ['agent']]}}

These functions return exactly what agentevals returns for the same thread, pseudo-nodes
(``__start__``, ``__interrupt__``), ``"__resuming__"`` inputs, subgraph naming and order included
(see :mod:`matchevals.graph_trajectory._flat_thread` for the rules). That format is lossy: one
flat node list per invocation, no superstep boundaries, a resume's re-run of the interrupted node
left out, an invocation stopped at a static breakpoint or by a failure merged into the next one.
:func:`matchevals.graph_trajectory.langgraph.extract_graph_run_trajectories` keeps all of that;
use it (or :func:`~matchevals.graph_trajectory.langgraph.record_graph_run`) for new code, and
:func:`matchevals.graph_trajectory.from_agentevals_trajectory` to bring old trajectories over.

Needs the ``langgraph`` extra.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage, convert_to_openai_messages

from matchevals._peers import peer_getattr
from matchevals.graph_trajectory._flat_thread import (
    FlatTask,
    SnapshotView,
    flat_thread_trajectory,
    incomplete_warning,
)

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.pregel import Pregel
    from langgraph.types import StateSnapshot

__all__ = [  # noqa: F822 - agentevals' types load on first use (module __getattr__)
    "ExtractedLangGraphThreadTrajectory",
    "GraphTrajectory",
    "aextract_langgraph_trajectory_from_thread",
    "extract_langgraph_trajectory_from_snapshots",
    "extract_langgraph_trajectory_from_thread",
]

__getattr__: Any = peer_getattr(
    __name__,
    {
        "ExtractedLangGraphThreadTrajectory": "agentevals.types",
        "GraphTrajectory": "agentevals.types",
    },
)


def _subgraph_config(task: Any) -> Mapping[str, Any] | None:
    state = task.state
    if isinstance(state, Mapping) and state.get("configurable", {}).get("checkpoint_ns"):
        return state
    return None


def _reported_result(snapshot: StateSnapshot, interrupted: bool) -> Any:
    if interrupted:
        return {}
    values = snapshot.values
    if isinstance(values, dict) and isinstance(values.get("messages"), list):
        messages = values["messages"]
        if not messages:
            return {"messages": []}
        last = messages[-1]  # agentevals keeps only the last message, to keep results small
        if isinstance(last, BaseMessage):
            return {"messages": convert_to_openai_messages([last])}
        return {"messages": [last]}
    return values


def _view(snapshot: StateSnapshot) -> SnapshotView:
    interrupted = any(task.interrupts for task in snapshot.tasks)
    namespace = (snapshot.config or {}).get("configurable", {}).get("checkpoint_ns", "")
    ends = not snapshot.next or interrupted
    return SnapshotView(
        ends_invocation=ends,
        interrupted=interrupted,
        prefix=f"{namespace.split(':')[0]}:" if ":" in namespace else "",
        tasks=tuple(FlatTask(t.name, bool(t.interrupts), t.result) for t in snapshot.tasks),
        is_input=(snapshot.metadata or {}).get("source") == "input",
        result=_reported_result(snapshot, interrupted) if ends else None,
    )


def _finish(snapshots: Iterable[StateSnapshot]) -> dict[str, Any]:
    trajectory = flat_thread_trajectory([_view(snapshot) for snapshot in snapshots])
    warning = incomplete_warning(trajectory)
    if warning is not None:
        warnings.warn(warning, stacklevel=3)
    return trajectory


def extract_langgraph_trajectory_from_snapshots(
    snapshots: Iterable[StateSnapshot],
) -> dict[str, Any]:
    """agentevals' flat thread trajectory from snapshots already read, in its reading order."""
    return _finish(snapshots)


def _history(graph: Pregel[Any, Any, Any, Any], config: Any) -> Iterator[StateSnapshot]:
    """The thread's snapshots newest first, each after the histories of its subgraph tasks."""
    for snapshot in graph.get_state_history(config):
        for task in snapshot.tasks:
            subgraph = _subgraph_config(task)
            if subgraph is not None:
                yield from _history(graph, subgraph)
        yield snapshot


async def _ahistory(graph: Pregel[Any, Any, Any, Any], config: Any) -> AsyncIterator[StateSnapshot]:
    async for snapshot in graph.aget_state_history(config):
        for task in snapshot.tasks:
            subgraph = _subgraph_config(task)
            if subgraph is not None:
                async for inner in _ahistory(graph, subgraph):
                    yield inner
        yield snapshot


def extract_langgraph_trajectory_from_thread(
    graph: Pregel[Any, Any, Any, Any], config: RunnableConfig
) -> dict[str, Any]:
    """agentevals' ``{"inputs": [...], "outputs": {"inputs": [], "results": [...], "steps":
    [...]}}`` for the thread in ``config``: one flat node list per invocation."""
    return _finish(list(_history(graph, config)))


async def aextract_langgraph_trajectory_from_thread(
    graph: Pregel[Any, Any, Any, Any], config: RunnableConfig
) -> dict[str, Any]:
    """The async twin of :func:`extract_langgraph_trajectory_from_thread`."""
    return _finish([snapshot async for snapshot in _ahistory(graph, config)])
