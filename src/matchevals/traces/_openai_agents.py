"""OpenAI Agents SDK runs (``result.to_input_list()``: Responses API items) as a trajectory.

Read: user messages (``{"role": "user", ...}``; system and developer ones are left out),
assistant ``message`` items (their ``output_text``), ``function_call`` items (``call_id``,
``name``, ``arguments`` as JSON text) and ``function_call_output`` items (``call_id``,
``output``); ``reasoning`` items belong to their response and are skipped. The items one model
response produced stand next to each other, ended by a tool output or a user message: such a
run of items is one assistant turn (parallel calls keep their turn). Hosted tool calls
(``web_search_call``, ``computer_call``, ...) and unknown item types are refused.

>>> messages_from_agent_items([
...     {"role": "user", "content": "Weather?"},
...     {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "SF"}'},
...     {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
...     {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny."}]},
... ])[1]["tool_calls"]
[{'id': 'c1', 'type': 'function', 'function': {'name': 'weather', 'arguments': {'city': 'SF'}}}]
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matchevals.traces._assemble import Call, ModelTurn, Site, ToolRun, assemble
from matchevals.traces._genai import arguments_object
from matchevals.traces._langchain_messages import text_of
from matchevals.traces._types import TraceError, TraceProblem

__all__ = ["messages_from_agent_items"]

_OUTPUT_TEXT = frozenset({"output_text", "text", "input_text"})


def _text(content: Any) -> str | None:
    if isinstance(content, list):
        content = [
            {"type": "text", "text": block.get("text")}
            for block in content
            if isinstance(block, Mapping) and block.get("type") in _OUTPUT_TEXT
        ]
    return text_of(content)


def _item_dict(item: Any) -> Any:
    dump = getattr(item, "model_dump", None)  # an SDK item's pydantic raw item
    return dump(exclude_unset=True) if callable(dump) else item


def messages_from_agent_items(items: Any) -> list[dict[str, Any]]:
    """The messages of an OpenAI Agents SDK run: ``result.to_input_list()`` (or the
    ``RunResult`` itself) read into OpenAI-style message dicts; :class:`TraceError` naming the
    item when something cannot be read exactly."""
    if hasattr(items, "to_input_list"):
        items = items.to_input_list()
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"items is {type(items).__name__}; expected a list of run items")
    history: list[dict[str, Any]] = []
    turns: list[ModelTurn] = []
    runs: list[ToolRun] = []
    open_turn: ModelTurn | None = None
    for index, raw in enumerate(items):
        item, site = _item_dict(raw), Site("run", f"items[{index}]", None)
        if not isinstance(item, Mapping):
            raise TraceError([site.problem(f"is {type(item).__name__}, not an item")])
        kind = item.get("type", "message")
        role = item.get("role")
        if kind == "message" and role in ("user", "system", "developer"):
            open_turn = None
            if role == "user":
                (history if not turns else _late(site)).append({"role": "user", "content": _text(item.get("content")) or ""})  # fmt: skip # noqa: E501
            continue
        if kind == "function_call_output":
            open_turn = None
            runs.append(ToolRun((index,), site, str(item.get("call_id")), None, item.get("output")))  # fmt: skip # noqa: E501
            continue
        if kind not in ("message", "function_call", "reasoning"):
            raise TraceError([site.problem(f"is a {kind!r} item, which is not read")])
        if open_turn is None:
            open_turn = ModelTurn((index,), site, None, [], history if not turns else [])
            turns.append(open_turn)
        problem = _add(open_turn, item, kind, site)
        if problem is not None:
            raise TraceError([problem])
    messages, problems = assemble(turns, runs, {}) if turns else (history, [])
    if problems:
        raise TraceError(problems)
    return messages


def _late(site: Site) -> list[dict[str, Any]]:
    raise TraceError([site.problem("a user message after the agent's first turn; read one run at a time")])  # fmt: skip # noqa: E501


def _add(turn: ModelTurn, item: Mapping[str, Any], kind: str, site: Site) -> TraceProblem | None:
    if kind == "message":
        text = _text(item.get("content"))
        if text:
            turn.text = (turn.text or "") + text
    elif kind == "function_call":
        name = item.get("name")
        if not isinstance(name, str) or not name:
            return site.problem("a function_call without a name")
        arguments = arguments_object(item.get("arguments"), f"arguments ({name})", site)
        if isinstance(arguments, TraceProblem):
            return arguments
        call_id = item.get("call_id")
        turn.calls.append(Call(None if call_id is None else str(call_id), name, arguments))
    return None
