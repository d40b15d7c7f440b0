"""openevals 0.2.2's trajectory match, reproduced answer for answer (``compat="openevals"``).

Messages are read as openevals reads them, through langchain-core's OpenAI conversion: a role
(``human`` is ``user``, ``ai`` is ``assistant``) and the tool calls, whose arguments make a JSON
round trip. Plain messages (OpenAI-style dicts and LangChain's four message classes with text
content) are read here directly, with the same outcome; anything else goes through
``langchain_core.messages.convert_to_openai_messages`` itself. Calls pair greedily, first come
first served; arguments compare with Python ``==`` (``True == 1``).

>>> call = {"name": "search", "args": {"q": "x", "safe": True}}
>>> ref = {"name": "search", "args": {"q": "x", "safe": 1}}
>>> rules = CompatRules("exact", {})
>>> compat_match([{"role": "ai", "tool_calls": [call]}], [{"role": "ai", "tool_calls": [ref]}],
...     "unordered", rules)
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from matchevals.trajectory._openai_messages import openai_message

__all__ = [
    "MODE_CHECKS",
    "ArgsCheck",
    "CompatRules",
    "compat_match",
    "compat_rules",
    "read_messages",
]

ArgsCheck = Callable[[Any, Any], bool]
Call = tuple[Any, Any]
"""A tool call as openevals compares it: ``(name, arguments)``."""
Message = tuple[Any, "list[Call] | None"]
"""A message as openevals compares it: ``(role, tool calls or None)``."""

_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant",
          "system": "system", "tool": "tool"}  # fmt: skip
_MESSAGE_KEYS = frozenset({"role", "content", "tool_calls", "id", "name", "tool_call_id"})
_CLASS_ROLES = {"HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system",
                "ToolMessage": "tool"}  # fmt: skip


class _NotPlain(Exception):
    """This message needs langchain-core's conversion."""


_JSON_ATOMS = frozenset({str, int, bool, type(None)})


def _round_trip(arguments: Any) -> Any:
    """``arguments`` after the JSON round trip langchain-core's conversion puts them through
    (a tuple becomes a list, a nested non-string key a string); a flat object of JSON atoms
    comes back equal, so it is returned as is."""
    if not isinstance(arguments, dict) or not all(isinstance(key, str) for key in arguments):
        raise _NotPlain
    if all(
        type(value) in _JSON_ATOMS or (type(value) is float and value == value)
        for value in arguments.values()
    ):
        return arguments
    try:
        return json.loads(json.dumps(arguments))
    except (TypeError, ValueError):
        raise _NotPlain from None


def _plain_call(call: Any) -> Call:
    if type(call) is not dict:
        raise _NotPlain
    if "function" in call:
        function = call["function"]
        if set(call) - {"function", "id", "type"} or call.get("type", "function") != "function":
            raise _NotPlain
        if type(function) is not dict or set(function) != {"name", "arguments"}:
            raise _NotPlain
        name, text = function["name"], function["arguments"]
        if not isinstance(name, str) or not isinstance(text, str):
            raise _NotPlain
        try:
            parsed = json.loads(text)  # fresh JSON data: the round trip gives it back equal
        except ValueError:
            raise _NotPlain from None
        if not isinstance(parsed, dict):
            raise _NotPlain
        return name, parsed
    if set(call) - {"name", "args", "id", "type"} or call.get("type", "tool_call") != "tool_call":
        raise _NotPlain
    if not isinstance(call.get("name"), str) or "args" not in call:
        raise _NotPlain
    return call["name"], _round_trip(call["args"])


def _plain_calls(role: str, tool_calls: Any) -> list[Call] | None:
    if tool_calls is None:
        return None
    if role != "assistant" or type(tool_calls) is not list:
        raise _NotPlain
    return [_plain_call(call) for call in tool_calls] or None


def _plain(message: Any) -> Message:
    """``message`` read directly, or :class:`_NotPlain` when only langchain-core can read it."""
    if type(message) is dict:
        given = message.get("role")
        role = _ROLES.get(given) if isinstance(given, str) else None
        content = message.get("content")
        if role is None or set(message) - _MESSAGE_KEYS:
            raise _NotPlain
        if content is not None and not isinstance(content, str):
            raise _NotPlain
        return role, _plain_calls(role, message.get("tool_calls"))
    role = _CLASS_ROLES.get(type(message).__name__)
    if role is None or type(message).__module__ != "langchain_core.messages." + (
        "human" if role == "user" else "ai" if role == "assistant" else role
    ):
        raise _NotPlain
    if not isinstance(message.content, str) or message.additional_kwargs:
        raise _NotPlain
    if getattr(message, "invalid_tool_calls", None):
        raise _NotPlain
    tool_calls = getattr(message, "tool_calls", [])
    calls = [(call["name"], _round_trip(call["args"])) for call in tool_calls]
    return role, calls or None


def _converted(message: Any) -> Message:
    """``message`` through langchain-core's conversion, as openevals converts it."""
    converted = openai_message(message, lift=False)
    calls = converted.get("tool_calls")
    if calls is None:
        return converted["role"], None
    read = [(call["function"]["name"], json.loads(call["function"]["arguments"])) for call in calls]
    return converted["role"], read


