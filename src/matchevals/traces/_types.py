"""The vocabulary of reading trajectories from traces: what a reader returns, what it refuses.

A reader turns one source (OpenTelemetry spans, a LangSmith run tree, OpenAI Agents SDK items,
an ADK eval set) into OpenAI-style message lists that :mod:`matchevals.trajectory` scores. What
it cannot read exactly is a :class:`TraceProblem` naming the span (or run) at fault; a trace with
a problem yields no trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypedDict

__all__ = [
    "GroupBy",
    "TraceError",
    "TraceProblem",
    "TraceReading",
    "TraceTrajectory",
]

GroupBy = Literal["trace", "root_span"]
"""One trajectory per trace, or per root span (a span without a parent)."""


class TraceTrajectory(TypedDict):
    """One trajectory read from a trace: scorable as it is (``messages`` is what the trajectory
    evaluators read from a dict; the other keys say where it came from).

    >>> record: TraceTrajectory = {"trace_id": "0af7", "root_span_id": None, "messages": []}
    """

    trace_id: str
    root_span_id: str | None
    messages: list[dict[str, Any]]


class TraceProblem(NamedTuple):
    """Why one trace (or run) yields no trajectory, naming the span (or run) at fault.

    >>> print(TraceProblem("0af7", "b7ad", "chat gpt-4o", "has no gen_ai.output.messages"))
    trace 0af7, span b7ad ('chat gpt-4o'): has no gen_ai.output.messages
    """

    trace_id: str
    span_id: str | None
    name: str | None
    message: str

    def __str__(self) -> str:
        if self.span_id is None:
            return f"trace {self.trace_id}: {self.message}"
        return f"trace {self.trace_id}, span {self.span_id} ({self.name!r}): {self.message}"


class TraceError(ValueError):
    """Raised when some trace could not be read exactly; ``problems`` lists every one.

    >>> error = TraceError([TraceProblem("0af7", None, None, "no chat span")])
    >>> str(error)
    'could not read 1 trace exactly:\\n  trace 0af7: no chat span'
    """

    def __init__(self, problems: list[TraceProblem]) -> None:
        self.problems = list(problems)
        traces = len({problem.trace_id for problem in self.problems})
        lines = "\n".join(f"  {problem}" for problem in self.problems)
        noun = "trace" if traces == 1 else "traces"
        super().__init__(f"could not read {traces} {noun} exactly:\n{lines}")


@dataclass
class TraceReading:
    """What a reader found: the trajectories it read exactly (in the order their traces
    started) and the problems of the traces it refused.

    >>> reading = TraceReading()
    >>> reading.trajectories, reading.problems
    ([], [])
    """

    trajectories: list[TraceTrajectory] = field(default_factory=list)
    problems: list[TraceProblem] = field(default_factory=list)

    def checked(self) -> list[TraceTrajectory]:
        """The trajectories, or a :class:`TraceError` listing every problem."""
        if self.problems:
            raise TraceError(self.problems)
        return self.trajectories
