"""OpenInference spans (Phoenix/Arize's flattened attributes), made by the real SDK."""

from __future__ import annotations

import json

from matchevals.traces import read_spans, trajectories_from_spans
from tests.traces.spans import recording

LLM = "openinference.span.kind"


def _llm(tracer, inputs, output) -> None:
    attributes = {LLM: "LLM"}
    for index, message in enumerate(inputs):
        for key, value in message.items():
            attributes[f"llm.input_messages.{index}.message.{key}"] = value
    for key, value in output.items():
        attributes[f"llm.output_messages.0.message.{key}"] = value
    with tracer.start_as_current_span("ChatOpenAI", attributes=attributes):
        pass


def _calls(*calls: tuple[str, str, dict]) -> dict:
    flat = {"role": "assistant"}
    for index, (call_id, name, args) in enumerate(calls):
        flat[f"tool_calls.{index}.tool_call.id"] = call_id
        flat[f"tool_calls.{index}.tool_call.function.name"] = name
        flat[f"tool_calls.{index}.tool_call.function.arguments"] = json.dumps(args)
    return flat


def test_llm_and_tool_spans_read_with_parallel_calls() -> None:
    with recording(schema_url=None) as (tracer, spans):  # noqa: SIM117
        with tracer.start_as_current_span("agent", attributes={LLM: "AGENT"}):
            user = {"role": "user", "content": "Weather and news?"}
            _llm(tracer, [{"role": "system", "content": "brief"}, user],
                 _calls(("c1", "get_weather", {"city": "SF"}), ("c2", "get_news", {"topic": "AI"})))  # fmt: skip # noqa: E501
            for name, call_id in (("get_weather", "c1"), ("get_news", "c2")):
                attributes = {LLM: "TOOL", "tool.name": name, "tool_call.id": call_id, "output.value": "ok"}  # fmt: skip # noqa: E501
                with tracer.start_as_current_span(name, attributes=attributes):
                    pass
            _llm(tracer, [user], {"role": "assistant", "content": "done"})
    (trajectory,) = trajectories_from_spans(spans)
    messages = trajectory["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert messages[1]["tool_calls"][1]["function"] == {"name": "get_news", "arguments": {"topic": "AI"}}  # fmt: skip # noqa: E501


def test_arguments_that_are_not_json_are_refused() -> None:
    with recording(schema_url=None) as (tracer, spans):
        flat = _calls(("c1", "f", {}))
        flat["tool_calls.0.tool_call.function.arguments"] = "{not json"
        _llm(tracer, [{"role": "user", "content": "x"}], flat)
    (problem,) = read_spans(spans).problems
    assert "not valid JSON" in problem.message and problem.name == "ChatOpenAI"
