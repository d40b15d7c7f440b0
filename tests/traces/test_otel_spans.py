"""OpenTelemetry GenAI spans made by the real SDK, read into trajectories that score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matchevals.traces import TraceError, read_otlp_json, read_spans, trajectories_from_spans
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.traces.spans import call, chat, otlp_document, recording, text, tool

USER = text("user", "Weather in SF, and AI news?")
REFERENCE = [
    {"role": "user", "content": "anything"},
    {"role": "assistant", "tool_calls": [
        {"function": {"name": "get_news", "arguments": {"topic": "AI"}}},
        {"function": {"name": "get_weather", "arguments": {"city": "SF"}}}]},
    {"role": "tool", "content": ""},
    {"role": "tool", "content": ""},
    {"role": "assistant", "content": "Sunny; AI is busy."},
]  # fmt: skip


def _parallel_agent(tracer, *, tools: bool = True) -> None:
    with tracer.start_as_current_span("invoke_agent weather", attributes={"gen_ai.operation.name": "invoke_agent"}):  # fmt: skip # noqa: E501
        system = text("system", "Be brief.")
        calls = [call("c1", "get_weather", city="SF"), call("c2", "get_news", topic="AI")]
        chat(tracer, [system, USER], calls)
        if tools:
            tool(tracer, "get_weather", "c1", "sunny")
            tool(tracer, "get_news", "c2", "busy")
        answers = [
            {"role": "assistant", "parts": calls},
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": "c1", "response": "sunny"}],
            },
            {
                "role": "tool",
                "parts": [{"type": "tool_call_response", "id": "c2", "response": "busy"}],
            },
        ]
        chat(tracer, [system, USER, *answers], [{"type": "text", "content": "Sunny; AI is busy."}])


def test_parallel_calls_keep_their_turn_and_score_strictly() -> None:
    with recording() as (tracer, spans):
        _parallel_agent(tracer)
    (trajectory,) = trajectories_from_spans(spans)
    messages = trajectory["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [c["function"]["name"] for c in messages[1]["tool_calls"]] == ["get_weather", "get_news"]  # fmt: skip # noqa: E501
    assert [m.get("tool_call_id") for m in messages[2:4]] == ["c1", "c2"]
    assert messages[2]["content"] == "sunny"
    assert trajectory["trace_id"] == format(spans[0].context.trace_id, "032x")
    strict = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert strict(outputs=trajectory, reference_outputs=REFERENCE)["score"] is True
    # the same calls split over two turns are a different structure
    split = [REFERENCE[0], {**REFERENCE[1], "tool_calls": REFERENCE[1]["tool_calls"][:1]}, REFERENCE[2],  # noqa: E501
             {**REFERENCE[1], "tool_calls": REFERENCE[1]["tool_calls"][1:]}, REFERENCE[3], REFERENCE[4]]  # fmt: skip # noqa: E501
    assert strict(outputs=trajectory, reference_outputs=split)["score"] is False


def test_results_from_later_model_inputs_when_no_tool_spans() -> None:
    with recording() as (tracer, spans):
        _parallel_agent(tracer, tools=False)
    (trajectory,) = trajectories_from_spans(spans)
    assert [m.get("content") for m in trajectory["messages"][2:4]] == ["sunny", "busy"]


def test_a_tool_call_without_arguments_is_refused_naming_the_span() -> None:
    with recording() as (tracer, spans):
        chat(tracer, [USER], [{"type": "tool_call", "id": "c1", "name": "get_weather"}])
    reading = read_spans(spans)
    assert reading.trajectories == []
    (problem,) = reading.problems
    span = spans[0]
    assert problem.trace_id == format(span.context.trace_id, "032x")
    assert problem.span_id == format(span.context.span_id, "016x")
    assert problem.name == "chat model"
    assert "arguments" in problem.message and "get_weather" in problem.message
    with pytest.raises(TraceError, match="chat model"):
        trajectories_from_spans(spans)


def test_a_tool_span_tied_to_no_call_is_refused() -> None:
    with recording() as (tracer, spans), tracer.start_as_current_span("agent"):
        chat(tracer, [USER], [call("c1", "get_weather", city="SF")])
        tool(tracer, "get_weather", "c9")
    (problem,) = read_spans(spans).problems
    assert problem.name == "execute_tool get_weather"
    assert "'c9'" in problem.message


def test_a_call_whose_result_is_nowhere_while_the_agent_went_on_is_refused() -> None:
    with recording() as (tracer, spans), tracer.start_as_current_span("agent"):
        chat(tracer, [USER], [call("c1", "get_weather", city="SF")])
        chat(tracer, [USER], [{"type": "text", "content": "done"}])
    (problem,) = read_spans(spans).problems
    assert "has no result" in problem.message


def test_a_tool_span_without_call_id_ties_only_when_unambiguous() -> None:
    with recording() as (tracer, spans), tracer.start_as_current_span("agent"):
        chat(tracer, [USER], [call(None, "get_weather", city="SF")])
        tool(tracer, "get_weather", None, "sunny")
    (trajectory,) = trajectories_from_spans(spans)
    assert trajectory["messages"][-1]["content"] == "sunny"
    with recording() as (tracer, spans):  # noqa: SIM117
        with tracer.start_as_current_span("agent"):
            chat(tracer, [USER], [call(None, "get_weather", city="SF"), call(None, "get_weather", city="LA")])  # fmt: skip # noqa: E501
            tool(tracer, "get_weather", None, "sunny")
            tool(tracer, "get_weather", None, "rainy")
    problems = read_spans(spans).problems
    assert len(problems) == 2 and all("cannot be tied" in p.message for p in problems)


def test_older_and_unknown_convention_versions_are_refused_clearly() -> None:
    with recording() as (tracer, spans):  # noqa: SIM117
        with tracer.start_as_current_span("chat old", attributes={"gen_ai.operation.name": "chat"}) as span:  # fmt: skip # noqa: E501
            span.add_event("gen_ai.choice", {"index": 0})
    (problem,) = read_spans(spans).problems
    assert "1.28 to 1.36" in problem.message and "gen_ai_latest_experimental" in problem.message
    with recording(schema_url="https://opentelemetry.io/schemas/1.52.0") as (tracer, spans):
        chat(tracer, [USER], [{"type": "text", "content": "hi"}])
    (problem,) = read_spans(spans).problems
    assert "1.52" in problem.message and "1.37 to 1.41" in problem.message


def test_several_choices_are_refused() -> None:
    with recording() as (tracer, spans):
        output = [text("assistant", "a"), text("assistant", "b")]
        attributes = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps([USER]), "gen_ai.output.messages": json.dumps(output)}  # fmt: skip # noqa: E501
        with tracer.start_as_current_span("chat", attributes=attributes):
            pass
    (problem,) = read_spans(spans).problems
    assert "2 messages (choices)" in problem.message


def test_one_trajectory_per_root_span() -> None:
    with recording() as (tracer, spans):
        with tracer.start_as_current_span("session"):
            pass
        chat(tracer, [USER], [{"type": "text", "content": "one"}])
        chat(tracer, [text("user", "again")], [{"type": "text", "content": "two"}])
    per_trace = trajectories_from_spans(spans)
    assert len(per_trace) == 2  # each chat span started its own trace here
    per_root = trajectories_from_spans(spans, group_by="root_span")
    assert [t["messages"][-1]["content"] for t in per_root] == ["one", "two"]
    assert [t["root_span_id"] for t in per_root] == [format(s.context.span_id, "016x") for s in spans[1:]]  # fmt: skip # noqa: E501


def test_otlp_json_files_read_like_the_spans(tmp_path: Path) -> None:
    with recording() as (tracer, spans):
        _parallel_agent(tracer)
        _parallel_agent(tracer)
    document = tmp_path / "traces.json"
    document.write_text(json.dumps(otlp_document(spans)))
    assert read_otlp_json(document).trajectories == read_spans(spans).trajectories
    lines = tmp_path / "traces.jsonl"  # the Collector's file exporter: one request per line
    lines.write_text("\n".join(json.dumps(otlp_document([span])) for span in spans) + "\n")
    assert read_otlp_json(lines).trajectories == read_spans(spans).trajectories
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(otlp_document(spans, "https://opentelemetry.io/schemas/1.60.0")))
    reading = read_otlp_json(newer)
    assert reading.trajectories == [] and "1.60" in reading.problems[0].message


def test_traces_without_agent_spans_are_skipped_and_bad_items_refused() -> None:
    with recording() as (tracer, spans), tracer.start_as_current_span("GET /health"):
        pass
    assert read_spans(spans).trajectories == [] and read_spans(spans).problems == []
    with pytest.raises(TypeError, match=r"spans\[0\] is int"):
        read_spans([3])
    with pytest.raises(ValueError, match="group_by"):
        read_spans([], group_by="span")  # type: ignore[arg-type]
