"""LangSmith run trees (the ``run`` an evaluator receives, or a run read back with its child
runs) as trajectories.

Messages: each ``llm`` run is one model turn (``outputs.generations[0][0].message``: its
text and ``tool_calls``); the first one's ``inputs.messages`` is the conversation's start;
each ``tool`` run answers the call whose id its output ``ToolMessage`` carries (by tool name
when it carries none and nothing else could be meant). Runs are read depth first, children in
the order they started. Graph runs: the chain runs LangGraph tags ``graph:step:N`` are replayed
through the same bookkeeping live capture uses, one :class:`GraphRunTrajectory` per top-level
graph invocation.

A run tree here is a dict (``id``, ``name``, ``run_type``, ``inputs``, ``outputs``, ``error``,
``tags``, ``extra.metadata`` or ``metadata``, ``start_time``, ``child_runs``); LangSmith ``Run``
objects are read by attribute into that shape first (:func:`run_dict`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from matchevals.graph_trajectory._live import Invocation, RunTree
from matchevals.graph_trajectory._types import GraphRunTrajectory
from matchevals.traces._assemble import ModelTurn, Site, ToolRun, assemble, assistant_message
from matchevals.traces._langchain_messages import LangChainMessage, read_message
from matchevals.traces._types import TraceProblem, TraceReading

__all__ = ["graph_runs", "read_run", "run_dict"]

_FIELDS = ("id", "name", "run_type", "inputs", "outputs", "error", "tags", "start_time", "trace_id")


def run_dict(run: Any) -> dict[str, Any]:
    """A LangSmith run (object or dict) and its children as plain dicts, children sorted by
    start time."""
    if isinstance(run, Mapping):
        fields = dict(run)
    else:
        fields = {name: getattr(run, name, None) for name in _FIELDS}
        fields["extra"] = getattr(run, "extra", None)
        fields["child_runs"] = getattr(run, "child_runs", None)
    extra = fields.get("extra")
    if "metadata" not in fields:
        fields["metadata"] = extra.get("metadata") if isinstance(extra, Mapping) else None
    children = [run_dict(child) for child in fields.get("child_runs") or ()]
    children.sort(key=_start_key)  # stable: runs without a start time keep their place
    fields["child_runs"] = children
    return fields


def _start_key(run: Mapping[str, Any]) -> str:
    start = run.get("start_time")
    return start.isoformat() if isinstance(start, datetime) else str(start or "")


def _walk(run: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield run
    for child in run.get("child_runs") or ():
        yield from _walk(child)


def read_run(run: Mapping[str, Any]) -> TraceReading:
    """The run tree's messages as one trajectory (or the problems that prevent it)."""
    trace_id = str(run.get("trace_id") or run.get("id"))
    turns: list[ModelTurn] = []
    runs: list[ToolRun] = []
    problems: list[TraceProblem] = []
    for position, node in enumerate(_walk(run)):
        site = Site(trace_id, str(node.get("id")), node.get("name"))
        kind = node.get("run_type")
        item: ModelTurn | ToolRun | TraceProblem | None = None
        if kind == "llm":
            item = _turn(node, (position,), site, first=not turns)
        elif kind == "tool":
            item = _tool(node, (position,), site)
        if isinstance(item, TraceProblem):
            problems.append(item)
        elif isinstance(item, ModelTurn):
            turns.append(item)
        elif isinstance(item, ToolRun):
            runs.append(item)
    if not problems and not turns and not runs:
        problems.append(TraceProblem(trace_id, None, None, "the run tree holds no llm or tool run"))  # fmt: skip # noqa: E501
    if problems:
        return TraceReading(problems=problems)
    messages, more = assemble(turns, runs, {})
    if more:
        return TraceReading(problems=more)
    root = str(run.get("id"))
    return TraceReading(trajectories=[{"trace_id": trace_id, "root_span_id": root, "messages": messages}])  # fmt: skip # noqa: E501


def _only(value: Any, at: str, what: str, site: Site) -> Any:
    """The one item of a one-item list (a batch of one, one generation), else a problem."""
    if not isinstance(value, (list, tuple)) or len(value) != 1:
        count = len(value) if isinstance(value, (list, tuple)) else 0
        return site.problem(f"{at} holds {count} {what}; a trajectory follows exactly one")
    return value[0]


def _turn(
    node: Mapping[str, Any], order: tuple[int], site: Site, *, first: bool
) -> ModelTurn | TraceProblem:
    outputs = node.get("outputs") or {}
    generations = _only(outputs.get("generations"), "outputs.generations", "batches", site)
    if isinstance(generations, TraceProblem):
        return generations
    generation = _only(generations, "outputs.generations[0]", "generations (choices)", site)
    if isinstance(generation, TraceProblem):
        return generation
    message = generation.get("message") if isinstance(generation, Mapping) else None
    read = read_message(message, "outputs.generations[0][0].message", site)
    if isinstance(read, TraceProblem):
        return read
    turn = ModelTurn(order, site, read.text, read.calls)
    if first:
        history = _history(node, site)
        if isinstance(history, TraceProblem):
            return history
        turn.history = history
    return turn


def _history(node: Mapping[str, Any], site: Site) -> list[dict[str, Any]] | TraceProblem:
    batches = (node.get("inputs") or {}).get("messages")
    if batches is None:
        return site.problem("an llm run without inputs.messages (not a chat model)")
    messages = batches[0] if batches and isinstance(batches[0], (list, tuple)) else batches
    if batches and isinstance(batches[0], (list, tuple)) and len(batches) != 1:
        return site.problem(f"inputs.messages holds {len(batches)} batches; a trajectory follows one")  # fmt: skip # noqa: E501
    history: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        read = read_message(message, f"inputs.messages[0][{index}]", site)
        if isinstance(read, TraceProblem):
            return read
        if read.role != "system":
            history.append(_openai(read, site))
    return history


def _openai(message: LangChainMessage, site: Site) -> dict[str, Any]:
    if message.role == "assistant":
        return assistant_message(ModelTurn((), site, message.text, message.calls))
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.text or ""}  # fmt: skip # noqa: E501
    return {"role": message.role, "content": message.text or ""}


def _tool(node: Mapping[str, Any], order: tuple[int], site: Site) -> ToolRun:
    output = (node.get("outputs") or {}).get("output")
    read = read_message(output, "outputs.output", site) if output is not None else None
    if isinstance(read, LangChainMessage) and read.role == "tool":
        return ToolRun(order, site, read.tool_call_id, node.get("name"), read.text)
    return ToolRun(order, site, None, node.get("name"), output)


def graph_runs(run: Mapping[str, Any]) -> list[GraphRunTrajectory]:
    """The LangGraph invocations in the run tree, superstep by superstep."""
    found: list[Invocation] = []
    tree = RunTree(found.append, _is_command, lambda error: None)
    _replay(tree, run, None)
    return [invocation.trajectory() for invocation in found]


def _is_command(value: Any) -> bool:
    return type(value).__name__ == "Command"


def _replay(tree: RunTree, run: Mapping[str, Any], parent: Any) -> None:
    run_id, kind = run.get("id"), run.get("run_type")
    tree.start(run_id, parent, run.get("tags"), run.get("metadata"), run.get("inputs"), chain=kind == "chain")  # type: ignore[arg-type] # fmt: skip # noqa: E501
    for child in run.get("child_runs") or ():
        _replay(tree, child, run_id)
    if run.get("error"):
        tree.error(run_id, RuntimeError(str(run["error"])))  # type: ignore[arg-type]
    else:
        tree.end(run_id, run.get("outputs"))  # type: ignore[arg-type]
