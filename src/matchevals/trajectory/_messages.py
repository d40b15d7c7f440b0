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

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from matchevals.trajectory._json import describe_type, render
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
_CALL_BLOCKS = {  # content block type -> (id key, arguments key)
    "tool_use": ("id", "input"),
    "function_call": ("call_id", "arguments"),
    "tool_call": ("id", "args"),
}
_EXPECTED_MESSAGE = "expected a message: a dict with 'role' (or 'type'), or a LangChain message"
_DECODER = json.JSONDecoder(strict=False)  # as LangChain reads arguments; built once
_decode = _DECODER.decode
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def read_trajectory(value: Any, side: str, parsed: dict[str, Any] | None = None) -> Trajectory:
    """Normalize one side (``side`` is ``"outputs"`` or ``"reference_outputs"``).

    ``parsed`` remembers the arguments parsed from each JSON text, so that texts repeated on
    both sides of one evaluation (a passing trajectory's usual case) are parsed once; calls
    with equal texts then share one arguments dict.

    >>> (message,) = read_trajectory([{"role": "ai", "tool_calls": [
    ...     {"name": "search", "args": {"q": "x"}}]}], "outputs")
    >>> message.role, message.tool_calls[0].name, message.tool_calls[0].args
    ('assistant', 'search', {'q': 'x'})
    """
    items, base = _message_list(value, side)
    read = Trajectory(base)
    memo: dict[str, Any] = {} if parsed is None else parsed
    roles = ROLES
    # The common case inline, appending to the columns directly; everything else (and every
    # error) goes through _read_dict / _read_object. Content blocks matter only in user and
    # assistant messages, function_call and invalid_tool_calls only in assistant ones.
    all_roles, all_calls, sources, calls_of = (
        read.roles,
        read.calls,
        read.sources,
        read.message_calls,
    )
    for source, item in enumerate(items):
        if type(item) is dict:
            raw = item.get("role")
            if raw is None:
                raw = item.get("type")  # a LangChain dict (a serialized envelope: slow path)
                if "data" in item:  # LangChain's messages_to_dict form: slow path
                    _read_dict(item, read, source, memo)
                    continue
            role = roles.get(raw) if type(raw) is str else None
            if role is None:
                _read_dict(item, read, source, memo)
                continue
            tool_calls = item.get("tool_calls")
            if role == "assistant":
                if (
                    type(item.get("content")) is list  # content blocks may hold calls
                    or item.get("function_call") is not None
                    or item.get("invalid_tool_calls")
                ):
                    _read_dict(item, read, source, memo)
                    continue
                if tool_calls:
                    calls = _calls_from_field(tool_calls, base, source, len(all_roles), memo)
                    all_roles.append(role)
                    calls_of.append(calls)
                    sources.append(source)
                    all_calls.extend(calls)
                    continue
            elif tool_calls or (role == "user" and type(item.get("content")) is list):
                _read_dict(item, read, source, memo)  # tool results; or refuses the calls
                continue
            all_roles.append(role)
            calls_of.append(())
            sources.append(source)
        elif type(item) is dict or isinstance(item, Mapping):
            _read_dict(item, read, source, memo)
        elif _is_langchain_message(item):
            _read_object(item, read, source, memo)
        else:
            raise TypeError(f"{base}[{source}] is {_a(item)}; {_EXPECTED_MESSAGE}")
    return read


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
            raise TypeError(f"{side}.messages is {_a(messages)}; expected a list of messages")
        keys = ", ".join(repr(key) for key in list(value)[:5]) or "none"
        raise ValueError(
            f"{side} is a dict without 'messages' or 'role' (keys: {keys}); expected a list of "
            "messages, a dict with 'messages' (such as a LangGraph state) or one message"
        )
    if _is_langchain_message(value):
        return [value], side
    raise TypeError(f"{side} is {_a(value)}; expected a list of messages")


def _a(value: Any) -> str:
    if value is None:
        return "null"
    name = describe_type(value)
    return ("an " if name[:1] in "aeiou" else "a ") + name


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
        if item.get("invalid_tool_calls"):
            _refuse_invalid_calls(item["invalid_tool_calls"], f"{base}[{source}]")
    _finish(role, item.get("tool_calls"), item.get("content"), read, source, memo)


