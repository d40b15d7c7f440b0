"""Trajectories from OpenTelemetry spans: SDK spans, plain span dicts, OTLP JSON files.

>>> reading = read_spans([])
>>> reading.trajectories, reading.problems
([], [])
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from matchevals.traces._otlp import otlp_spans
from matchevals.traces._sdk import is_sdk_span, sdk_span_dict
from matchevals.traces._spans import SpanCollector
from matchevals.traces._types import GroupBy, TraceReading, TraceTrajectory

__all__ = ["read_otlp_json", "read_spans", "trajectories_from_spans"]


def read_spans(spans: Iterable[Any], *, group_by: GroupBy = "trace") -> TraceReading:
    """Read OpenTelemetry spans (SDK ``ReadableSpan`` objects, or plain span dicts) into one
    trajectory per trace (``group_by="root_span"``: per root span); traces that cannot be read
    exactly are listed in ``problems`` instead.

    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # doctest: +SKIP
    ...     InMemorySpanExporter)
    >>> read_spans(exporter.get_finished_spans()).trajectories  # doctest: +SKIP
    [{'trace_id': '...', 'root_span_id': '...', 'messages': [...]}]
    """
    collector = SpanCollector(group_by)
    for index, span in enumerate(spans):
        if is_sdk_span(span):
            collector.add(sdk_span_dict(span))
        elif isinstance(span, dict):
            collector.add(span)
        else:
            raise TypeError(
                f"spans[{index}] is {type(span).__name__}; expected an OpenTelemetry SDK span "
                "(ReadableSpan) or a span dict"
            )
    return collector.finish()


def trajectories_from_spans(
    spans: Iterable[Any], *, group_by: GroupBy = "trace"
) -> list[TraceTrajectory]:
    """:func:`read_spans`, raising :class:`TraceError` (listing every problem) when some trace
    cannot be read exactly.

    >>> trajectories_from_spans([])
    []
    """
    return read_spans(spans, group_by=group_by).checked()


def read_otlp_json(
    source: str | os.PathLike[str] | IO[bytes], *, group_by: GroupBy = "trace"
) -> TraceReading:
    """Read an OTLP JSON file (a path, or a file opened in binary mode), streaming: one
    document, or one per line as the OpenTelemetry Collector's file exporter writes them.

    >>> read_otlp_json("traces.json").trajectories  # doctest: +SKIP
    """
    collector = SpanCollector(group_by)
    if isinstance(source, (str, os.PathLike)):
        with Path(source).open("rb") as file:
            for span in otlp_spans(file):
                collector.add(span)
    else:
        for span in otlp_spans(source):
            collector.add(span)
    return collector.finish()