def read_messages(messages: Any) -> list[Message]:
    """A trajectory as openevals reads it (a list, ``{"messages": [...]}``, one message)."""
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
    read = []
    for message in messages:
        try:
            read.append(_plain(message))
        except _NotPlain:
            read.append(_converted(message))
    return read


def _exact(output: Any, reference: Any) -> bool:
    return bool(output == reference)


def _subset(output: Any, reference: Any) -> bool:
    return all(key in reference and reference[key] == value for key, value in output.items())


def _superset(output: Any, reference: Any) -> bool:
    return all(key in output and output[key] == value for key, value in reference.items())


def _ignore(output: Any, reference: Any) -> bool:
    return True


MODE_CHECKS: dict[str, ArgsCheck] = {
    "exact": _exact, "subset": _subset, "superset": _superset, "ignore": _ignore,
}  # fmt: skip

_ABSENT = object()


def _at(arguments: Any, path: str) -> Any:
    current = arguments
    for part in path.split("."):
        if not isinstance(current, dict) or part not in current:
            return _ABSENT
        current = current[part]
    return current


@dataclass(frozen=True)
class _KeysCheck:
    """Arguments agree on these dotted keys (each present on both sides)."""

    paths: tuple[str, ...]

    def __call__(self, output: Any, reference: Any) -> bool:
        for path in self.paths:
            mine, theirs = _at(output, path), _at(reference, path)
            if mine is _ABSENT or theirs is _ABSENT or mine != theirs:
                return False
        return True


@dataclass(frozen=True)
class CompatRules:
    """The argument check of every tool, as openevals picks it."""

    mode: str
    overrides: Mapping[Any, Any]

    def check(self, name: Any) -> ArgsCheck:
        override = self.overrides.get(name, False)
        if not override:
            return MODE_CHECKS[self.mode]
        if isinstance(override, str):
            return MODE_CHECKS[override]
        if callable(override):
            return override  # type: ignore[no-any-return]
        return _KeysCheck(tuple(override))


def compat_rules(mode: Any, overrides: Any) -> CompatRules:
    """openevals' argument options, checked once (it checks overrides only when used)."""
    if mode not in MODE_CHECKS:
        raise ValueError(
            f"Invalid tool args match mode: `{mode}`. Must be either `exact`, `ignore`, "
            "`subset`, or `superset`."
        )
    if overrides is None:
        return CompatRules(mode, {})
    if not isinstance(overrides, Mapping):
        raise TypeError(f"tool_args_match_overrides must be a dict; got {type(overrides).__name__}")
    for name, override in overrides.items():
        if not override or callable(override) or isinstance(override, list):
            continue
        if isinstance(override, str) and override in MODE_CHECKS:
            continue
        raise ValueError(
            f"tool_args_match_overrides[{name!r}] is {override!r}; under compat='openevals' "
            "an override is a mode ('exact', 'ignore', 'subset', 'superset'), a list of "
            "dotted keys, or a function (output_args, reference_args) -> bool"
        )
    return CompatRules(mode, dict(overrides))


def _covers(outputs: list[Call], references: list[Call], rules: CompatRules, swapped: bool) -> bool:
    """Every reference call takes the first free output call of its name whose arguments pass."""
    used: set[int] = set()
    for name, reference_args in references:
        for index, (output_name, output_args) in enumerate(outputs):
            if output_name != name or index in used:
                continue
            check = rules.check(name)
            passed = check(reference_args, output_args) if swapped else check(output_args, reference_args)  # fmt: skip # noqa: E501
            if passed:
                used.add(index)
                break
        else:
            return False
    return True


def _strict(outputs: list[Message], references: list[Message], rules: CompatRules) -> bool:
    if len(outputs) != len(references):
        return False
    for (role, calls), (reference_role, reference_calls) in zip(outputs, references, strict=True):
        if role != reference_role or (calls is None) != (reference_calls is None):
            return False
        if calls is None or reference_calls is None:
            continue
        if len(calls) != len(reference_calls):
            return False
        seen = [False] * len(reference_calls)
        for name, args in calls:
            for index, (reference_name, reference_args) in enumerate(reference_calls):
                if not seen[index] and name == reference_name and rules.check(name)(args, reference_args):  # fmt: skip # noqa: E501
                    seen[index] = True
                    break
            else:
                return False
    return True


def _calls(messages: list[Message]) -> list[Call]:
    return [call for _, calls in messages for call in calls or ()]


def compat_match(outputs: Any, reference_outputs: Any, mode: str, rules: CompatRules) -> bool:
    """openevals' answer for ``mode`` on these trajectories."""
    output_messages = read_messages(outputs)
    reference_messages = read_messages(reference_outputs)
    if mode == "strict":
        return _strict(output_messages, reference_messages, rules)
    output_calls, reference_calls = _calls(output_messages), _calls(reference_messages)
    if mode == "superset":
        return _covers(output_calls, reference_calls, rules, swapped=False)
    if mode == "subset":
        return _covers(reference_calls, output_calls, rules, swapped=True)
    return _covers(output_calls, reference_calls, rules, swapped=False) and _covers(
        reference_calls, output_calls, rules, swapped=True
    )