def _read_object(item: Any, read: Trajectory, source: int, memo: dict[str, Any]) -> None:
    base = read.base
    role = _object_role(item, f"{base}[{source}]")
    tool_calls = None
    if role == "assistant":  # only AI messages have these attributes (asking others is slow)
        kwargs = getattr(item, "additional_kwargs", None)
        if isinstance(kwargs, Mapping) and kwargs.get("function_call") is not None:
            _refuse_function_call(f"{base}[{source}]")
        invalid = getattr(item, "invalid_tool_calls", None)
        if invalid:
            _refuse_invalid_calls(invalid, f"{base}[{source}]")
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
    calls = _calls_from_field(tool_calls, base, source, index, memo) if tool_calls else ()
    if role in ("user", "assistant") and (type(content) is list or isinstance(content, tuple)):
        calls = _merge_block_calls(calls, tool_calls, content, base, source, index, memo)
        if role == "user" and any(_block_type(block) == "tool_result" for block in content):
            if calls:
                _refuse_calls(role, calls[0])
            _expand_tool_results(content, read, source)
            return
    if calls and role != "assistant":
        _refuse_calls(role, calls[0])
    read.add(role, calls, source)


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
            f"{at}.data is {_a(data)}; a LangChain message dict ({{'type': ..., 'data': ...}}) "
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


def _refuse_invalid_calls(invalid: Any, at: str) -> NoReturn:
    first = invalid[0] if isinstance(invalid, (list, tuple)) and invalid else invalid
    detail = ""
    if isinstance(first, Mapping):
        detail = f" ({first.get('name')!s}: {first.get('error') or render(first.get('args'))})"
    raise ValueError(
        f"{at}.invalid_tool_calls[0]: LangChain could not parse this tool call{detail}; "
        "a trajectory with unreadable tool calls cannot be matched"
    )


def _calls_from_field(
    tool_calls: Any, base: str, source: int, message: int, memo: dict[str, Any]
) -> tuple[ToolCall, ...]:
    """The calls of a ``tool_calls`` field: well-formed OpenAI and LangChain calls inline,
    anything else (and every error) through :func:`_read_call`."""
    if type(tool_calls) is not list and not isinstance(tool_calls, tuple):
        raise TypeError(
            f"{base}[{source}].tool_calls is {_a(tool_calls)}; expected a list of tool calls"
        )
    calls = []
    for position, call in enumerate(tool_calls):
        if type(call) is dict:
            function = call.get("function")
            if type(function) is dict:  # OpenAI
                name, arguments = function.get("name"), function.get("arguments")
                if type(name) is str and name and type(arguments) is str:
                    args = memo.get(arguments)
                    if args is not None:
                        place = (base, source, "tool_calls", position)
                        calls.append(ToolCall(name, args, arguments, message, place))
                        continue
            elif function is None:  # LangChain
                name, args = call.get("name"), call.get("args")
                if type(name) is str and name and type(args) is dict:
                    place = (base, source, "tool_calls", position)
                    calls.append(ToolCall(name, args, None, message, place))
                    continue
        calls.append(_read_call(call, (base, source, "tool_calls", position), message, memo))
    return tuple(calls)


def _read_call(
    call: Any, place: tuple[str, int, str, int], message: int, memo: dict[str, Any]
) -> ToolCall:
    """One entry of ``tool_calls``, checked field by field."""
    if type(call) is not dict and not isinstance(call, Mapping):
        raise TypeError(f"{_at(place)} is {_a(call)}; expected a tool call (a dict)")
    text: str | None
    function = call.get("function")
    if function is not None:  # OpenAI
        if type(function) is not dict and not isinstance(function, Mapping):
            raise TypeError(f"{_at(place)}.function is {_a(function)}; expected a dict")
        name = function.get("name")
        if type(name) is not str or not name:
            _bad_name(name, f"{_at(place)}.function.name")
        args, text = _args(function.get("arguments"), place, ".function.arguments", True, memo)
    else:  # LangChain
        name = call.get("name")
        if type(name) is not str or not name:
            if "name" not in call:
                raise ValueError(
                    f"{_at(place)} has neither 'function' (OpenAI) nor 'name' and 'args' "
                    "(LangChain)"
                )
            _bad_name(name, f"{_at(place)}.name")
        if "args" not in call:
            raise ValueError(f"{_at(place)} has no 'args'; a LangChain tool call needs them")
        args, text = _args(call["args"], place, ".args", False, memo)
    return ToolCall(name, args, text, message, place)


def _ids(tool_calls: Any) -> set[Any]:
    """The ids of a ``tool_calls`` field's calls (already read, so well-formed)."""
    return {_id_key(call["id"]) for call in tool_calls or () if call.get("id") is not None}


