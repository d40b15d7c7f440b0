"""OpenAI Agents SDK items in their documented JSON shapes (``result.to_input_list()``)."""

from __future__ import annotations

import pytest

from matchevals.traces import TraceError, messages_from_agent_items


def test_a_parallel_turn_and_its_outputs() -> None:
    items = [
        {"role": "system", "content": "brief"},
        {"role": "user", "content": "x"},
        {"type": "reasoning", "id": "r1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}'},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": ""},
        {"type": "function_call_output", "call_id": "c2", "output": "two"},
        {"type": "function_call_output", "call_id": "c1", "output": "one"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
    ]
    messages = messages_from_agent_items(items)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["content"] for m in messages[2:4]] == ["one", "two"]  # in the order of the calls
    assert messages[1]["tool_calls"][1]["function"]["arguments"] == {}


def test_items_it_cannot_read_are_refused_naming_the_item() -> None:
    items = [{"role": "user", "content": "x"}, {"type": "web_search_call", "id": "w1"}]
    with pytest.raises(TraceError, match=r"items\[1\].*'web_search_call' item"):
        messages_from_agent_items(items)
    bad = [{"role": "user", "content": "x"}, {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{oops"}]  # fmt: skip # noqa: E501
    with pytest.raises(TraceError, match="not valid JSON"):
        messages_from_agent_items(bad)
