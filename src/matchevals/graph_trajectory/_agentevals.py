"""Conversion between matchevals runs and agentevals' flat thread trajectories, both ways.

agentevals' format (``{"inputs": [...], "outputs": {"inputs": [], "results": [...], "steps":
[...]}}``) holds one flat node list per invocation, with the pseudo-nodes ``__start__`` (a fresh
call, ``parent:__start__`` for a subgraph's) and ``__interrupt__`` (after the node that called
``interrupt()``), and ``"__resuming__"`` as the input of a resume.

>>> runs, references = from_agentevals_trajectory(
...     {"results": [], "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]]},
...     {"results": [], "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]]})
>>> runs[0]["steps"]
[['agent', 'tools']]
>>> references[0]["steps"]
[ReferenceStep(steps=['agent', 'tools'], match_mode='exact', optional=False)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from matchevals.graph_trajectory._flat_match import flat_steps
from matchevals.graph_trajectory._flat_thread import INTERRUPT, RESUMING, START
from matchevals.graph_trajectory._types import (
    GraphRunReferenceTrajectory,
    GraphRunTrajectory,
    ReferenceStep,
)

__all__ = ["AgentevalsConversion", "from_agentevals_trajectory", "to_agentevals_trajectory"]


class AgentevalsConversion(NamedTuple):
    """Native runs (one per invocation) and, when a reference was given, native references that
    accept them exactly when agentevals' strict match accepted the originals."""

    runs: list[GraphRunTrajectory]
    references: list[GraphRunReferenceTrajectory] | None


def _is_pseudo(name: str) -> bool:
    return name == INTERRUPT or name.rpartition(":")[2] == START


def _unwrap(value: object, name: str) -> tuple[list[Any], Mapping[str, Any]]:
    """(top-level inputs, GraphTrajectory) of an extracted thread or of a bare GraphTrajectory."""
    if (
        isinstance(value, Mapping)
        and "steps" not in value
        and isinstance(value.get("outputs"), Mapping)
    ):
        inputs = value.get("inputs")
        flat_steps(value["outputs"], f"{name}.outputs")
        return (list(inputs) if isinstance(inputs, list) else []), value["outputs"]
    flat_steps(value, name)
    assert isinstance(value, Mapping)
    inputs = value.get("inputs")
    return (list(inputs) if isinstance(inputs, list) else []), value


def _input(entries: Sequence[Any], index: int, invocations: int) -> dict[str, Any] | None:
    """An invocation's input; agentevals' inputs line up with invocations only when they count
    the same (a subgraph's start adds entries), otherwise none is guessed."""
    if len(entries) != invocations:
        return None
    entry = entries[index]
    if entry == RESUMING or not isinstance(entry, Mapping):
        return None
    if set(entry) == {START}:
        inner = entry[START]
        return dict(inner) if isinstance(inner, Mapping) else {"input": inner}
    return dict(entry)


def _result(results: Any, index: int) -> dict[str, Any] | None:
    if isinstance(results, list) and index < len(results) and isinstance(results[index], Mapping):
        return dict(results[index]) or None  # agentevals writes {} for an interrupted call
    return None


def from_agentevals_trajectory(
    outputs: object, reference_outputs: object = None
) -> AgentevalsConversion:
    """Runs (and references) that matchevals' evaluators read as agentevals meant them.

    Superstep boundaries are unknown in agentevals' lists, so each invocation becomes one run with
    one superstep holding its nodes in order, and a reference's list becomes one
    ``ReferenceStep(nodes, "exact")``: ``graph_trajectory_match`` then accepts a converted run
    where agentevals' strict match accepted the original. Pseudo-nodes (``__start__``,
    ``x:__start__``, ``__interrupt__``) are dropped: matchevals runs list only nodes that ran
    (an interrupt shows in ``results``), so two lists that differ only in them match.
    """
    top_inputs, trajectory = _unwrap(outputs, "outputs")
    steps = flat_steps(trajectory, "outputs")
    runs: list[GraphRunTrajectory] = []
    for index, names in enumerate(steps):
        kept = [name for name in names if not _is_pseudo(name)]
        runs.append(
            {
                "inputs": _input(top_inputs, index, len(steps)),
                "results": _result(trajectory.get("results"), index),
                "steps": [kept] if kept else [],
            }
        )
    if reference_outputs is None:
        return AgentevalsConversion(runs, None)
    _, reference = _unwrap(reference_outputs, "reference_outputs")
    references: list[GraphRunReferenceTrajectory] = []
    for index, names in enumerate(flat_steps(reference, "reference_outputs")):
        kept = [name for name in names if not _is_pseudo(name)]
        references.append(
            {
                "inputs": None,
                "results": _result(reference.get("results"), index),
                "steps": [ReferenceStep(kept, "exact")] if kept else [],
            }
        )
    return AgentevalsConversion(runs, references)


def _agentevals_name(name: str) -> str:
    """agentevals names a subgraph's node by the first namespace segment only."""
    parts = name.split(":")
    return name if len(parts) <= 2 else f"{parts[0]}:{parts[-1]}"


