"""agentevals' strict match of flat trajectories (one node list per invocation), explained.

Pure: the same answer as agentevals 0.0.9's ``graph_trajectory_strict_match`` (invocation by
invocation, each node list compared as an ordered list, results ignored, a different number of
invocations is False, not an error), plus a comment saying what differs.

>>> flat_strict_match({"steps": [["a", "b"]]}, {"results": [], "steps": [["b", "a"]]})
(False, 'invocation 0: expected [b, a], got [a, b]')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matchevals.graph_trajectory._reference import describe
from matchevals.graph_trajectory._verdict import _nodes as nodes_text

__all__ = ["flat_steps", "flat_strict_match"]

_NATIVE_HELP = (
    "its steps are one invocation's supersteps, not one node list per invocation: score it with "
    "matchevals.graph_trajectory.graph_trajectory_match, or convert it with "
    "matchevals.graph_trajectory.to_agentevals_trajectory"
)


def flat_steps(value: object, name: str) -> Sequence[Sequence[str]]:
    """The node lists of an agentevals ``GraphTrajectory``, checked; other shapes refused."""
    if value is None:
        raise ValueError(
            f"{name} is None; strict trajectory match requires both outputs and reference_outputs"
        )
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} is {describe(value)}; expected an agentevals GraphTrajectory dict")
    if "steps" not in value and isinstance(value.get("outputs"), Mapping):
        raise TypeError(
            f"{name} is a whole extracted thread ({{'inputs': ..., 'outputs': ...}}); "
            f"pass its 'outputs' (the GraphTrajectory) as {name}"
        )
    results, inputs = value.get("results", []), value.get("inputs")
    if not isinstance(results, list) or not (inputs is None or isinstance(inputs, list)):
        which = "results" if not isinstance(results, list) else "inputs"
        raise TypeError(
            f"{name} looks like a matchevals run ({name}.{which} is {describe(value[which])}, "
            f"not a list of one entry per invocation); {_NATIVE_HELP}"
        )
    if "steps" not in value:
        raise ValueError(f'{name} has no "steps"; expected one list of node names per invocation')
    steps = value["steps"]
    if not isinstance(steps, (list, tuple)):
        raise TypeError(f"{name}.steps is {describe(steps)}, expected a list of node lists")
    for index, names in enumerate(steps):
        if not isinstance(names, (list, tuple)):
            raise TypeError(
                f"{name}.steps[{index}] is {describe(names)}, expected a list of node names"
            )
        for position, node in enumerate(names):
            if not isinstance(node, str):
                raise TypeError(
                    f"{name}.steps[{index}][{position}] is {describe(node)}, "
                    "expected a node name (str)"
                )
    return steps


def flat_strict_match(outputs: object, reference_outputs: object) -> tuple[bool, str | None]:
    """(score, comment): True when every invocation ran exactly the reference's node list."""
    steps = flat_steps(outputs, "outputs")
    expected = flat_steps(reference_outputs, "reference_outputs")
    if len(steps) != len(expected):
        return False, f"{len(steps)} invocations, {len(expected)} expected"
    for index, (names, wanted) in enumerate(zip(steps, expected, strict=True)):
        if list(names) != list(wanted):
            return (
                False,
                f"invocation {index}: expected {nodes_text(wanted)}, got {nodes_text(names)}",
            )
    return True, None
