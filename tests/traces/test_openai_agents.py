"""OpenAI Agents SDK runs made by the real SDK with a scripted model (the one part replaced)."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.traces import messages_from_agent_items
from matchevals.trajectory import create_trajectory_match_evaluator

agents = pytest.importorskip("agents")
responses = pytest.importorskip("openai.types.responses")


def _run(script: list[list[Any]]) -> Any:
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage

    class Scripted(Model):
        def __init__(self) -> None:
            self.answers = iter(script)

        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            return ModelResponse(output=next(self.answers), usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    @agents.function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    agents.set_tracing_disabled(True)
    agent = agents.Agent(name="weather", model=Scripted(), tools=[get_weather])
    return agents.Runner.run_sync(agent, "Weather in SF and LA?")


def _call(call_id: str, city: str) -> Any:
    return responses.ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name="get_weather", arguments=f'{{"city": "{city}"}}'
    )


def _text(text: str) -> Any:
    content = [responses.ResponseOutputText(type="output_text", text=text, annotations=[])]
    return responses.ResponseOutputMessage(id="m", type="message", role="assistant", status="completed", content=content)  # fmt: skip # noqa: E501


def test_a_real_run_reads_with_its_parallel_turn() -> None:
    result = _run([[_call("c1", "SF"), _call("c2", "LA")], [_text("Sunny in both.")]])
    messages = messages_from_agent_items(result)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "sunny in SF"}
    assert messages_from_agent_items(result.to_input_list()) == messages
    reference = [
        {"role": "user", "content": ""},
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "LA"}}},
                {"function": {"name": "get_weather", "arguments": {"city": "SF"}}},
            ],
        },
        {"role": "tool", "content": ""},
        {"role": "tool", "content": ""},
        {"role": "assistant", "content": "Sunny in both."},
    ]
    strict = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert strict(outputs=messages, reference_outputs=reference)["score"] is True
    sequential = _run([[_call("c1", "SF")], [_call("c2", "LA")], [_text("Sunny in both.")]])
    assert strict(outputs=messages_from_agent_items(sequential), reference_outputs=reference)["score"] is False  # fmt: skip # noqa: E501
