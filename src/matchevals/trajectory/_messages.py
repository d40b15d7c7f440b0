"""Reading trajectories as they come into :class:`Message` and :class:`ToolCall` values.

Accepted, on either side:

- a list of messages, ``{"messages": [...]}`` (a LangGraph state: other keys are state, not
  trajectory) or a single message;
- OpenAI-style dicts (``role``, ``tool_calls: [{"function": {"name", "arguments"}}]``),
  LangChain message dicts (``type``/``role``, ``tool_calls: [{"name", "args"}]``, also inside
  LangChain's serialized ``{"lc": 1, "type": "constructor", ...}`` envelope and its
  ``messages_to_dict`` form ``{"type": "ai", "data": {...}}``) and LangChain
  message objects (recognized by their attributes; langchain is never imported here);
- tool calls as content blocks: Anthropic ``tool_use`` (``input``), OpenAI Responses
  ``function_call`` (``arguments``) and LangChain ``tool_call`` (``args``), merged with
  ``tool_calls`` by id as LangChain merges them; Anthropic ``tool_result`` blocks of a user
  message become one ``tool`` message each (followed by the rest of the user message, if any);
- arguments as a JSON object or a JSON string encoding one (OpenAI's ``""`` or ``None`` for a
  tool without parameters is ``{}``, as LangChain reads it).

Anything else is a TypeError or ValueError naming the message and field, e.g.
``outputs[3].tool_calls[1].function.arguments is not valid JSON: ...``: tool calls in a
message that is not an assistant's, legacy ``function_call`` or LangChain's
``invalid_tool_calls`` in an assistant message. Message text is read only to find tool calls
(content blocks of user and assistant messages); it is never compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from matchevals.trajectory._json import a_type, render
from matchevals.trajectory._tool_calls import (
    block_type,
    calls_from_field,
    merge_block_calls,
    refuse_invalid_calls,
)
from matchevals.trajectory._types import ToolCall, Trajectory

__all__ = ["ROLES", "read_trajectory"]

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
_NO_CALLS: tuple[ToolCall, ...] = ()
_TEXT = (str, type(None))  # content read no further (a list of blocks may hold calls)
_EXPECTED_MESSAGE = "expected a message: a dict with 'role' (or 'type'), or a LangChain message"


def read_trajectory(value: Any, side: str, parsed: dict[str, Any] | None = None) -> Trajectory:
    """Normalize one side (``side`` is ``"outputs"`` or ``"reference_outputs"``).

    ``parsed`` remembers the arguments parsed from each JSON text: a text on both sides of one
    evaluation (a passing trajectory's usual case) is parsed once, its calls share one dict.

    >>> (message,) = read_trajectory([{"role": "ai", "tool_calls": [
    ...     {"name": "search", "args": {"q": "x"}}]}], "outputs")
    >>> message.role, message.tool_calls[0].name, message.tool_calls[0].args
    ('assistant', 'search', {'q': 'x'})
    """
    items, base = _message_list(value, side)
    read, roles = Trajectory(base), ROLES
    memo: dict[str, Any] = {} if parsed is None else parsed
    # The common case inline, appending to the columns; anything else (and every error) goes
    # through _read_dict / _read_object. A list field other than [] or None is read (or refused).
    all_roles, all_calls = read.roles, read.calls
    sources, calls_of = read.sources, read.message_calls
    for source, item in enumerate(items):
        if type(item) is dict:
            raw: Any = item.get("role")
            if raw is None:
                raw = item.get("type")  # a LangChain dict (a serialized envelope: slow path)
                if "data" in item:  # LangChain's messages_to_dict form: slow path
                    _read_dict(item, read, source, memo)
                    continue
            role = roles.get(raw) if type(raw) is str else None  # else the slow path says why
            if role is None:
                _read_dict(item, read, source, memo)
                continue
            tool_calls, calls = item.get("tool_calls"), _NO_CALLS
            if role == "assistant":
                content, invalid = item.get("content"), item.get("invalid_tool_calls")
                if (
                    type(content) not in _TEXT  # content blocks may hold calls
                    or item.get("function_call") is not None
                    or (invalid is not None and (invalid or type(invalid) is not list))
                    or ((kwargs := item.get("additional_kwargs")) and _legacy_call(kwargs))
                ):
                    _read_dict(item, read, source, memo)
                    continue
                if tool_calls or (tool_calls is not None and type(tool_calls) is not list):
                    calls = calls_from_field(tool_calls, base, source, len(all_roles), memo)
                    all_calls.extend(calls)
            elif (tool_calls is not None and (tool_calls or type(tool_calls) is not list)) or (
                role == "user" and type(item.get("content")) not in _TEXT
            ):
                _read_dict(item, read, source, memo)  # tool results; or refuses the calls
                continue
            all_roles.append(role)
            calls_of.append(calls)
            sources.append(source)
        elif isinstance(item, Mapping):
            _read_dict(item, read, source, memo)
        elif _is_langchain_message(item):
            _read_object(item, read, source, memo)
        else:
            raise TypeError(f"{base}[{source}] is {a_type(item)}; {_EXPECTED_MESSAGE}")
    return read


def _given(field: Any) -> bool:
    """Whether a list field (``tool_calls``, ``invalid_tool_calls``) must be read: anything
    but None and an empty list (a wrong type is then refused, never taken for "none")."""
    return bool(field) or (field is not None and type(field) is not list)


def _legacy_call(kwargs: Any) -> bool:
    """Whether LangChain's ``additional_kwargs`` hold a legacy OpenAI ``function_call``."""
    return isinstance(kwargs, Mapping) and kwargs.get("function_call") is not None


def _message_list(value: Any, side: str) -> tuple[Sequence[Any], str]:
    if type(value) is list or isinstance(value, (list, tuple)):
        return value, side
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
            raise TypeError(f"{side}.messages is {a_type(messages)}; expected a list of messages")
        keys = ", ".join(repr(key) for key in list(value)[:5]) or "none"
        raise ValueError(
            f"{side} is a dict without 'messages' or 'role' (keys: {keys}); expected a list of "
            "messages, a dict with 'messages' (such as a LangGraph state) or one message"
        )
    if _is_langchain_message(value):
        return [value], side
    raise TypeError(f"{side} is {a_type(value)}; expected a list of messages")


def _is_langchain_message(value: Any) -> bool:
    """A LangChain message, by its attributes: a string ``type`` and a ``content``."""
    return (
        type(getattr(value, "type", None)) is str
        and hasattr(value, "content")
        and not isinstance(value, (str, bytes, Mapping))
    )


def _read_dict(
    item: Mapping[str, Any], read: Trajectory, source: int, memo: dict[str, Any]
) -> None:
    base = read.base
    if item.get("lc") == 1:
        item = _unwrap_envelope(item, f"{base}[{source}]")
    elif item.get("role") is None and "data" in item and "content" not in item:
        item = _unwrap_data(item, f"{base}[{source}]")
    raw = item.get("role")
    if raw is None:
        raw = item.get("type")
    role = ROLES.get(raw) if type(raw) is str else None
    if role is None:
        role = _dict_role(item, f"{base}[{source}]")
    if role == "assistant":
        if item.get("function_call") is not None:
            _refuse_function_call(f"{base}[{source}]")
        if _legacy_call(item.get("additional_kwargs")):
            _refuse_function_call(f"{base}[{source}].additional_kwargs")
        _refuse_invalid(item.get("invalid_tool_calls"), f"{base}[{source}]")
    _finish(role, item.get("tool_calls"), item.get("content"), read, source, memo)


def _read_object(item: Any, read: Trajectory, source: int, memo: dict[str, Any]) -> None:
    base = read.base
    role = _object_role(item, f"{base}[{source}]")
    tool_calls = None
    if role == "assistant":  # only AI messages have these attributes (asking others is slow)
        if _legacy_call(getattr(item, "additional_kwargs", None)):
            _refuse_function_call(f"{base}[{source}].additional_kwargs")
        _refuse_invalid(getattr(item, "invalid_tool_calls", None), f"{base}[{source}]")
        tool_calls = getattr(item, "tool_calls", None)
    _finish(role, tool_calls, item.content, read, source, memo)


def _finish(
    role: str,
    tool_calls: Any,
    content: Any,
    read: Trajectory,
    source: int,
    memo: dict[str, Any],
) -> None:
    base, index = read.base, len(read.roles)
    calls = calls_from_field(tool_calls, base, source, index, memo) if _given(tool_calls) else ()
    if role in ("user", "assistant") and content is not None and not isinstance(content, str):
        if not isinstance(content, (list, tuple)):
            raise TypeError(
                f"{base}[{source}].content is {a_type(content)}; expected text or a list of "
                "content blocks"
            )
        calls = merge_block_calls(calls, tool_calls, content, base, source, index, memo)
        if role == "user" and any(block_type(block) == "tool_result" for block in content):
            if calls:
                _refuse_calls(role, calls[0])
            _expand_tool_results(content, read, source)
            return
    if calls and role != "assistant":
        _refuse_calls(role, calls[0])
    read.add(role, calls, source)


def _refuse_invalid(invalid: Any, at: str) -> None:
    """LangChain's ``invalid_tool_calls``: None or [] pass; calls in it, or another type,
    are refused."""
    if invalid is None:
        return
    if not isinstance(invalid, (list, tuple)):
        raise TypeError(
            f"{at}.invalid_tool_calls is {a_type(invalid)}; expected a list (LangChain's tool "
            "calls it could not parse)"
        )
    if invalid:
        refuse_invalid_calls(invalid, at)


def _refuse_calls(role: str, call: ToolCall) -> NoReturn:
    raise ValueError(f"{call.at}: a {role} message makes no tool calls; only assistant ones do")


def _refuse_function_call(at: str) -> NoReturn:
    raise ValueError(
        f"{at}.function_call: legacy OpenAI function calls are not read; "
        "express the call in tool_calls"
    )


def _unwrap_envelope(item: Mapping[str, Any], at: str) -> Mapping[str, Any]:
    """LangChain's serialized form ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
    "kwargs": {...}}`` as the message dict it stands for."""
    if item.get("type") != "constructor":
        return item
    ids, kwargs = item.get("id"), item.get("kwargs")
    kind = _LC_CONSTRUCTOR_TYPES.get(ids[-1]) if isinstance(ids, list) and ids else None
    if kind is None or not isinstance(kwargs, Mapping):
        raise ValueError(f"{at} is a serialized LangChain object that is not a message: {ids!r}")
    return {**kwargs, "type": kind}


def _unwrap_data(item: Mapping[str, Any], at: str) -> Mapping[str, Any]:
    """LangChain's ``messages_to_dict`` form ``{"type": "ai", "data": {...}}`` as the message
    dict it stands for (its fields, tool calls included, are all under ``data``)."""
    data = item["data"]
    if not isinstance(data, Mapping):
        raise TypeError(
            f"{at}.data is {a_type(data)}; a LangChain message dict ({{'type': ..., 'data': ...}}) "
            "holds the message's fields in data"
        )
    return {**data, "type": item.get("type", data.get("type"))}


def _dict_role(fields: Mapping[str, Any], at: str) -> str:
    """The slow path of reading a role: ChatMessage dicts, and the error for anything else."""
    if "role" in fields and fields["role"] is not None:
        name, raw = "role", fields["role"]
    elif "type" in fields:
        name, raw = "type", fields["type"]
    else:
        raise ValueError(f"{at} has no 'role' (or 'type'); {_EXPECTED_MESSAGE}")
    if isinstance(raw, str):
        role = ROLES.get(raw)
        if role is not None:
            return role
    known = ", ".join(sorted({key for key in ROLES if key.islower()}))
    raise ValueError(f"{at}.{name} is {render(raw)}; expected one of {known}")


def _object_role(item: Any, at: str) -> str:
    kind: str = item.type
    role = ROLES.get(kind)
    if role is None:
        if kind in _CHAT_TYPES:
            chat_role = getattr(item, "role", None)
            if isinstance(chat_role, str) and chat_role:
                return ROLES.get(chat_role, chat_role)
            raise ValueError(f"{at}.role is {render(chat_role)}; a ChatMessage needs a role")
        raise ValueError(f"{at} is a LangChain message of type {kind!r}, not one of a trajectory")
    if role == "system":
        kwargs = getattr(item, "additional_kwargs", None)
        if isinstance(kwargs, Mapping) and kwargs.get("__openai_role__") == "developer":
            return "developer"
    return role


def _expand_tool_results(blocks: Sequence[Any], read: Trajectory, source: int) -> None:
    """An Anthropic user message answering tool calls: one tool message per result, then the
    user message itself if anything else is in it."""
    rest = False
    for position, block in enumerate(blocks):
        if block_type(block) == "tool_result":
            read.blocks[len(read.roles)] = position
            read.add("tool", (), source)
        elif block and not (block_type(block) == "text" and not block.get("text")):
            rest = True
    if rest:
        read.add("user", (), source)
