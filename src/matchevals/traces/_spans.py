"""Spans as they come (plain dicts, in any order) gathered per trace, then read into one
trajectory per trace or per root span.

A span dict holds ``trace_id``, ``span_id``, ``parent_span_id`` (None for a root), ``name``,
``start_time`` and ``end_time`` (nanoseconds), ``attributes`` (a dict), ``events`` (dicts with
``name`` and ``attributes``) and ``schema_url``. Each span is reduced as it arrives to what a
trajectory needs (its turn or tool run; a model call's input conversation only while it is the
earliest of its trace), so reading streams: memory grows with the trajectories, not the input.
Traces without a GenAI or OpenInference model or tool span are not agent runs and are skipped.

>>> collector = SpanCollector("trace")
>>> collector.add({"trace_id": "t", "span_id": "s", "parent_span_id": None, "name": "chat",
...     "start_time": 1, "attributes": {"gen_ai.operation.name": "chat",
...     "gen_ai.input.messages": '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]',
...     "gen_ai.output.messages": '[{"role": "assistant", "parts": [{"type": "text", "content": "hello"}]}]'}})
>>> collector.finish().trajectories
[{'trace_id': 't', 'root_span_id': 's', 'messages': [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'hello'}]}]
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from matchevals.traces._assemble import ModelTurn, Site, ToolRun, assemble
from matchevals.traces._genai import check_schema, read_genai_span, site_of
from matchevals.traces._genai_history import read_answers, read_history
from matchevals.traces._openinference import (
    KIND,
    read_openinference_history,
    read_openinference_span,
)
from matchevals.traces._types import GroupBy, TraceProblem, TraceReading, TraceTrajectory

__all__ = ["GROUPINGS", "SchemaRef", "SpanCollector"]

GROUPINGS: tuple[GroupBy, ...] = ("trace", "root_span")


@dataclass
class SchemaRef:
    """A scope's schema URL, known once the scope has been read to its end (OTLP JSON may
    write it after the spans)."""

    url: str | None = None


@dataclass
class _Trace:
    first: Any = None  # the earliest start time seen
    parents: dict[str, str | None] = field(default_factory=dict)
    turns: list[ModelTurn] = field(default_factory=list)
    runs: list[ToolRun] = field(default_factory=list)
    answers: dict[str, Any] = field(default_factory=dict)
    problems: list[TraceProblem] = field(default_factory=list)
    earliest: ModelTurn | None = None


class SpanCollector:
    """Gathers spans one at a time; :meth:`finish` reads the trajectories."""

    def __init__(self, group_by: GroupBy) -> None:
        if group_by not in GROUPINGS:
            raise ValueError(f"group_by is {group_by!r}; expected 'trace' or 'root_span'")
        self.group_by = group_by
        self.traces: dict[str, _Trace] = {}
        self.deferred: list[tuple[_Trace, Site, SchemaRef]] = []

    def add(self, span: Mapping[str, Any]) -> None:
        trace_id, span_id = str(span.get("trace_id")), str(span.get("span_id"))
        trace = self.traces.get(trace_id)
        if trace is None:
            trace = self.traces[trace_id] = _Trace()
        parent = span.get("parent_span_id")
        trace.parents[span_id] = str(parent) if parent else None
        start = span.get("start_time") or 0
        trace.first = start if trace.first is None else min(trace.first, start)
        attributes = span.get("attributes") or {}
        if "gen_ai.operation.name" in attributes:
            item = read_genai_span(span, attributes)
        elif KIND in attributes:
            item = read_openinference_span(span, attributes)
        else:
            return
        if item is None:
            return
        schema = span.get("schema_url")
        if isinstance(schema, SchemaRef):  # known once its scope is read to the end
            self.deferred.append((trace, site_of(span), schema))
        elif schema:
            unknown = check_schema(str(schema))
            if unknown is not None:
                trace.problems.append(site_of(span).problem(unknown))
        if isinstance(item, TraceProblem):
            trace.problems.append(item)
        elif isinstance(item, ToolRun):
            trace.runs.append(item)
        else:
            self._turn(trace, item, attributes)

    def _turn(self, trace: _Trace, turn: ModelTurn, attributes: Mapping[str, Any]) -> None:
        if KIND in attributes:
            read = read_openinference_history(attributes, turn.site)
        elif turn.history is not None:
            raw: list[Any] = turn.history
            trace.answers.update(read_answers(raw))
            keep = self.group_by == "root_span" or _earlier(turn, trace.earliest)
            read = read_history(raw, turn.site) if keep else ([], {})
        else:
            read = None
        if isinstance(read, TraceProblem):
            trace.problems.append(read)
            return
        turn.history = None if read is None else read[0]
        if read is not None:
            trace.answers.update(read[1])
        if self.group_by == "trace" and _earlier(turn, trace.earliest):
            if trace.earliest is not None:
                trace.earliest.history = [] if trace.earliest.history is not None else None
            trace.earliest = turn
        trace.turns.append(turn)

    def finish(self) -> TraceReading:
        """Every trace read: trajectories in the order their traces (or root spans) started."""
        for trace, site, ref in self.deferred:
            unknown = check_schema(ref.url) if ref.url else None
            if unknown is not None:
                trace.problems.append(site.problem(unknown))
        found: list[tuple[Any, TraceTrajectory | list[TraceProblem]]] = []
        for trace_id, trace in self.traces.items():
            for root, (turns, runs, problems) in self._groups(trace_id, trace).items():
                if not turns and not runs and not problems:
                    continue
                messages, more = assemble(turns, runs, trace.answers) if turns or runs else ([], [])  # fmt: skip # noqa: E501
                problems = problems + more
                order = (trace.first, root or "")
                if problems:
                    found.append((order, problems))
                else:
                    found.append((order, {"trace_id": trace_id, "root_span_id": root, "messages": messages}))  # fmt: skip # noqa: E501
        found.sort(key=lambda entry: entry[0])
        reading = TraceReading()
        for _, result in found:
            if isinstance(result, list):
                reading.problems.extend(result)
            else:
                reading.trajectories.append(result)
        return reading

    def _groups(
        self, trace_id: str, trace: _Trace
    ) -> dict[str | None, tuple[list[ModelTurn], list[ToolRun], list[TraceProblem]]]:
        roots = [span for span, parent in trace.parents.items() if parent is None]
        if self.group_by == "trace":
            only = roots[0] if len(roots) == 1 else None
            return {only: (trace.turns, trace.runs, trace.problems)}
        groups: dict[str | None, tuple[list[ModelTurn], list[ToolRun], list[TraceProblem]]] = {}
        items: list[ModelTurn | ToolRun | TraceProblem] = [*trace.turns, *trace.runs, *trace.problems]  # fmt: skip # noqa: E501
        for item in items:
            span_id = item.span_id if isinstance(item, TraceProblem) else item.site.span_id
            root, missing = _root(trace.parents, span_id)
            turns, runs, problems = groups.setdefault(root, ([], [], []))
            if missing is not None:
                problems.append(TraceProblem(trace_id, span_id, None, f"its ancestor span {missing} is not in the input, so its root span is unknown"))  # fmt: skip # noqa: E501
            elif isinstance(item, ModelTurn):
                turns.append(item)
            elif isinstance(item, ToolRun):
                runs.append(item)
            else:
                problems.append(item)
        return groups


def _earlier(turn: ModelTurn, than: ModelTurn | None) -> bool:
    return than is None or turn.order < than.order


def _root(parents: Mapping[str, str | None], span_id: str | None) -> tuple[str | None, str | None]:
    """The root span above ``span_id``, or the ancestor id missing from the input."""
    seen: set[str] = set()
    current = span_id
    while current is not None and current not in seen:
        seen.add(current)
        if current not in parents:
            return None, current
        parent = parents[current]
        if parent is None:
            return current, None
        current = parent
    return None, current
