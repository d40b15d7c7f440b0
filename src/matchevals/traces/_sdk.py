"""OpenTelemetry SDK spans (``ReadableSpan``, as an ``InMemorySpanExporter`` collects them) as
the plain span dicts the readers take; read by attribute, the SDK is never imported.

>>> is_sdk_span({"trace_id": "t"})
False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["is_sdk_span", "sdk_span_dict"]


def is_sdk_span(value: Any) -> bool:
    """A ``ReadableSpan`` (or anything shaped like one): a ``context`` and ``attributes``."""
    return (
        not isinstance(value, Mapping)
        and hasattr(value, "context")
        and hasattr(value, "attributes")
        and hasattr(value, "name")
    )


def sdk_span_dict(span: Any) -> dict[str, Any]:
    """The span as a plain dict: hex ids, times in nanoseconds, attributes and events as dicts,
    the instrumentation scope's schema URL (or the resource's)."""
    context, parent = span.context, span.parent
    scope, resource = getattr(span, "instrumentation_scope", None), getattr(span, "resource", None)
    schema = getattr(scope, "schema_url", None) or getattr(resource, "schema_url", None)
    return {
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
        "parent_span_id": format(parent.span_id, "016x") if parent is not None else None,
        "name": span.name,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "attributes": dict(span.attributes or {}),
        "events": [
            {"name": event.name, "attributes": dict(event.attributes or {})}
            for event in span.events or ()
        ],
        "schema_url": schema or None,
    }
