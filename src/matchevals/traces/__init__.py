"""Trajectories from where agents already record them: OpenTelemetry GenAI and OpenInference
spans, LangSmith runs, OpenAI Agents SDK runs, Google ADK evaluation files.

Each reader returns OpenAI-style message dicts (assistant messages with ``tool_calls``, tool
messages with ``tool_call_id``), which every mode of :mod:`matchevals.trajectory` scores; what it
cannot read exactly is a :class:`TraceProblem` naming the span, never a guess.

>>> from matchevals.traces import trajectories_from_spans
>>> trajectories_from_spans([])
[]
"""

from matchevals.traces._adk import ADK_MATCH_TYPES, AdkInvocation, read_adk_eval
from matchevals.traces._langsmith import (
    evaluate_run_trajectory,
    graph_runs_from_langsmith_run,
    trajectory_from_langsmith_run,
)
from matchevals.traces._openai_agents import messages_from_agent_items
from matchevals.traces._otel import read_otlp_json, read_spans, trajectories_from_spans
from matchevals.traces._types import (
    GroupBy,
    TraceError,
    TraceProblem,
    TraceReading,
    TraceTrajectory,
)

__all__ = [
    "ADK_MATCH_TYPES",
    "AdkInvocation",
    "GroupBy",
    "TraceError",
    "TraceProblem",
    "TraceReading",
    "TraceTrajectory",
    "evaluate_run_trajectory",
    "graph_runs_from_langsmith_run",
    "messages_from_agent_items",
    "read_adk_eval",
    "read_otlp_json",
    "read_spans",
    "trajectories_from_spans",
    "trajectory_from_langsmith_run",
]

for _public in (
    TraceError,
    TraceProblem,
    TraceReading,
    evaluate_run_trajectory,
    graph_runs_from_langsmith_run,
    messages_from_agent_items,
    read_adk_eval,
    read_otlp_json,
    read_spans,
    trajectories_from_spans,
    trajectory_from_langsmith_run,
):
    _public.__module__ = __name__  # they report where users import them from
del _public
