"""The conversation a model call was given (GenAI ``gen_ai.input.messages``) as OpenAI-style
messages, and the tool responses it carries.

System messages are left out (a trajectory is what the agent and its user did, as a LangGraph
state holds it); ``user`` and ``assistant`` messages keep their text and calls, each
``tool_call_response`` part becomes one ``tool`` message.

>>> messages, answers = read_history([
...     {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
...     {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]},
...     {"role": "tool", "parts": [
...         {"type": "tool_call_response", "id": "c1", "response": "sunny"}]},
... ], Site("t", "s", "chat"))
>>> [message["role"] for message in messages]
['user', 'tool']
>>> answers
{'c1': 'sunny'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matchevals.traces._assemble import ModelTurn, Site, assistant_message, content_text
from matchevals.traces._genai import tool_call
from matchevals.traces._types import TraceProblem

__all__ = ["read_answers", "read_history"]

_ROLES = frozenset({"user", "assistant", "tool", "system", "developer"})
_LEFT_OUT = frozenset({"system", "developer"})


def read_answers(messages: Sequence[Any]) -> dict[str, Any]:
    """The responses to earlier tool calls found in a model call's input, by call id."""
    answers: dict[str, Any] = {}
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        for part in message.get("parts") or ():
            if isinstance(part, Mapping) and part.get("type") == "tool_call_response":
                call_id = part.get("id")
                if call_id is not None:
                    answers[str(call_id)] = _response(part)
    return answers


def _response(part: Mapping[str, Any]) -> Any:
    return part["response"] if "response" in part else part.get("result")


def read_history(
    messages: Sequence[Any], site: Site
) -> tuple[list[dict[str, Any]], dict[str, Any]] | TraceProblem:
    """The conversation as OpenAI-style messages, and the tool responses by call id."""
    history: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        at = f"gen_ai.input.messages[{index}]"
        if not isinstance(message, Mapping) or not isinstance(message.get("parts"), list):
            return site.problem(f"{at} is not a message with a list of parts")
        role = message.get("role")
        if role not in _ROLES:
            return site.problem(f"{at}.role is {role!r}; expected one of {sorted(_ROLES)}")
        if role in _LEFT_OUT:
            continue
        read = _message(role, message["parts"], at, site)
        if isinstance(read, TraceProblem):
            return read
        history.extend(read)
    return history, read_answers(messages)


def _message(
    role: str, parts: list[Any], at: str, site: Site
) -> list[dict[str, Any]] | TraceProblem:
    texts, calls, results = [], [], []
    for index, part in enumerate(parts):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            call = tool_call(part, f"{at}.parts[{index}]", site)
            if isinstance(call, TraceProblem):
                return call
            calls.append(call)
        elif kind == "tool_call_response":
            call_id = part.get("id")
            results.append(
                {"role": "tool", "tool_call_id": "" if call_id is None else str(call_id),
                 "content": content_text(_response(part))}
            )  # fmt: skip
    if calls and role != "assistant":
        return site.problem(f"{at} is a {role} message holding tool calls")
    if role == "assistant":
        return [assistant_message(ModelTurn((), site, "".join(texts) or None, calls))]
    if results:  # a tool message, or a user message answering calls (as Anthropic's do)
        rest = [{"role": role, "content": "".join(texts)}] if role == "user" and texts else []
        return results + rest
    if role == "tool":
        return [{"role": "tool", "tool_call_id": "", "content": "".join(texts)}]
    return [{"role": role, "content": "".join(texts)}]
