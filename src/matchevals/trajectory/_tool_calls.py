"""Reading the tool calls of one message: a ``tool_calls`` field and tool-call content blocks.

Well-formed OpenAI and LangChain calls are read inline (:func:`calls_from_field`); anything else,
and every error, goes field by field through ``_read_call``. Arguments given as JSON text are
parsed once per text per evaluation (the ``memo``).

>>> (call,) = calls_from_field(
...     [{"function": {"name": "search", "arguments": '{"q": "x"}'}}], "outputs", 0, 0, {})
>>> call.name, call.args, call.at
('search', {'q': 'x'}, 'outputs[0].tool_calls[0]')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from matchevals.trajectory._json import a_type, render, to_json
from matchevals.trajectory._types import ToolCall

__all__ = ["block_type", "calls_from_field", "merge_block_calls", "refuse_invalid_calls"]

_CALL_BLOCKS = {  # content block type -> (id key, arguments key)
    "tool_use": ("id", "input"),
    "function_call": ("call_id", "arguments"),
    "tool_call": ("id", "args"),
}
_DECODER = json.JSONDecoder(strict=False)  # as LangChain reads arguments; built once
_decode = _DECODER.decode
_scan: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def refuse_invalid_calls(invalid: Any, at: str) -> NoReturn:
    first = invalid[0] if isinstance(invalid, (list, tuple)) and invalid else invalid
    detail = ""
    if isinstance(first, Mapping):
        detail = f" ({first.get('name')!s}: {first.get('error') or render(first.get('args'))})"
    raise ValueError(
        f"{at}.invalid_tool_calls[0]: LangChain could not parse this tool call{detail}; "
        "a trajectory with unreadable tool calls cannot be matched"
    )


def calls_from_field(
    tool_calls: Any, base: str, source: int, message: int, memo: dict[str, Any]
) -> tuple[ToolCall, ...]:
    """The calls of a ``tool_calls`` field: well-formed OpenAI and LangChain calls inline,
    anything else (and every error) through :func:`_read_call`."""
    if type(tool_calls) is not list and not isinstance(tool_calls, (list, tuple)):
        raise TypeError(
            f"{base}[{source}].tool_calls is {a_type(tool_calls)}; expected a list of tool calls"
        )
    calls = []
    for position, call in enumerate(tool_calls):
        if type(call) is dict:
            function = call.get("function")
            if type(function) is dict:  # OpenAI
                name, arguments = function.get("name"), function.get("arguments")
                if type(name) is str and name and type(arguments) is str:
                    args = memo.get(arguments)
                    if args is None:  # first sight: read here when it is a bare object
                        args = _scanned_whole(arguments)
                        if type(args) is dict:
                            memo[arguments] = args
                        else:
                            args = None  # _read_call reads (or refuses) everything else
                    if args is not None:
                        place = (base, source, "tool_calls", position)
                        calls.append(ToolCall(name, args, arguments, message, place))
                        continue
            elif function is None:  # LangChain
                name, args = call.get("name"), call.get("args")
                if type(name) is str and name and type(args) is dict:
                    place = (base, source, "tool_calls", position)
                    args = to_json(args, f"{_at(place)}.args")
                    calls.append(ToolCall(name, args, None, message, place))
                    continue
        calls.append(_read_call(call, (base, source, "tool_calls", position), message, memo))
    return tuple(calls)


def _read_call(
    call: Any, place: tuple[str, int, str, int], message: int, memo: dict[str, Any]
) -> ToolCall:
    """One entry of ``tool_calls``, checked field by field."""
    if type(call) is not dict and not isinstance(call, Mapping):
        raise TypeError(f"{_at(place)} is {a_type(call)}; expected a tool call (a dict)")
    text: str | None
    function = call.get("function")
    if function is not None:  # OpenAI
        if type(function) is not dict and not isinstance(function, Mapping):
            raise TypeError(f"{_at(place)}.function is {a_type(function)}; expected a dict")
        name = function.get("name")
        if type(name) is not str or not name:
            _bad_name(name, f"{_at(place)}.function.name")
        if "arguments" not in function:  # None or "" are no arguments; absent is malformed
            raise ValueError(f"{_at(place)}.function has no 'arguments'; an OpenAI call has them")
        args, text = _args(function["arguments"], place, ".function.arguments", True, memo)
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
    """A hashable key per id; an id that is not a string never equals one (1 is not "1")."""
    return call_id if isinstance(call_id, str) else (type(call_id).__name__, repr(call_id))


def block_type(block: Any) -> Any:
    return block.get("type") if isinstance(block, Mapping) else None


def merge_block_calls(
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
        kind = block_type(block)
        if type(kind) is not str:  # text, a block without a type; anything else is refused
            if kind is not None or not isinstance(block, (str, Mapping)):
                _bad_block(block, kind, (base, source, "content", position))
            continue
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


def _bad_block(block: Any, kind: Any, place: tuple[str, int, str, int]) -> NoReturn:
    if isinstance(block, Mapping):
        raise TypeError(f"{_at(place)}.type is {a_type(kind)}; expected a string")
    raise TypeError(f"{_at(place)} is {a_type(block)}; expected a content block (a dict) or text")


def _bad_name(value: Any, at: str) -> NoReturn:
    if isinstance(value, str):
        raise ValueError(f"{at} is an empty string; expected the tool's name")
    raise TypeError(f"{at} is {a_type(value)}; expected the tool's name (a string)")


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
        raise ValueError(
            f"{_at(place)}{field} is JSON {a_type(parsed)}; tool arguments are an object"
        )
    if isinstance(value, str):  # a str subclass
        return _args(str(value), place, field, empty_ok, memo)
    if value is None and empty_ok:
        return {}, None
    if value is not None:
        converted = to_json(value, f"{_at(place)}{field}")
        if type(converted) is dict:
            return converted, None
    raise TypeError(
        f"{_at(place)}{field} is {a_type(value)}; expected the arguments: a JSON object or string"
    )


_NOT_WHOLE: Any = object()


def _scanned_whole(text: str) -> Any:
    """The value the decoder's scanner reads from all of ``text`` (at half ``decode()``'s
    cost), or ``_NOT_WHOLE``: whitespace around the value, or an error."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, json.JSONDecodeError):
        return _NOT_WHOLE
    return value if end == len(text) else _NOT_WHOLE


def _parse(text: str, place: tuple[str, int, str, int], field: str) -> Any:
    value = _scanned_whole(text)
    if value is not _NOT_WHOLE:
        return value
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
