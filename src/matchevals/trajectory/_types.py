"""The vocabulary of trajectory matching: modes, option types, and normalized trajectories.

A trajectory is normalized once into :class:`Message` objects holding their role and their
:class:`ToolCall` objects (name and arguments as a JSON object); everything after that works on
these plain values. Locations (``outputs[3].tool_calls[1]``) are kept for explanations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Alignment",
    "ArgsMatcher",
    "Message",
    "ToolArgsMatchMode",
    "ToolArgsOverride",
    "ToolCall",
    "Trajectory",
    "TrajectoryMatchMode",
    "TrajectoryScore",
]

TrajectoryMatchMode = Literal["strict", "unordered", "subset", "superset"]
"""How two trajectories must correspond (see :func:`create_trajectory_match_evaluator`)."""

ToolArgsMatchMode = Literal["exact", "ignore", "subset", "superset"]
"""How the arguments of two calls of the same tool must correspond."""

Alignment = Literal["optimal", "greedy"]
"""``optimal``: a maximum pairing of tool calls; ``greedy``: openevals' first-come pairing."""

TrajectoryScore = Literal["match", "precision", "recall", "f1"]
"""``match``: openevals' boolean; the others grade the pairing of tool calls."""

ArgsMatcher = Callable[[dict[str, Any], dict[str, Any]], bool]
"""``(output_args, reference_args) -> bool``, as openevals calls it."""

ToolArgsOverride = ToolArgsMatchMode | Sequence[str] | ArgsMatcher | Mapping[str, Any]
"""A mode, a list of dotted keys, a matcher or evaluator, or a dict of json_match options."""

MODES: tuple[TrajectoryMatchMode, ...] = ("strict", "unordered", "subset", "superset")
ARGS_MODES: tuple[ToolArgsMatchMode, ...] = ("exact", "ignore", "subset", "superset")
ALIGNMENTS: tuple[Alignment, ...] = ("optimal", "greedy")
SCORES: tuple[TrajectoryScore, ...] = ("match", "precision", "recall", "f1")


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: its name, its arguments (a JSON object) and where it was found.

    ``message`` is the index of its message in the normalized trajectory; ``at`` the location
    of the call in the input, e.g. ``outputs[1].tool_calls[0]`` or ``outputs[1].content[2]``.
    """

    name: str
    args: dict[str, Any]
    message: int
    at: str


@dataclass(frozen=True, slots=True)
class Message:
    """One normalized message: its role (``user``, ``assistant``, ``tool``, ...), where it was
    found (``outputs[3]``), and its tool calls (empty when it made none)."""

    role: str
    at: str
    tool_calls: tuple[ToolCall, ...]


Trajectory = tuple[Message, ...]
