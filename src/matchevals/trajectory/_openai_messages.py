"""Trajectories as openevals hands them to a judge: OpenAI-style message dicts, and their text.

Messages go through langchain-core's ``convert_to_openai_messages`` after the preparation
openevals applies (a tool call without an id gets ``""``, a tool message without
``tool_call_id`` gets ``""``, ``None`` content becomes ``""``), so a judge is shown exactly what
openevals shows it. Forms langchain-core misreads are read first: LangChain's
``messages_to_dict`` form (``{"type": "ai", "data": {...}}``, whose tool calls it drops),
LangChain ``tool_call`` content blocks and OpenAI Responses ``function_call`` blocks (which
langchain-core before 1.0 refuses). langchain-core is imported on first use.

>>> text = trajectory_text(openai_messages([
...     {"role": "user", "content": "Weather in SF?"},
...     {"role": "ai", "content": "", "tool_calls": [
...         {"name": "get_weather", "args": {"city": "SF"}, "id": "1"}]}]))
>>> print(text)
<user>
Weather in SF?
</user>
<BLANKLINE>
<assistant>
<tool_call>
<name>get_weather</name>
<arguments>{"city": "SF"}</arguments>
</tool_call>
</assistant>
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["openai_message", "openai_messages", "trajectory_text"]

_DICT_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat", "developer"})


def _lifted(message: Any) -> Any:
    """A message in a form langchain-core misreads, rewritten in one it reads (else as is)."""
    if isinstance(message, Mapping):
        if set(message) == {"type", "data"} and message["type"] in _DICT_TYPES:
            from langchain_core.messages import messages_from_dict

            return messages_from_dict([dict(message)])[0]
        content = message.get("content")
        if isinstance(content, list) and not message.get("tool_calls"):
            blocks = [b for b in content if isinstance(b, Mapping) and b.get("type") in _CALLS]
            if blocks:
                calls = [_CALLS[block["type"]](block) for block in blocks]
                rest = [b for b in content if not any(b is block for block in blocks)]
                return {**message, "content": rest or "", "tool_calls": calls}
    return message


def _responses_call(block: Mapping[str, Any]) -> dict[str, Any]:
    arguments = block.get("arguments") or "{}"
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError as error:
        raise ValueError(
            f"a function_call block's arguments are not valid JSON ({error.msg}): {arguments!r}"
        ) from None
    return {"name": block.get("name"), "args": args, "id": block.get("call_id")}


# Tool calls written as content blocks, read here (every langchain-core version reads the
# resulting ``tool_calls``; older ones refuse OpenAI Responses' ``function_call`` blocks).
_CALLS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "tool_call": lambda b: {"name": b.get("name"), "args": b.get("args", {}), "id": b.get("id")},
    "function_call": _responses_call,
}


def openai_message(message: Any, *, lift: bool = True) -> dict[str, Any]:
    """One message as openevals converts it for a judge (and, with ``lift=False``, exactly as
    it converts it for its trajectory match)."""
    from langchain_core.messages import BaseMessage, convert_to_openai_messages

    if lift:
        message = _lifted(message)
    if not isinstance(message, BaseMessage):
        message = dict(message)
        if message.get("role") in ("ai", "assistant") and message.get("tool_calls"):
            message["tool_calls"] = [{**call, "id": call.get("id", "")} for call in message["tool_calls"]]  # fmt: skip # noqa: E501
        if message.get("role") == "tool" and message.get("tool_call_id") is None:
            message["tool_call_id"] = ""
        if message.get("content") is None:
            message["content"] = ""
    converted: dict[str, Any] = convert_to_openai_messages([message])[0]
    if isinstance(message, BaseMessage):
        if message.id is not None and converted.get("id") is None:
            converted["id"] = message.id
    elif message.get("id") is not None and converted.get("id") is None:
        converted["id"] = message.get("id")
    return converted


def openai_messages(messages: Any) -> list[dict[str, Any]]:
    """A trajectory (a list, ``{"messages": [...]}``, one message, or None) as openevals reads
    it for a judge."""
    if messages is None:
        return []
    if isinstance(messages, dict):
        if "role" in messages:
            messages = [messages]
        elif "messages" in messages:
            messages = messages["messages"]
        else:
            raise ValueError("if messages is a dict, it must contain a 'messages' key")
    if not isinstance(messages, list):
        messages = [messages]
    return [openai_message(message) for message in messages]


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content", "")
    calls = message.get("tool_calls") or []
    if calls:
        rendered = "\n".join(
            "<tool_call>\n"
            f"<name>{call.get('function', {}).get('name', '')}</name>\n"
            f"<arguments>{call.get('function', {}).get('arguments', '')}</arguments>\n"
            "</tool_call>"
            for call in calls
        )
        content = f"{content}\n{rendered}" if content else rendered
    if message.get("tool_call_id"):
        content = (
            f"<tool_result>\n<id>{message.get('tool_call_id')}</id>\n"
            f"<content>{content}</content>\n</tool_result>"
        )
    role = message.get("role", "")
    return f"<{role}>\n{content}\n</{role}>"


def trajectory_text(messages: list[dict[str, Any]]) -> str:
    """The text a judge reads: each message in ``<role>`` tags, tool calls and results marked."""
    return "\n\n".join(_message_text(message) for message in messages)
