"""Model turns and tool runs of one trace, put in order as one OpenAI-style message list.

Every source reader (OpenTelemetry GenAI and OpenInference spans, LangSmith runs) reduces what
it reads to :class:`ModelTurn` (one model response: its text and the tool calls it made) and
:class:`ToolRun` (one tool execution: the call it answers and its result); :func:`assemble` is
the one place they become messages:

- the conversation the first model call was given (system messages left out), then
- per model turn, in the order the turns started: one assistant message holding every call the
  response made (parallel calls keep their turn), followed by one tool message per call, in the
  order of the calls, with the result of the tool run tied to it (by call id; a run recorded
  without call id only when it is the one such run of that tool and the trace holds one call of
  that tool), or else
  the response a later model call was given for it.

Nothing is guessed: a tool run tied to no call, a call without a result although the agent went
on, a call id used twice, are :class:`TraceProblem` values naming the span.

>>> site = Site("t1", "s1", "chat")
>>> turn = ModelTurn((1,), site, "", [Call("c1", "get_weather", {"city": "SF"})],
...                  [{"role": "user", "content": "Weather?"}])
>>> run = ToolRun((2,), Site("t1", "s2", "execute_tool get_weather"), "c1", "get_weather", "sunny")
>>> messages, problems = assemble([turn], [run], {})
>>> [message["role"] for message in messages], problems
(['user', 'assistant', 'tool'], [])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from matchevals.traces._types import TraceProblem

__all__ = ["Call", "ModelTurn", "Site", "ToolRun", "assemble", "assistant_message", "content_text"]

Order = tuple[Any, ...]  # sorts turns and runs in the order they started


@dataclass(slots=True, frozen=True)
class Site:
    """Where something was recorded: a span (or a run) of a trace."""

    trace_id: str
    span_id: str | None
    name: str | None

    def problem(self, message: str) -> TraceProblem:
        return TraceProblem(self.trace_id, self.span_id, self.name, message)


@dataclass(slots=True)
class Call:
    """One tool call a model asked for; ``arguments`` is a JSON object."""

    id: str | None
    name: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class ModelTurn:
    """One model response. ``history`` is the conversation the model was given (OpenAI-style
    messages, system ones left out), or None when the span did not record it."""

    order: Order
    site: Site
    text: str | None
    calls: list[Call]
    history: list[dict[str, Any]] | None = None


@dataclass(slots=True)
class ToolRun:
    """One tool execution: the call it answers (``call_id`` and/or ``name``) and its result."""

    order: Order
    site: Site
    call_id: str | None
    name: str | None
    result: Any = None


@dataclass(slots=True)
class _Ties:
    by_id: dict[str, ToolRun] = field(default_factory=dict)
    anonymous: dict[str, list[ToolRun]] = field(default_factory=dict)  # runs without a call id
    used: set[int] = field(default_factory=set)  # id() of the runs tied to a call


def content_text(value: Any) -> str:
    """A tool result or message text as a message's ``content`` (text as is, else JSON).

    >>> content_text("sunny"), content_text({"temp": 21}), content_text(None)
    ('sunny', '{"temp": 21}', '')
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def assistant_message(turn: ModelTurn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if turn.calls:
        message["tool_calls"] = [_call_dict(call) for call in turn.calls]
    return message


def _call_dict(call: Call) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.arguments}
    if call.id is None:
        return {"type": "function", "function": function}
    return {"id": call.id, "type": "function", "function": function}


def _tool_message(call: Call, result: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id or "", "content": content_text(result)}


def _ties(runs: Sequence[ToolRun], problems: list[TraceProblem]) -> _Ties:
    ties = _Ties()
    for run in runs:
        if run.call_id is None:
            ties.anonymous.setdefault(run.name or "", []).append(run)
        elif run.call_id in ties.by_id:
            problems.append(run.site.problem(f"a second tool span for call id {run.call_id!r}"))
        else:
            ties.by_id[run.call_id] = run
    return ties


def _tie(call: Call, ties: _Ties, calls_named: Mapping[str, int]) -> ToolRun | None:
    run = ties.by_id.get(call.id) if call.id is not None else None
    if run is None:  # a run without call id: tied only when nothing else could be meant
        candidates = ties.anonymous.get(call.name, [])
        unique = len(candidates) == 1 and calls_named.get(call.name) == 1
        run = candidates[0] if unique else None
    if run is not None:
        ties.used.add(id(run))
    return run


def assemble(
    turns: Sequence[ModelTurn], runs: Sequence[ToolRun], answers: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[TraceProblem]]:
    """One trace's messages, and the problems that make them unreliable (see the module).

    ``answers`` maps call ids to the responses later model calls were given for them.
    """
    turns = sorted(turns, key=lambda turn: turn.order)
    runs = sorted(runs, key=lambda run: run.order)
    problems: list[TraceProblem] = []
    if not turns:
        problems.append(runs[0].site.problem(_NO_TURN))
        return [], problems
    first = turns[0]
    if first.history is None:
        problems.append(first.site.problem("the first model call records no input messages"))
    messages = list(first.history or [])
    ties, seen = _ties(runs, problems), set[str]()
    calls_named: dict[str, int] = {}
    for turn in turns:
        for call in turn.calls:
            calls_named[call.name] = calls_named.get(call.name, 0) + 1
    for index, turn in enumerate(turns):
        messages.append(assistant_message(turn))
        for call in turn.calls:
            if call.id is not None:
                if call.id in seen:
                    problems.append(turn.site.problem(f"tool call id {call.id!r} used twice"))
                seen.add(call.id)
            messages.extend(_result(call, turn, ties, calls_named, answers, index, turns, problems))  # fmt: skip # noqa: E501
    problems.extend(run.site.problem(_untied(run)) for run in runs if id(run) not in ties.used)
    return messages, problems


def _result(
    call: Call,
    turn: ModelTurn,
    ties: _Ties,
    calls_named: Mapping[str, int],
    answers: Mapping[str, Any],
    index: int,
    turns: Sequence[ModelTurn],
    problems: list[TraceProblem],
) -> list[dict[str, Any]]:
    run = _tie(call, ties, calls_named)
    if run is not None:
        if run.name is not None and run.name != call.name:
            problems.append(
                run.site.problem(f"runs tool {run.name!r} for call {call.id!r} of {call.name!r}")
            )
        return [_tool_message(call, run.result)]
    if call.id is not None and call.id in answers:
        return [_tool_message(call, answers[call.id])]
    if index + 1 < len(turns):  # the agent went on: the result exists but was not recorded
        which = f"call {call.id!r}" if call.id is not None else "call (no id)"
        problems.append(
            turn.site.problem(
                f"tool {which} of {call.name!r} has no result: no tool span answers it and no "
                "later model call was given its response"
            )
        )
    return []


_NO_TURN = (
    "a tool span, but the trace records no model call: the assistant turns that made the calls "
    "are unknown"
)


def _untied(run: ToolRun) -> str:
    if run.call_id is not None:
        return f"answers call id {run.call_id!r}, which no model call of this trace made"
    return (
        f"tool {run.name!r} has no call id and cannot be tied to one call: no model call, or "
        "several, asked for it without an id"
    )
