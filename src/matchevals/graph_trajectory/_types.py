"""Plain data types for LangGraph superstep trajectories and their references."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple, TypedDict, Union

__all__ = [
    "GraphRunReferenceTrajectory",
    "GraphRunTrajectory",
    "GraphTrajectoryMatchMode",
    "ReferenceStep",
    "Repeat",
]

GraphTrajectoryMatchMode = Literal["exact", "unordered", "subset", "superset"]


class GraphRunTrajectory(TypedDict):
    """One invocation of a graph: ``steps[i]`` lists the nodes LangGraph ran in superstep ``i``.

    >>> run: GraphRunTrajectory = {"inputs": {"q": 1}, "results": None, "steps": [["a"], ["b", "c"]]}
    """

    inputs: dict[str, Any] | None
    results: dict[str, Any] | None
    steps: list[list[str]]


class ReferenceStep(NamedTuple):
    """How one expected superstep matches: its nodes and the mode used to compare them.

    ``ReferenceStep(["b", "c"])`` accepts ``["c", "b"]`` (the default mode is ``"unordered"``);
    ``ReferenceStep(["b", "c"], "exact")`` accepts only ``["b", "c"]``.
    """

    steps: list[str]
    match_mode: GraphTrajectoryMatchMode = "unordered"
    optional: bool = False


class Repeat(NamedTuple):
    """A sequence of reference steps that repeats between ``min`` and ``max`` times (None: no cap).

    >>> agent_loop = Repeat([["agent"], ["tools"]], min=1)
    """

    steps: list[ReferenceStep | list[str]]
    min: int = 1
    max: int | None = None


ReferenceStepLike = Union[ReferenceStep, list[str], Repeat]


class GraphRunReferenceTrajectory(TypedDict):
    """The expected shape of one invocation: per-superstep references, possibly with patterns."""

    inputs: dict[str, Any] | None
    results: dict[str, Any] | None
    steps: list[ReferenceStepLike]
