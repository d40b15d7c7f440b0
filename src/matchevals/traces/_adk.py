"""Google ADK evaluation files as trajectories, one per invocation.

Read: eval sets (``.evalset.json``: ``eval_cases[].conversation[]``, the expected invocations)
and eval results (``eval_case_results[].eval_metric_result_per_invocation[]``, each with its
``actual_invocation`` and ``expected_invocation``), in ADK's snake_case or camelCase keys. An
invocation becomes: the user's message (``user_content``), then its tool calls with one tool
message each (content from the matching ``function_response``, else empty), then the final
response. ``intermediate_data.invocation_events`` keep their turns (the calls of one event are
one assistant turn); a flat ``intermediate_data.tool_uses`` records no turns, so each call is its
own turn (on both sides alike). ``args`` absent or null is read as ``{}``, as ADK compares it.

>>> cases = read_adk_data({"eval_set_id": "s", "eval_cases": [{"eval_id": "e1", "conversation": [
...     {"invocation_id": "i1", "user_content": {"parts": [{"text": "Weather?"}]},
...      "intermediate_data": {"tool_uses": [{"name": "weather", "args": {"city": "SF"}}]},
...      "final_response": {"parts": [{"text": "Sunny."}]}}]}]})
>>> [message["role"] for message in cases[0]["reference_outputs"]]
['user', 'assistant', 'tool', 'assistant']
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

__all__ = ["ADK_MATCH_TYPES", "AdkInvocation", "read_adk_data", "read_adk_eval"]

ADK_MATCH_TYPES = {"EXACT": "strict", "ANY_ORDER": "superset", "IN_ORDER": "in_order"}
"""ADK's tool-trajectory match types and the matchevals ``trajectory_match_mode`` that scores
the same way. ``IN_ORDER`` is ``in_order`` exactly where every call is its own turn (a flat
``tool_uses``); where an ``invocation_events`` event holds several calls, ``in_order`` takes
them as concurrent (in any order among themselves) where ADK reads them in the listed order."""


class AdkInvocation(TypedDict):
    """One invocation: ``outputs`` (the actual one, None in an eval set) beside its
    ``reference_outputs`` (the expected one), as OpenAI-style messages."""

    eval_id: str
    invocation_id: str
    outputs: list[dict[str, Any]] | None
    reference_outputs: list[dict[str, Any]]


def _get(value: Any, snake: str) -> Any:
    """A field under its snake_case name or its camelCase alias."""
    if not isinstance(value, Mapping):
        return None
    if snake in value:
        return value[snake]
    head, *rest = snake.split("_")
    return value.get(head + "".join(word.title() for word in rest))


def _parts(content: Any) -> list[Mapping[str, Any]]:
    parts = _get(content, "parts") or []
    return [part for part in parts if isinstance(part, Mapping)]


def _text(content: Any) -> str:
    return "".join(str(_get(part, "text")) for part in _parts(content) if _get(part, "text"))


def _call(raw: Any, at: str) -> dict[str, Any]:
    name, args = _get(raw, "name"), _get(raw, "args")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{at} is a function call without a name")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise ValueError(f"{at}.args is {type(args).__name__}; expected an object")
    call = {"type": "function", "function": {"name": name, "arguments": dict(args)}}
    call_id = _get(raw, "id")
    return {"id": str(call_id), **call} if call_id else call


def _turns(data: Any, at: str) -> list[tuple[list[dict[str, Any]], str]]:
    """(calls, text) per assistant turn, and the function responses by call id."""
    events = _get(data, "invocation_events")
    if events is not None:
        turns = []
        for index, event in enumerate(events):
            parts, where = _parts(_get(event, "content")), f"{at}.invocation_events[{index}]"
            calls = [
                _call(_get(part, "function_call"), f"{where}.content.parts[{number}]")
                for number, part in enumerate(parts)
                if _get(part, "function_call")
            ]
            if calls:
                turns.append((calls, _text(_get(event, "content"))))
        return turns
    uses = _get(data, "tool_uses") or []
    return [([_call(use, f"{at}.tool_uses[{index}]")], "") for index, use in enumerate(uses)]


def _responses(data: Any) -> dict[str, Any]:
    found = list(_get(data, "tool_responses") or [])
    for event in _get(data, "invocation_events") or ():
        found += [_get(part, "function_response") for part in _parts(_get(event, "content"))]
    return {str(_get(r, "id")): _get(r, "response") for r in found if r and _get(r, "id")}


def invocation_messages(invocation: Any, at: str) -> list[dict[str, Any]]:
    """One ADK invocation as OpenAI-style messages (see the module)."""
    if not isinstance(invocation, Mapping):
        raise TypeError(f"{at} is {type(invocation).__name__}; expected an invocation object")
    messages: list[dict[str, Any]] = [{"role": "user", "content": _text(_get(invocation, "user_content"))}]  # fmt: skip # noqa: E501
    data = _get(invocation, "intermediate_data")
    responses = _responses(data)
    for calls, text in _turns(data, f"{at}.intermediate_data"):
        messages.append({"role": "assistant", "content": text, "tool_calls": calls})
        for call in calls:
            result = responses.get(call.get("id", ""))
            content = "" if result is None else json.dumps(result, ensure_ascii=False, default=str)  # fmt: skip # noqa: E501
            messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})  # fmt: skip # noqa: E501
    final = _get(invocation, "final_response")
    if final is not None:
        messages.append({"role": "assistant", "content": _text(final)})
    return messages


def read_adk_data(data: Any) -> list[AdkInvocation]:
    """An eval set or eval result (parsed JSON) as one :class:`AdkInvocation` per invocation."""
    if _get(data, "eval_cases") is not None:
        return _eval_set(data)
    if _get(data, "eval_case_results") is not None:
        return _eval_results(data)
    raise ValueError(
        "expected an ADK eval set (with eval_cases) or eval result (with eval_case_results)"
    )


def _eval_set(data: Any) -> list[AdkInvocation]:
    found: list[AdkInvocation] = []
    for number, case in enumerate(_get(data, "eval_cases")):
        conversation = _get(case, "conversation")
        if conversation is None:
            raise ValueError(f"eval_cases[{number}] has no conversation (a conversation scenario is not a trajectory)")  # fmt: skip # noqa: E501
        for index, invocation in enumerate(conversation):
            at = f"eval_cases[{number}].conversation[{index}]"
            found.append(_entry(case, invocation, None, invocation_messages(invocation, at)))
    return found


def _eval_results(data: Any) -> list[AdkInvocation]:
    found: list[AdkInvocation] = []
    for number, case in enumerate(_get(data, "eval_case_results")):
        for index, result in enumerate(_get(case, "eval_metric_result_per_invocation") or ()):
            at = f"eval_case_results[{number}].eval_metric_result_per_invocation[{index}]"
            actual, expected = _get(result, "actual_invocation"), _get(result, "expected_invocation")  # fmt: skip # noqa: E501
            if expected is None:
                raise ValueError(f"{at} has no expected_invocation to score against")
            outputs = invocation_messages(actual, f"{at}.actual_invocation")
            references = invocation_messages(expected, f"{at}.expected_invocation")
            found.append(_entry(case, actual, outputs, references))
    return found


def _entry(case: Any, invocation: Any, outputs: Any, references: Any) -> AdkInvocation:
    return {
        "eval_id": str(_get(case, "eval_id")),
        "invocation_id": str(_get(invocation, "invocation_id") or ""),
        "outputs": outputs,
        "reference_outputs": references,
    }


def read_adk_eval(source: str | os.PathLike[str] | Mapping[str, Any]) -> list[AdkInvocation]:
    """An ADK eval set or eval result file (a path, or its parsed JSON) read per invocation.

    >>> read_adk_eval("weather.evalset.json")  # doctest: +SKIP
    """
    if isinstance(source, Mapping):
        return read_adk_data(source)
    with Path(source).open(encoding="utf-8") as file:
        return read_adk_data(json.load(file))