def _stopped(run: GraphRunTrajectory) -> bool:
    """It stopped on a node (a failure or an interrupt): its resume re-runs that node."""
    return run["results"] is None or "__interrupt__" in run["results"]


def _ends(run: GraphRunTrajectory, following: GraphRunTrajectory | None) -> bool:
    """Whether agentevals' reading ends an invocation with this call: it completed or a node
    interrupted; a failure or a static breakpoint (followed by a resume) leaves it open."""
    if run["results"] is None:
        return False
    if "__interrupt__" in run["results"]:
        return True
    return following is None or following["inputs"] is not None


def _names(
    run: GraphRunTrajectory,
    previous: GraphRunTrajectory | None,
    following: GraphRunTrajectory | None,
) -> list[str]:
    """One call's part of agentevals' node list."""
    supersteps = [list(step) for step in run["steps"]]
    fresh = run["inputs"] is not None
    if not fresh and previous is not None and _stopped(previous) and supersteps:
        supersteps = supersteps[1:]  # the re-run of what stopped: agentevals lists it once, before
    interrupted: list[str] | None = None
    if run["results"] is not None and "__interrupt__" in run["results"]:
        resumed = following is not None and following["inputs"] is None and following["steps"]
        interrupted = list(following["steps"][0]) if resumed and following else []
    names = [START] if fresh else []
    seen: set[str] = set()
    for position, superstep in enumerate(supersteps):
        last = position == len(supersteps) - 1
        for name in reversed(superstep):  # agentevals lists a superstep's tasks last one first
            namespace = name.rpartition(":")[0]
            if namespace and namespace not in seen:
                seen.add(namespace)
                names.append(_agentevals_name(f"{namespace}:{START}"))
            names.append(_agentevals_name(name))
            if last and interrupted and name in interrupted:
                names.append(INTERRUPT)
    if interrupted == [] and supersteps:
        names.append(INTERRUPT)
    return names


def _agentevals_result(run: GraphRunTrajectory) -> dict[str, Any]:
    results = run["results"]
    if results is None or "__interrupt__" in results:
        return {}
    messages = results.get("messages")
    if isinstance(messages, list) and messages:  # agentevals keeps the last message only
        return {"messages": _openai_messages(messages[-1:])}
    return dict(results)


def _openai_messages(messages: list[Any]) -> list[Any]:
    if not any(hasattr(message, "type") and hasattr(message, "content") for message in messages):
        return messages
    from langchain_core.messages import BaseMessage, convert_to_openai_messages

    if isinstance(messages[0], BaseMessage):
        converted: list[Any] = convert_to_openai_messages(messages)
        return converted
    return messages


def to_agentevals_trajectory(
    runs: GraphRunTrajectory | Sequence[GraphRunTrajectory],
) -> dict[str, Any]:
    """agentevals' thread trajectory for the runs of one thread (oldest first).

    >>> to_agentevals_trajectory({"inputs": {"q": 1}, "results": {"a": 2},
    ...                           "steps": [["a"], ["b", "c"], ["d"]]})
    {'inputs': [{'__start__': {'q': 1}}], 'outputs': {'inputs': [], 'results': [{'a': 2}], \
'steps': [['__start__', 'a', 'c', 'b', 'd']]}}

    agentevals' envelope and conventions, as its extraction reads the thread's history:
    ``__start__`` opens a fresh call (``x:__start__`` a subgraph's run), ``__interrupt__``
    follows the node that interrupted, a resume's input is ``"__resuming__"`` and its re-run of
    the interrupted node is left out; a call that failed or stopped at a static breakpoint is
    merged into the next one (a last one is left out), an interrupted one reports ``{}``, and a
    state with ``messages`` reports its last message. What a run does not record can differ
    from agentevals' own extraction of the same thread: the order of a parallel superstep's
    nodes (runs sort them; agentevals lists LangGraph's task order reversed), and agentevals'
    extra split of a call where a subgraph's own history ends. For agentevals' exact reading of
    a thread use :func:`matchevals.graph_trajectory.utils.extract_langgraph_trajectory_from_thread`.
    """
    listed: list[GraphRunTrajectory] = [runs] if isinstance(runs, Mapping) else list(runs)
    inputs: list[Any] = []
    results: list[Any] = []
    steps: list[list[str]] = []
    names: list[str] = []
    entries: list[Any] = []  # the inputs of the calls read into ``names`` so far
    for index, run in enumerate(listed):
        previous = listed[index - 1] if index else None
        following = listed[index + 1] if index + 1 < len(listed) else None
        if run["inputs"] is not None:
            entries.append({START: run["inputs"]})
        elif previous is not None and "__interrupt__" in (previous["results"] or {}):
            entries.append(RESUMING)
        names.extend(_names(run, previous, following))
        if _ends(run, following):
            inputs.extend(entries)
            steps.append(names)
            results.append(_agentevals_result(run))
            names, entries = [], []
    return {"inputs": inputs, "outputs": {"inputs": [], "results": results, "steps": steps}}
