"""Reading trajectories as they come into :class:`Message` and :class:`ToolCall` values.

Accepted, on either side:

- a list of messages, ``{"messages": [...]}`` (a LangGraph state: other keys are state, not
  trajectory) or a single message;
- OpenAI-style dicts (``role``, ``tool_calls: [{"function": {"name", "arguments"}}]``),
  LangChain message dicts (``type``/``role``, ``tool_calls: [{"name", "args"}]``, also inside
  LangChain's serialized ``{"lc": 1, "type": "constructor", ...}`` envelope) and LangChain
  message objects (recognized by their attributes; langchain is never imported here);
- tool calls as content blocks: Anthropic ``tool_use`` (``input``), OpenAI Responses
  ``function_call`` (``arguments``) and LangChain ``tool_call`` (``args``), merged with
  ``tool_calls`` by id as LangChain merges them; Anthropic ``tool_result`` blocks of a user
  message become one ``tool`` message each (followed by the rest of the user message, if any);
- arguments as a JSON object or a JSON string encoding one (OpenAI's ``""`` or ``None`` for a
  tool without parameters is ``{}``, as LangChain reads it).

Anything else is a TypeError or ValueError naming the message and field, e.g.
``outputs[3].tool_calls[1].function.arguments is not valid JSON: ...``. Message text is read
only to find tool calls; it is never compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from matchevals.trajectory._json import describe_type, render
from matchevals.trajectory._types import Message, ToolCall, Trajectory

__all__ = ["read_trajectory"]

ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
    "HumanMessageChunk": "user",
    "AIMessageChunk": "assistant",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "function",
}
"""Message roles and LangChain message types, by the role strict mode compares."""

_CHAT_TYPES = frozenset({"chat", "ChatMessageChunk"})  # LangChain ChatMessage: its own role
_LC_CONSTRUCTOR_TYPES = {
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "FunctionMessage": "function",
    "FunctionMessageChunk": "function",
    "ChatMessage": "chat",
    "ChatMessageChunk": "chat",
}
_CALL_BLOCKS = {  # content block type -> (id key, arguments key)
    "tool_use": ("id", "input"),
    "function_call": ("call_id", "arguments"),
    "tool_call": ("id", "args"),
}
_EXPECTED_MESSAGE = "expected a message: a dict with 'role' (or 'type'), or a LangChain message"


def read_trajectory(value: Any, side: str) -> Trajectory:
    """Normalize one side (``side`` is ``"outputs"`` or ``"reference_outputs"``).

    >>> (message,) = read_trajectory([{"role": "ai", "tool_calls": [
    ...     {"name": "search", "args": {"q": "x"}}]}], "outputs")
    >>> message.role, message.tool_calls[0].name, message.tool_calls[0].args
    ('assistant', 'search', {'q': 'x'})
    """
    items, base = _message_list(value, side)
    messages: list[Message] = []
    for index, item in enumerate(items):
        _read_message(item, f"{base}[{index}]", messages)
    return tuple(messages)


def _message_list(value: Any, side: str) -> tuple[Sequence[Any], str]:
    if value is None:
        raise TypeError(
            f"{side} is None; expected a list of messages (pass [] for an empty trajectory)"
        )
    if isinstance(value, Mapping):
        if "role" in value or ("type" in value and "content" in value and "messages" not in value):
            return [value], side
        if "messages" in value:
            messages = value["messages"]
            if isinstance(messages, (list, tuple)):
                return messages, f"{side}.messages"
            raise TypeError(f"{side}.messages is {_a(messages)}; expected a list of messages")
        keys = ", ".join(repr(key) for key in list(value)[:5]) or "none"
        raise ValueError(
            f"{side} is a dict without 'messages' or 'role' (keys: {keys}); expected a list of "
            "messages, a dict with 'messages' (such as a LangGraph state) or one message"
        )
    if isinstance(value, (list, tuple)):
        return value, side
    if _is_langchain_message(value):
        return [value], side
    raise TypeError(f"{side} is {_a(value)}; expected a list of messages")


def _a(value: Any) -> str:
    name = describe_type(value)
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _is_langchain_message(value: Any) -> bool:
    return (
        not isinstance(value, (Mapping, str, bytes))
        and isinstance(getattr(value, "type", None), str)
        and hasattr(value, "content")
    )


def _read_message(item: Any, at: str, messages: list[Message]) -> None:
    if isinstance(item, Mapping):
        fields = _unwrap_envelope(item, at)
        role = _dict_role(fields, at)
        function_call = fields.get("function_call")
        tool_calls = fields.get("tool_calls")
        invalid = fields.get("invalid_tool_calls")
        content = fields.get("content")
        calls_field = f"{at}.tool_calls"
    elif _is_langchain_message(item):
        role = _object_role(item, at)
        kwargs = getattr(item, "additional_kwargs", None)
        function_call = kwargs.get("function_call") if isinstance(kwargs, Mapping) else None
        tool_calls = getattr(item, "tool_calls", None)
        invalid = getattr(item, "invalid_tool_calls", None)
        content = item.content
        calls_field = f"{at}.tool_calls"
    else:
        raise TypeError(f"{at} is {_a(item)}; {_EXPECTED_MESSAGE}")
    if function_call is not None:
        raise ValueError(
            f"{at}.function_call: legacy OpenAI function calls are not read; "
            "express the call in tool_calls"
        )
    if invalid:
        _refuse_invalid_calls(invalid, at)
    index = len(messages)
    calls, ids = _calls_from_field(tool_calls, calls_field, index)
    blocks = content if isinstance(content, (list, tuple)) else ()
    calls = _merge_block_calls(calls, ids, blocks, at, index)
    if calls and role != "assistant":
        raise ValueError(
            f"{calls[0].at}: a {role} message makes no tool calls; only assistant messages do"
        )
    if role == "user" and any(_block_type(block) == "tool_result" for block in blocks):
        _expand_tool_results(blocks, at, messages)
        return
    messages.append(Message(role, at, calls))


def _unwrap_envelope(item: Mapping[str, Any], at: str) -> Mapping[str, Any]:
    """LangChain's serialized form ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
    "kwargs": {...}}`` as the message dict it stands for."""
    if item.get("lc") != 1 or item.get("type") != "constructor":
        return item
    ids, kwargs = item.get("id"), item.get("kwargs")
    kind = _LC_CONSTRUCTOR_TYPES.get(ids[-1]) if isinstance(ids, list) and ids else None
    if kind is None or not isinstance(kwargs, Mapping):
        raise ValueError(f"{at} is a serialized LangChain object that is not a message: {ids!r}")
    return {**kwargs, "type": kind}


def _dict_role(fields: Mapping[str, Any], at: str) -> str:
    if "role" in fields:
        name, raw = "role", fields["role"]
    elif "type" in fields:
        name, raw = "type", fields["type"]
    else:
        raise ValueError(f"{at} has no 'role' (or 'type'); {_EXPECTED_MESSAGE}")
    if isinstance(raw, str):
        if raw in _CHAT_TYPES and isinstance(fields.get("role"), str):
            raw = fields["role"]
        role = ROLES.get(raw)
        if role is not None:
            return role
    known = ", ".join(sorted({key for key in ROLES if key.islower()}))
    raise ValueError(f"{at}.{name} is {render(raw)}; expected one of {known}")


def _object_role(item: Any, at: str) -> str:
    kind: str = item.type
    if kind in _CHAT_TYPES:
        role = getattr(item, "role", None)
        if isinstance(role, str) and role:
            return ROLES.get(role, role)
        raise ValueError(f"{at}.role is {render(role)}; a LangChain ChatMessage needs a role")
    role = ROLES.get(kind)
    if role is None:
        raise ValueError(f"{at} is a LangChain message of type {kind!r}, not one of a trajectory")
    if role == "system":
        kwargs = getattr(item, "additional_kwargs", None)
        if isinstance(kwargs, Mapping) and kwargs.get("__openai_role__") == "developer":
            return "developer"
    return role


def _refuse_invalid_calls(invalid: Any, at: str) -> None:
    first = invalid[0] if isinstance(invalid, (list, tuple)) and invalid else invalid
    detail = ""
    if isinstance(first, Mapping):
        detail = f" ({first.get('name')!s}: {first.get('error') or render(first.get('args'))})"
    raise ValueError(
        f"{at}.invalid_tool_calls[0]: LangChain could not parse this tool call{detail}; "
        "a trajectory with unreadable tool calls cannot be matched"
    )


def _calls_from_field(
    tool_calls: Any, at: str, message: int
) -> tuple[tuple[ToolCall, ...], set[Any]]:
    """The calls of a ``tool_calls`` field and their ids (ids are never compared)."""
    if tool_calls is None:
        return (), set()
    if not isinstance(tool_calls, (list, tuple)):
        raise TypeError(f"{at} is {_a(tool_calls)}; expected a list of tool calls")
    calls, ids = [], set()
    for index, call in enumerate(tool_calls):
        where = f"{at}[{index}]"
        if not isinstance(call, Mapping):
            raise TypeError(f"{where} is {_a(call)}; expected a tool call (a dict)")
        if "function" in call:  # OpenAI
            function = call["function"]
            if not isinstance(function, Mapping):
                raise TypeError(f"{where}.function is {_a(function)}; expected a dict")
            name = _name(function.get("name"), f"{where}.function.name")
            args = _args(function.get("arguments"), f"{where}.function.arguments", empty_ok=True)
        elif "name" in call:  # LangChain
            name = _name(call["name"], f"{where}.name")
            if "args" not in call:
                raise ValueError(f"{where} has no 'args'; a LangChain tool call needs them")
            args = _args(call["args"], f"{where}.args", empty_ok=False)
        else:
            raise ValueError(
                f"{where} has neither 'function' (OpenAI) nor 'name' and 'args' (LangChain)"
            )
        calls.append(ToolCall(name, args, message, where))
        call_id = call.get("id")
        if call_id is not None:
            ids.add(_id_key(call_id))
    return tuple(calls), ids


def _id_key(call_id: Any) -> Any:
    return call_id if isinstance(call_id, str) else repr(call_id)


def _block_type(block: Any) -> Any:
    return block.get("type") if isinstance(block, Mapping) else None


def _merge_block_calls(
    calls: tuple[ToolCall, ...], ids: set[Any], blocks: Sequence[Any], at: str, message: int
) -> tuple[ToolCall, ...]:
    """Add the tool calls written as content blocks, except those repeating a ``tool_calls``
    entry (same id), as LangChain does for Anthropic messages that carry both."""
    found: list[ToolCall] = []
    for index, block in enumerate(blocks):
        kind = _block_type(block)
        if kind not in _CALL_BLOCKS:
            continue
        where = f"{at}.content[{index}]"
        id_key, args_key = _CALL_BLOCKS[kind]
        block_id = block.get(id_key)
        if calls and block_id is None:
            raise ValueError(
                f"{where} is a {kind} block without {id_key!r} next to tool_calls: it cannot "
                "be told apart from them"
            )
        if block_id is not None and _id_key(block_id) in ids:
            continue
        name = _name(block.get("name"), f"{where}.name")
        if args_key not in block:
            raise ValueError(f"{where} is a {kind} block without {args_key!r}")
        args = _args(block[args_key], f"{where}.{args_key}", empty_ok=kind == "function_call")
        found.append(ToolCall(name, args, message, where))
    return calls + tuple(found) if found else calls


def _expand_tool_results(blocks: Sequence[Any], at: str, messages: list[Message]) -> None:
    """An Anthropic user message answering tool calls: one tool message per result, then the
    user message itself if anything else is in it."""
    rest = False
    for index, block in enumerate(blocks):
        if _block_type(block) == "tool_result":
            messages.append(Message("tool", f"{at}.content[{index}]", ()))
        elif block and not (_block_type(block) == "text" and not block.get("text")):
            rest = True
    if rest:
        messages.append(Message("user", at, ()))


def _name(value: Any, at: str) -> str:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, str):
        raise ValueError(f"{at} is an empty string; expected the tool's name")
    raise TypeError(f"{at} is {_a(value)}; expected the tool's name (a string)")


def _args(value: Any, at: str, *, empty_ok: bool) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        if not value.strip() and empty_ok:
            return {}
        try:
            parsed = json.loads(value, strict=False)
        except json.JSONDecodeError as error:
            raise ValueError(f"{at} is not valid JSON: {_decode_error(value, error)}") from None
        if isinstance(parsed, dict):
            return parsed
        raise ValueError(f"{at} is JSON {_a(parsed)}; tool arguments are a JSON object")
    if value is None and empty_ok:
        return {}
    raise TypeError(f"{at} is {_a(value)}; expected the arguments: a JSON object or string")


def _decode_error(text: str, error: json.JSONDecodeError) -> str:
    start = max(0, error.pos - 20)
    before, after = text[start : error.pos], text[error.pos : error.pos + 20]
    snippet = ("…" if start else "") + before + "⟨here⟩" + after
    return f"{error.msg} at line {error.lineno} column {error.colno}: {snippet!r}"
