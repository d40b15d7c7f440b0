"""Match LangGraph runs superstep by superstep (work in progress: types only so far)."""

from matchevals.graph_trajectory._types import (
    GraphRunReferenceTrajectory,
    GraphRunTrajectory,
    GraphTrajectoryMatchMode,
    ReferenceStep,
    Repeat,
)

__all__ = [
    "GraphRunReferenceTrajectory",
    "GraphRunTrajectory",
    "GraphTrajectoryMatchMode",
    "ReferenceStep",
    "Repeat",
]
