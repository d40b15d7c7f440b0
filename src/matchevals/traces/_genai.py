"""OpenTelemetry GenAI semantic conventions (1.37 to 1.41): one span read as a model turn or a
tool run.

Read (see the traces guide for the table):

- spans whose ``gen_ai.operation.name`` is ``chat``, ``text_completion`` or
  ``generate_content``: ``gen_ai.output.messages`` (one assistant message; its ``tool_call``
  parts are the turn's calls, ``id``, ``name``, ``arguments``) and ``gen_ai.input.messages`` (the
  conversation given to the model; ``tool_call_response`` parts answer earlier calls), as span
  attributes or on the span's ``gen_ai.client.inference.operation.details`` event;
- ``execute_tool`` spans: ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
  ``gen_ai.tool.call.result``.

Refused, naming the span: a chat span without output messages (content capture off), the
event-based shape of 1.28 to 1.36 and the flattened ``gen_ai.prompt.*`` / ``gen_ai.completion.*``
attributes of earlier versions, a schema URL newer than 1.41, several output messages (choices),
a tool call without its name or arguments, arguments that are not a JSON object.

>>> span = {"trace_id": "t", "span_id": "s", "name": "chat", "start_time": 1, "attributes": {
...     "gen_ai.operation.name": "chat",
...     "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "tool_call", '
...         '"id": "c1", "name": "search", "arguments": {"q": "x"}}]}]'}}
>>> read_genai_span(span, span["attributes"]).calls
[Call(id='c1', name='search', arguments={'q': 'x'})]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from matchevals.traces._assemble import Call, ModelTurn, Site, ToolRun
from matchevals.traces._types import TraceProblem

__all__ = [
    "CHAT_OPERATIONS",
    "KNOWN_VERSIONS",
    "SpanItem",
    "arguments_object",
    "check_schema",
    "order_of",
    "read_genai_span",
    "site_of",
    "tool_call",
]

CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
KNOWN_VERSIONS = ((1, 37), (1, 41))  # the JSON message attributes, first and last version read
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_EVENT_MESSAGES = frozenset(
    {"gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message",
     "gen_ai.tool.message", "gen_ai.choice"}
)  # fmt: skip
_SCHEMA = re.compile(r"/schemas/(\d+)\.(\d+)(?:\.\d+)?/?$")

SpanItem = ModelTurn | ToolRun | TraceProblem | None


def site_of(span: Mapping[str, Any]) -> Site:
    return Site(str(span.get("trace_id")), str(span.get("span_id")), span.get("name"))


def order_of(span: Mapping[str, Any]) -> tuple[Any, ...]:
    start, end = span.get("start_time") or 0, span.get("end_time") or 0
    return (start, end, str(span.get("span_id")))


def check_schema(url: str) -> str | None:
    """Why a GenAI span's schema URL names a version this reader does not know (else None).

    >>> check_schema("https://opentelemetry.io/schemas/1.37.0") is None
    True
    >>> check_schema("https://opentelemetry.io/schemas/1.52.0")[:42]
    'written under semantic conventions 1.52 (s'
    """
    found = _SCHEMA.search(url)
    if found is None:
        return None  # not an OpenTelemetry schema URL: read by shape
    version = (int(found.group(1)), int(found.group(2)))
    if version > KNOWN_VERSIONS[1]:
        return (
            f"written under semantic conventions {found.group(1)}.{found.group(2)} (schema URL "
            f"{url}); this reader knows the GenAI conventions 1.37 to 1.41"
        )
    return None


def read_genai_span(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> SpanItem:
    """The span as a model turn, a tool run, a problem, or None when it is neither."""
    operation = attributes.get("gen_ai.operation.name")
    if operation in CHAT_OPERATIONS:
        return _chat(span, attributes)
    if operation == "execute_tool":
        return _tool(span, attributes)
    return None


def _tool(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> SpanItem:
    site, name = site_of(span), attributes.get("gen_ai.tool.name")
    call_id = attributes.get("gen_ai.tool.call.id")
    if name is not None and not isinstance(name, str):
        return site.problem(f"gen_ai.tool.name is {type(name).__name__}, not a string")
    if name is None and call_id is None:
        return site.problem("an execute_tool span with neither gen_ai.tool.name nor gen_ai.tool.call.id")  # fmt: skip # noqa: E501
    result = attributes.get("gen_ai.tool.call.result")
    return ToolRun(order_of(span), site, _text_or_none(call_id), name, result)


def _text_or_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _messages_source(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    if "gen_ai.output.messages" in attributes:
        return attributes
    for event in span.get("events") or ():
        if event.get("name") == DETAILS_EVENT:
            return event.get("attributes") or {}
    return attributes


def _chat(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> SpanItem:
    site = site_of(span)
    source = _messages_source(span, attributes)
    raw = source.get("gen_ai.output.messages")
    if raw is None:
        return site.problem(_why_no_output(span, attributes))
    output = _json_list(raw, "gen_ai.output.messages", site)
    if isinstance(output, TraceProblem):
        return output
    if len(output) != 1:
        return site.problem(
            f"gen_ai.output.messages holds {len(output)} messages (choices); a trajectory "
            "follows one model response"
        )
    turn = _turn(output[0], "gen_ai.output.messages[0]", site, order_of(span))
    if isinstance(turn, TraceProblem):
        return turn
    raw_input = source.get("gen_ai.input.messages")
    if raw_input is not None:
        history = _json_list(raw_input, "gen_ai.input.messages", site)
        if isinstance(history, TraceProblem):
            return history
        turn.history = history  # converted by the caller (only the first turn's is kept)
    return turn


def _why_no_output(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> str:
    events = {str(event.get("name")) for event in span.get("events") or ()}
    if events & _EVENT_MESSAGES:
        return (
            "records its messages as events (GenAI semantic conventions 1.28 to 1.36), which "
            "this reader does not read; record with OTEL_SEMCONV_STABILITY_OPT_IN="
            "gen_ai_latest_experimental to get gen_ai.input.messages / gen_ai.output.messages"
        )
    if any(key.startswith(("gen_ai.completion.", "gen_ai.prompt.")) for key in attributes):
        return (
            "records gen_ai.prompt.* / gen_ai.completion.* attributes (conventions before "
            "1.28), which this reader does not read; it reads gen_ai.output.messages (1.37+)"
        )
    return (
        "a chat span without gen_ai.output.messages: turn on message content capture "
        "(e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"
    )


def _json_list(raw: Any, attribute: str, site: Site) -> list[Any] | TraceProblem:
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError as error:
            return site.problem(f"{attribute} is not valid JSON: {error}")
    elif isinstance(raw, tuple):
        value = [json.loads(item) if isinstance(item, str) else item for item in raw]
    if not isinstance(value, list):
        return site.problem(f"{attribute} is {type(value).__name__}; expected a list of messages")
    return value


def _turn(message: Any, at: str, site: Site, order: tuple[Any, ...]) -> ModelTurn | TraceProblem:
    if not isinstance(message, Mapping) or not isinstance(message.get("parts"), list):
        return site.problem(f"{at} is not a message with a list of parts")
    texts, calls = [], []
    for index, part in enumerate(message["parts"]):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            call = tool_call(part, f"{at}.parts[{index}]", site)
            if isinstance(call, TraceProblem):
                return call
            calls.append(call)
    return ModelTurn(order, site, "".join(texts) or None, calls)


def tool_call(part: Mapping[str, Any], at: str, site: Site) -> Call | TraceProblem:
    """A ``tool_call`` part as a call: its name, id, and arguments (an object, or JSON text)."""
    name = part.get("name")
    if not isinstance(name, str) or not name:
        return site.problem(f"{at} is a tool call without a name")
    arguments = arguments_object(part.get("arguments"), f"{at}.arguments ({name})", site)
    if isinstance(arguments, TraceProblem):
        return arguments
    return Call(_text_or_none(part.get("id")), name, arguments)


def arguments_object(raw: Any, at: str, site: Site) -> dict[str, Any] | TraceProblem:
    """Tool-call arguments as a JSON object: absent ones and anything else are refused."""
    if raw is None:
        return site.problem(f"{at} is missing: the tool call's arguments are not recorded")
    value = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            return site.problem(f"{at} is not valid JSON: {error}")
    if not isinstance(value, dict):
        return site.problem(f"{at} is {type(value).__name__}; expected a JSON object")
    return value
