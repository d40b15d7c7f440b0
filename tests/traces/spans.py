"""Real OpenTelemetry SDK spans for the trace readers' tests, and their OTLP JSON form."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

SCHEMA = "https://opentelemetry.io/schemas/1.37.0"


@contextmanager
def recording(schema_url: str | None = SCHEMA) -> Iterator[tuple[Tracer, list[ReadableSpan]]]:
    """A tracer whose finished spans land in the yielded list when the block ends."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    spans: list[ReadableSpan] = []
    yield provider.get_tracer("agent", schema_url=schema_url), spans
    spans.extend(exporter.get_finished_spans())


def text(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": content}]}


def call(call_id: str | None, name: str, **arguments: Any) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "tool_call", "name": name, "arguments": arguments}
    if call_id is not None:
        part["id"] = call_id
    return part


def chat(
    tracer: Tracer,
    inputs: Sequence[dict[str, Any]],
    output_parts: Sequence[dict[str, Any]],
    **attributes: Any,
) -> None:
    """One chat span (GenAI 1.37+): the conversation given, and one assistant message."""
    output = [{"role": "assistant", "parts": list(output_parts), "finish_reason": "stop"}]
    with tracer.start_as_current_span(
        "chat model",
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(list(inputs)),
            "gen_ai.output.messages": json.dumps(output),
            **attributes,
        },
    ):
        pass


def tool(tracer: Tracer, name: str, call_id: str | None, result: str = "ok") -> None:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    attributes["gen_ai.tool.call.result"] = result
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    with tracer.start_as_current_span(f"execute_tool {name}", attributes=attributes):
        pass


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_any_value(item) for item in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Any) -> list[dict[str, Any]]:
    return [{"key": key, "value": _any_value(value)} for key, value in dict(attributes).items()]


def otlp_document(spans: Sequence[ReadableSpan], schema_url: str | None = SCHEMA) -> dict[str, Any]:
    """The spans as one OTLP JSON ``ExportTraceServiceRequest`` (hex ids, as the spec writes
    them), the scope's schema URL after its spans."""
    encoded = []
    for span in spans:
        parent = span.parent
        encoded.append(
            {
                "traceId": format(span.context.trace_id, "032x"),
                "spanId": format(span.context.span_id, "016x"),
                "parentSpanId": format(parent.span_id, "016x") if parent else "",
                "name": span.name,
                "kind": 1,
                "startTimeUnixNano": str(span.start_time),
                "endTimeUnixNano": str(span.end_time),
                "attributes": _attributes(span.attributes or {}),
                "events": [
                    {"name": event.name, "attributes": _attributes(event.attributes or {})}
                    for event in span.events
                ],
            }
        )
    scope: dict[str, Any] = {"scope": {"name": "agent"}, "spans": encoded}
    if schema_url:
        scope["schemaUrl"] = schema_url
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]}
