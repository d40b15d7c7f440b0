"""LangChain messages in every form a LangSmith run holds them (message objects, the serialized
``{"lc": 1, ...}`` envelope, ``{"type": ..., "data": ...}``, plain dicts) read as role, text,
tool calls and the call a tool message answers. Read by attribute and key; LangChain is never
imported.

>>> read_message({"lc": 1, "type": "constructor", "id": ["langchain", "AIMessage"],
...     "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "c1"}]}},
...     "message", Site("t", "r", "model")).calls
[Call(id='c1', name='f', arguments={'x': 1})]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from matchevals.traces._assemble import Call, Site
from matchevals.traces._genai import arguments_object
from matchevals.traces._types import TraceProblem

__all__ = ["LangChainMessage", "read_message", "text_of"]

_ROLES = {
    "human": "user", "user": "user", "HumanMessage": "user", "HumanMessageChunk": "user",
    "ai": "assistant", "assistant": "assistant", "AIMessage": "assistant",
    "AIMessageChunk": "assistant", "tool": "tool", "ToolMessage": "tool",
    "ToolMessageChunk": "tool", "system": "system", "developer": "system",
    "SystemMessage": "system", "SystemMessageChunk": "system",
}  # fmt: skip


class LangChainMessage(NamedTuple):
    role: str  # user, assistant, tool or system
    text: str | None
    calls: list[Call]
    tool_call_id: str | None


def _fields(message: Any) -> Mapping[str, Any] | None:
    if isinstance(message, Mapping):
        if message.get("lc") == 1 and isinstance(message.get("kwargs"), Mapping):
            ids = message.get("id")
            kind = ids[-1] if isinstance(ids, list) and ids else None
            return {**message["kwargs"], "type": kind}
        if "data" in message and isinstance(message["data"], Mapping) and "content" not in message:
            return {**message["data"], "type": message.get("type")}
        return message
    if hasattr(message, "type") and hasattr(message, "content"):
        names = ("type", "content", "tool_calls", "invalid_tool_calls", "tool_call_id")
        return {name: getattr(message, name, None) for name in names}
    return None


def text_of(content: Any) -> str | None:
    """A message's text: the content string, or its text blocks joined."""
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        texts = [
            block if isinstance(block, str) else block.get("text")
            for block in content
            if isinstance(block, str)
            or (isinstance(block, Mapping) and block.get("type") == "text")
        ]
        return "".join(text for text in texts if isinstance(text, str)) or None
    return None


def read_message(message: Any, at: str, site: Site) -> LangChainMessage | TraceProblem:
    """One message, or the problem naming where it is (``at``) in the run."""
    fields = _fields(message)
    if fields is None:
        return site.problem(f"{at} is not a message ({type(message).__name__})")
    kind = fields.get("role") or fields.get("type")
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    if role is None:
        return site.problem(f"{at} is a message of type {kind!r}, not one a trajectory holds")
    if fields.get("invalid_tool_calls"):
        return site.problem(f"{at} holds tool calls LangChain could not parse (invalid_tool_calls)")  # fmt: skip # noqa: E501
    calls: list[Call] = []
    for index, raw in enumerate(fields.get("tool_calls") or ()):
        call = _call(raw, f"{at}.tool_calls[{index}]", site)
        if isinstance(call, TraceProblem):
            return call
        calls.append(call)
    answered = fields.get("tool_call_id")
    return LangChainMessage(
        role, text_of(fields.get("content")), calls, None if answered is None else str(answered)
    )


def _call(raw: Any, at: str, site: Site) -> Call | TraceProblem:
    if not isinstance(raw, Mapping):
        return site.problem(f"{at} is not a tool call")
    function = raw.get("function")
    if isinstance(function, Mapping):  # OpenAI's form
        name, arguments = function.get("name"), function.get("arguments")
    else:
        name, arguments = raw.get("name"), raw.get("args")
    if not isinstance(name, str) or not name:
        return site.problem(f"{at} is a tool call without a name")
    parsed = arguments_object(arguments, f"{at}.args ({name})", site)
    if isinstance(parsed, TraceProblem):
        return parsed
    call_id = raw.get("id")
    return Call(None if call_id is None else str(call_id), name, parsed)
