"""OTLP JSON files (``ExportTraceServiceRequest`` as JSON: one document, or one per line as the
OpenTelemetry Collector's file exporter writes them) read as a stream of plain span dicts.

Streams through ijson (the ``otel`` extra): one span is in memory at a time, whatever the file's
size. Ids are kept as written (hex in OTLP JSON); ``intValue`` is read as an int, arrays and
key-value lists as lists and dicts, ``bytesValue`` as its base64 text.

>>> otlp_attributes([{"key": "n", "value": {"intValue": "3"}},
...                  {"key": "tags", "value": {"arrayValue": {"values": [{"stringValue": "a"}]}}}])
{'n': 3, 'tags': ['a']}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any

from matchevals.traces._spans import SchemaRef

__all__ = ["otlp_attributes", "otlp_spans", "otlp_value"]

_RESOURCE = "resourceSpans.item"
_SCOPE = "resourceSpans.item.scopeSpans.item"
_SPAN = "resourceSpans.item.scopeSpans.item.spans.item"


def otlp_value(value: Any) -> Any:
    """One OTLP ``AnyValue`` as a plain value."""
    if not isinstance(value, Mapping):
        return value
    for kind, item in value.items():
        if kind in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
            return float(item) if kind == "doubleValue" else item
        if kind == "intValue":
            return int(item)
        if kind == "arrayValue":
            return [otlp_value(entry) for entry in (item or {}).get("values") or ()]
        if kind == "kvlistValue":
            return otlp_attributes((item or {}).get("values") or ())
    return None


def otlp_attributes(attributes: Sequence[Any]) -> dict[str, Any]:
    """OTLP ``KeyValue`` pairs as a dict."""
    return {
        entry["key"]: otlp_value(entry.get("value"))
        for entry in attributes
        if isinstance(entry, Mapping) and "key" in entry
    }


def _span_dict(span: Mapping[str, Any], schema: SchemaRef) -> dict[str, Any]:
    parent = span.get("parentSpanId")
    return {
        "trace_id": span.get("traceId"),
        "span_id": span.get("spanId"),
        "parent_span_id": parent or None,
        "name": span.get("name"),
        "start_time": int(span.get("startTimeUnixNano") or 0),
        "end_time": int(span.get("endTimeUnixNano") or 0),
        "attributes": otlp_attributes(span.get("attributes") or ()),
        "events": [
            {
                "name": event.get("name"),
                "attributes": otlp_attributes(event.get("attributes") or ()),
            }
            for event in span.get("events") or ()
            if isinstance(event, Mapping)
        ],
        "schema_url": schema,
    }


class _Scopes:
    """Follows the parser's events: which scope a span is in, and each scope's schema URL (the
    scope's own, else its resource's)."""

    def __init__(self) -> None:
        self.scope = SchemaRef()
        self.resource_url: str | None = None
        self.pending: list[SchemaRef] = []  # the scopes of the current resource

    def watch(self, events: Iterator[tuple[str, str, Any]]) -> Iterator[tuple[str, str, Any]]:
        for event in events:
            prefix, kind, value = event
            if kind == "start_map" and prefix == _SCOPE:
                self.scope = SchemaRef()
                self.pending.append(self.scope)
            elif kind == "start_map" and prefix == _RESOURCE:
                self._end_resource()
            elif prefix == _SCOPE + ".schemaUrl" and value:
                self.scope.url = str(value)
            elif prefix == _RESOURCE + ".schemaUrl" and value:
                self.resource_url = str(value)
            yield event
        self._end_resource()

    def _end_resource(self) -> None:
        for scope in self.pending:
            if scope.url is None:
                scope.url = self.resource_url
        self.pending, self.resource_url = [], None


def otlp_spans(file: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The spans of an OTLP JSON file (one document or several, e.g. one per line), streamed."""
    try:
        import ijson
    except ImportError as error:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            'reading OTLP JSON files needs ijson: pip install "matchevals[otel]"'
        ) from error
    scopes = _Scopes()
    events = scopes.watch(ijson.parse(file, multiple_values=True, use_float=True))
    for span in ijson.items(events, _SPAN):
        yield _span_dict(span, scopes.scope)
