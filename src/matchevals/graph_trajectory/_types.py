"""Plain data types for LangGraph superstep trajectories and their references."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, TypedDict, Union, get_args

__all__ = [
    "MODES",
    "GraphRunReferenceTrajectory",
    "GraphRunTrajectory",
    "GraphTrajectoryMatchMode",
    "ReferenceStep",
    "Repeat",
    "check_repeat_fields",
    "check_step_fields",
    "describe",
]

GraphTrajectoryMatchMode = Literal["exact", "unordered", "subset", "superset"]


class GraphRunTrajectory(TypedDict):
    """One invocation of a graph: ``steps[i]`` lists the nodes LangGraph ran in superstep ``i``.

    >>> run: GraphRunTrajectory = {"inputs": None, "results": None, "steps": [["a"], ["b", "c"]]}
    """

    inputs: dict[str, Any] | None
    results: dict[str, Any] | None
    steps: list[list[str]]


MODES: frozenset[str] = frozenset(get_args(GraphTrajectoryMatchMode))


def describe(value: object) -> str:
    """``a str``, ``an int``, ``None``: the type of a bad value, for error messages."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def check_step_fields(nodes: object, mode: object, optional: object, path: str) -> None:
    """The rules of one reference step's fields, wherever it comes from (a ``ReferenceStep``
    being built, a dict in a JSON reference); errors name ``path``."""
    if not isinstance(nodes, (list, tuple)):
        raise TypeError(f"{path}.steps is {describe(nodes)}, expected a list of node names")
    for index, name in enumerate(nodes):
        if not isinstance(name, str):
            raise TypeError(
                f"{path}.steps[{index}] is {describe(name)}, expected a node name (str)"
            )
    if mode not in MODES:
        raise ValueError(
            f"{path}.match_mode is {mode!r}; expected one of {', '.join(sorted(MODES))}"
        )
    if not isinstance(optional, bool):
        raise TypeError(f"{path}.optional is {describe(optional)}, expected a bool")


def check_repeat_fields(
    body: object, low: object, high: object, path: str, field: str = "steps"
) -> None:
    """The rules of a ``Repeat``'s own fields (its steps' fields are checked as steps);
    ``field`` names the body in errors (``repeat`` in a turn pattern's JSON form)."""
    if not isinstance(body, (list, tuple)):
        raise TypeError(f"{path}.{field} is {describe(body)}, expected a list of reference steps")
    if not body:
        raise ValueError(f"{path}.{field} is empty; a Repeat needs at least one step")
    for index, item in enumerate(body):
        if isinstance(item, Repeat) or (isinstance(item, Mapping) and "repeat" in item):
            raise ValueError(
                f"{path}.{field}[{index}] is a Repeat inside a Repeat; nested Repeat is not "
                "supported"
            )
    if type(low) is not int:
        raise TypeError(f"{path}.min is {describe(low)}, expected an int")
    if high is not None and type(high) is not int:
        raise TypeError(f"{path}.max is {describe(high)}, expected an int or None")
    if low < 0:
        raise ValueError(f"{path}.min is {low}; it must be at least 0")
    if high is not None and high < max(low, 1):
        raise ValueError(f"{path}.max is {high}; it must be at least max(min, 1) = {max(low, 1)}")


class _ReferenceStepFields(NamedTuple):
    steps: list[str]
    match_mode: GraphTrajectoryMatchMode = "unordered"
    optional: bool = False


class ReferenceStep(_ReferenceStepFields):
    """How one expected superstep matches: its nodes, the mode used to compare them, and
    whether it may be absent.

    ``ReferenceStep(["b", "c"])`` accepts ``["c", "b"]`` (the default mode is ``"unordered"``);
    ``ReferenceStep(["b", "c"], "exact")`` accepts only ``["b", "c"]``. A bare list in a
    reference means ``ReferenceStep(that_list, "unordered")``. The node name ``"*"`` matches any
    one node. Its fields are checked when it is built.

    >>> ReferenceStep(["tools"], optional=True)
    ReferenceStep(steps=['tools'], match_mode='unordered', optional=True)
    >>> ReferenceStep(["tools"], "exactly")
    Traceback (most recent call last):
    ...
    ValueError: ReferenceStep.match_mode is 'exactly'; expected one of exact, subset, ...
    """

    __slots__ = ()

    def __new__(
        cls,
        steps: list[str],
        match_mode: GraphTrajectoryMatchMode = "unordered",
        optional: bool = False,
    ) -> ReferenceStep:
        check_step_fields(steps, match_mode, optional, "ReferenceStep")
        return super().__new__(cls, steps, match_mode, optional)


class _RepeatFields(NamedTuple):
    steps: list[Any]
    min: int = 1
    max: int | None = None


class Repeat(_RepeatFields):
    """A sequence of reference steps that repeats between ``min`` and ``max`` times (None: no cap).

    In a graph reference its steps are bare lists or :class:`ReferenceStep` (optional ones
    included); in a turn pattern (``matchevals.trajectory``) they are ``TurnStep`` or ``"*"``.
    Its fields are checked when it is built: a Repeat inside a Repeat, an empty Repeat, ``min``
    below 0 or ``max`` below ``max(min, 1)`` are a ``ValueError``.

    >>> agent_loop = Repeat([["agent"], ["tools"]], min=1)
    >>> Repeat([Repeat([["agent"]])])
    Traceback (most recent call last):
    ...
    ValueError: Repeat.steps[0] is a Repeat inside a Repeat; nested Repeat is not supported
    """

    __slots__ = ()

    def __new__(cls, steps: list[Any], min: int = 1, max: int | None = None) -> Repeat:
        check_repeat_fields(steps, min, max, "Repeat")
        for index, step in enumerate(steps):
            if isinstance(step, list):
                check_step_fields(step, "unordered", False, f"Repeat.steps[{index}]")
        return super().__new__(cls, steps, min, max)


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
