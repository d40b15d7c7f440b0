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

    >>> run: GraphRunTrajectory = {"inputs": None, "results": None, "steps": [["a"], ["b", "c"]]}
    """

    inputs: dict[str, Any] | None
    results: dict[str, Any] | None
    steps: list[list[str]]


class ReferenceStep(NamedTuple):
    """How one expected superstep matches: its nodes, the mode used to compare them, and
    whether it may be absent.

    ``ReferenceStep(["b", "c"])`` accepts ``["c", "b"]`` (the default mode is ``"unordered"``);
    ``ReferenceStep(["b", "c"], "exact")`` accepts only ``["b", "c"]``. A bare list in a
    reference means ``ReferenceStep(that_list, "unordered")``. The node name ``"*"`` matches any
    one node.

    >>> ReferenceStep(["tools"], optional=True)
    ReferenceStep(steps=['tools'], match_mode='unordered', optional=True)
    """

    steps: list[str]
    match_mode: GraphTrajectoryMatchMode = "unordered"
    optional: bool = False


class Repeat(NamedTuple):
    """A sequence of reference steps that repeats between ``min`` and ``max`` times (None: no cap).

    Its steps are bare lists or :class:`ReferenceStep` (optional ones included); a Repeat inside
    a Repeat is rejected with a ``ValueError``.

    >>> agent_loop = Repeat([["agent"], ["tools"]], min=1)
    """

    steps: list[ReferenceStep | list[str]]
    min: int = 1
    max: int | None = None


ReferenceStepLike = Union[ReferenceStep, list[str], Repeat]  # noqa: UP007 - runtime alias on 3.10


class GraphRunReferenceTrajectory(TypedDict):
    """The expected shape of one invocation: per-superstep references, possibly with patterns.

    >>> ref: GraphRunReferenceTrajectory = {
    ...     "inputs": None, "results": None,
    ...     "steps": [Repeat([["agent"], ["tools"]]), ["agent"]],
    ... }
    """

    inputs: dict[str, Any] | None
    results: dict[str, Any] | None
    steps: list[ReferenceStepLike]