def _at(place: tuple[str, int, str, int]) -> str:
    base, source, field, position = place
    return f"{base}[{source}].{field}[{position}]"


def _id_key(call_id: Any) -> Any:
    return call_id if isinstance(call_id, str) else repr(call_id)


def _block_type(block: Any) -> Any:
    return block.get("type") if isinstance(block, Mapping) else None


def _merge_block_calls(
    calls: tuple[ToolCall, ...],
    tool_calls: Any,
    blocks: Sequence[Any],
    base: str,
    source: int,
    message: int,
    memo: dict[str, Any],
) -> tuple[ToolCall, ...]:
    """Add the tool calls written as content blocks, except those repeating a ``tool_calls``
    entry (same id), as LangChain does for Anthropic messages that carry both."""
    found: list[ToolCall] = []
    ids: set[Any] | None = None
    for position, block in enumerate(blocks):
        kind = _block_type(block)
        if kind not in _CALL_BLOCKS:
            continue
        if ids is None:
            ids = _ids(tool_calls) if calls else set()
        place = (base, source, "content", position)
        id_key, args_key = _CALL_BLOCKS[kind]
        block_id = block.get(id_key)
        if calls and block_id is None:
            raise ValueError(
                f"{_at(place)} is a {kind} block without {id_key!r} next to tool_calls: it "
                "cannot be told apart from them"
            )
        if block_id is not None and _id_key(block_id) in ids:
            continue
        name = block.get("name")
        if type(name) is not str or not name:
            _bad_name(name, f"{_at(place)}.name")
        if args_key not in block:
            raise ValueError(f"{_at(place)} is a {kind} block without {args_key!r}")
        args, text = _args(block[args_key], place, f".{args_key}", kind == "function_call", memo)
        found.append(ToolCall(name, args, text, message, place))
    return calls + tuple(found) if found else calls


def _expand_tool_results(blocks: Sequence[Any], read: Trajectory, source: int) -> None:
    """An Anthropic user message answering tool calls: one tool message per result, then the
    user message itself if anything else is in it."""
    rest = False
    for position, block in enumerate(blocks):
        if _block_type(block) == "tool_result":
            read.blocks[len(read.roles)] = position
            read.add("tool", (), source)
        elif block and not (_block_type(block) == "text" and not block.get("text")):
            rest = True
    if rest:
        read.add("user", (), source)


def _bad_name(value: Any, at: str) -> NoReturn:
    if isinstance(value, str):
        raise ValueError(f"{at} is an empty string; expected the tool's name")
    raise TypeError(f"{at} is {_a(value)}; expected the tool's name (a string)")


def _args(
    value: Any, place: tuple[str, int, str, int], field: str, empty_ok: bool, memo: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """The arguments as a dict, and their JSON text when they came as a string."""
    if type(value) is str:
        parsed = memo.get(value)
        if parsed is None:
            if not value.strip():
                if empty_ok:
                    return {}, value
                raise ValueError(f"{_at(place)}{field} is an empty string; expected a JSON object")
            parsed = _parse(value, place, field)
        if type(parsed) is dict:
            memo[value] = parsed
            return parsed, value
        raise ValueError(f"{_at(place)}{field} is JSON {_a(parsed)}; tool arguments are an object")
    if type(value) is dict:
        return value, None
    if isinstance(value, Mapping):
        return dict(value), None
    if isinstance(value, str):  # a str subclass
        return _args(str(value), place, field, empty_ok, memo)
    if value is None and empty_ok:
        return {}, None
    raise TypeError(
        f"{_at(place)}{field} is {_a(value)}; expected the arguments: a JSON object or string"
    )


def _parse(text: str, place: tuple[str, int, str, int], field: str) -> Any:
    # The decoder's scanner takes a value starting at 0 at half decode()'s cost; a text it
    # does not take whole (whitespace around the value, an error) goes through decode().
    try:
        value, end = _scan(text, 0)
        if end == len(text):
            return value
    except (StopIteration, json.JSONDecodeError):
        pass
    try:
        return _decode(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{_at(place)}{field} is not valid JSON: {_decode_error(text, error)}"
        ) from None


def _decode_error(text: str, error: json.JSONDecodeError) -> str:
    start = max(0, error.pos - 20)
    before, after = text[start : error.pos], text[error.pos : error.pos + 20]
    snippet = ("…" if start else "") + before + "⟨here⟩" + after
    return f"{error.msg} at line {error.lineno} column {error.colno}: {snippet!r}"
