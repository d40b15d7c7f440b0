"""OpenInference spans (Phoenix, Arize): one span read as a model turn or a tool run.

OpenInference flattens messages into attributes (``llm.output_messages.0.message.tool_calls.1.
tool_call.function.name``); they are nested back, then read as the GenAI ones are:

- ``openinference.span.kind`` ``LLM``: ``llm.output_messages`` (one message; its
  ``message.tool_calls.N.tool_call`` are the turn's calls: ``id``, ``function.name``,
  ``function.arguments``, JSON text) and ``llm.input_messages`` (``message.role``,
  ``message.content``, ``message.tool_calls``, ``message.tool_call_id`` of tool messages);
- ``TOOL``: ``tool.name``, ``tool_call.id`` when recorded, ``output.value``.

>>> attributes = {"openinference.span.kind": "LLM",
...     "llm.output_messages.0.message.role": "assistant",
...     "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
...     "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "search",
...     "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"q": "x"}'}
>>> read_openinference_span({"trace_id": "t", "span_id": "s", "name": "llm"}, attributes).calls
[Call(id='c1', name='search', arguments={'q': 'x'})]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matchevals.traces._assemble import (
    Call,
    ModelTurn,
    Site,
    ToolRun,
    assistant_message,
    content_text,
)
from matchevals.traces._genai import SpanItem, arguments_object, order_of, site_of
from matchevals.traces._types import TraceProblem

__all__ = ["KIND", "nested", "read_openinference_history", "read_openinference_span"]

KIND = "openinference.span.kind"
_LEFT_OUT = frozenset({"system", "developer"})


def nested(attributes: Mapping[str, Any], prefix: str) -> list[Any]:
    """The flattened list under ``prefix`` (``llm.output_messages``) nested back, in index order.

    >>> nested({"x.1.a": 2, "x.0.a": 1, "x.0.b.0.c": 3}, "x")
    [{'a': 1, 'b': [{'c': 3}]}, {'a': 2}]
    """
    root: dict[str, Any] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        node = root
        *path, last = key[len(start) :].split(".")
        for step in path:
            node = node.setdefault(step, {})
            if not isinstance(node, dict):
                break
        else:
            node[last] = value
    return _lists(root)  # type: ignore[no-any-return]


def _lists(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(key.isdigit() for key in node):
        return [_lists(node[key]) for key in sorted(node, key=int)]
    return {key: _lists(value) for key, value in node.items()}


def read_openinference_span(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> SpanItem:
    """The span as a model turn, a tool run, a problem, or None when it is neither."""
    kind = attributes.get(KIND)
    site = site_of(span)
    if kind == "TOOL":
        name = attributes.get("tool.name")
        call_id = attributes.get("tool_call.id")
        if not isinstance(name, str):
            return site.problem("a TOOL span without tool.name")
        result = attributes.get("output.value")
        return ToolRun(order_of(span), site, None if call_id is None else str(call_id), name, result)  # fmt: skip # noqa: E501
    if kind != "LLM":
        return None
    output = nested(attributes, "llm.output_messages")
    if not output:
        return site.problem("an LLM span without llm.output_messages")
    if len(output) != 1:
        return site.problem(
            f"llm.output_messages holds {len(output)} messages (choices); a trajectory follows "
            "one model response"
        )
    message = _message(output[0])
    calls = _calls(message, "llm.output_messages.0", site)
    if isinstance(calls, TraceProblem):
        return calls
    text = message.get("content")
    return ModelTurn(order_of(span), site, text if isinstance(text, str) else None, calls)


def _message(item: Any) -> Mapping[str, Any]:
    message = item.get("message") if isinstance(item, Mapping) else None
    return message if isinstance(message, Mapping) else {}


def _calls(message: Mapping[str, Any], at: str, site: Site) -> list[Call] | TraceProblem:
    calls: list[Call] = []
    for index, item in enumerate(message.get("tool_calls") or ()):
        call = item.get("tool_call") if isinstance(item, Mapping) else None
        function = call.get("function") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        where = f"{at}.message.tool_calls.{index}.tool_call"
        if not isinstance(name, str) or not name or not isinstance(call, Mapping):
            return site.problem(f"{where} is a tool call without function.name")
        raw = function.get("arguments") if isinstance(function, Mapping) else None
        arguments = arguments_object(raw, f"{where}.function.arguments ({name})", site)
        if isinstance(arguments, TraceProblem):
            return arguments
        call_id = call.get("id")
        calls.append(Call(None if call_id is None else str(call_id), name, arguments))
    return calls


def read_openinference_history(
    attributes: Mapping[str, Any], site: Site
) -> tuple[list[dict[str, Any]], dict[str, Any]] | TraceProblem | None:
    """``llm.input_messages`` as OpenAI-style messages (system ones left out) and the tool
    responses by call id; None when the span records no input messages."""
    items = nested(attributes, "llm.input_messages")
    if not items:
        return None
    history: list[dict[str, Any]] = []
    answers: dict[str, Any] = {}
    for index, item in enumerate(items):
        message = _message(item)
        role = message.get("role")
        if not isinstance(role, str):
            return site.problem(f"llm.input_messages.{index}.message.role is missing")
        if role in _LEFT_OUT:
            continue
        text = content_text(message.get("content"))
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            answers[call_id] = message.get("content")
            history.append({"role": "tool", "tool_call_id": call_id, "content": text})
            continue
        calls = _calls(message, f"llm.input_messages.{index}", site)
        if isinstance(calls, TraceProblem):
            return calls
        if role == "assistant":
            history.append(assistant_message(ModelTurn((), site, text or None, calls)))
        elif calls:
            return site.problem(f"llm.input_messages.{index} is a {role} message with tool calls")
        else:
            history.append({"role": role, "content": text})
    return history, answers
