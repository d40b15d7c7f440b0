"""The vocabulary of trajectory matching: modes, option types, and normalized trajectories.

A trajectory is normalized once into :class:`Message` objects holding their role and their
:class:`ToolCall` objects (name and arguments as a JSON object); everything after that works on
these plain values. Locations (``outputs[3].tool_calls[1]``) are kept for explanations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

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
    "TurnMatchMode",
]

TrajectoryMatchMode = Literal["strict", "unordered", "subset", "superset", "in_order", "pattern"]
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

TurnMatchMode = Literal["exact", "unordered", "subset", "superset"]
"""How one assistant turn's tool calls must correspond to a :class:`TurnStep`'s."""

MODES: tuple[TrajectoryMatchMode, ...] = (
    "strict",
    "unordered",
    "subset",
    "superset",
    "in_order",
    "pattern",
)
TURN_MODES: tuple[TurnMatchMode, ...] = ("exact", "unordered", "subset", "superset")
WILDCARD = "*"
"""A tool name matching any tool (any arguments), and, as a turn pattern, any one turn."""
ARGS_MODES: tuple[ToolArgsMatchMode, ...] = ("exact", "ignore", "subset", "superset")
ALIGNMENTS: tuple[Alignment, ...] = ("optimal", "greedy")
SCORES: tuple[TrajectoryScore, ...] = ("match", "precision", "recall", "f1")


@dataclass(slots=True, eq=False)
class ToolCall:
    """One tool call: its name, its arguments (a JSON object) and where it was found.

    ``text`` is the arguments' JSON text when they came as a string (equal texts are equal
    arguments, which pairing uses before hashing values). ``message`` is the index of the
    call's message in the normalized trajectory; :attr:`at` its location in the input, e.g.
    ``outputs[1].tool_calls[0]`` or ``outputs[1].content[2]``. Calls compare by identity.
    """

    name: str
    args: dict[str, Any]
    text: str | None
    message: int
    place: tuple[str, int, str, int]  # (base, input message index, field, position)

    @property
    def at(self) -> str:
        base, source, field, position = self.place
        return f"{base}[{source}].{field}[{position}]"


@dataclass(slots=True, eq=False)
class Message:
    """One normalized message: its role (``user``, ``assistant``, ``tool``, ...), its tool
    calls (empty when it made none) and where it was found (:attr:`at`: ``outputs[3]``, or
    ``outputs[3].content[0]`` for a tool result taken out of an Anthropic user message)."""

    role: str
    tool_calls: tuple[ToolCall, ...]
    place: tuple[str, int, int | None]  # (base, input message index, content block or None)

    @property
    def at(self) -> str:
        base, source, block = self.place
        return f"{base}[{source}]" if block is None else f"{base}[{source}].content[{block}]"


class Trajectory(Sequence[Message]):
    """One side, read: per message its role, its calls and where it came from (columns, filled
    by appending while reading), and every tool call in order.

    Indexing and iteration give :class:`Message` views. Treat every list as read-only.
    """

    __slots__ = ("base", "blocks", "calls", "message_calls", "roles", "sources")

    def __init__(self, base: str) -> None:
        self.base = base  # "outputs", or "outputs.messages" when the messages came in a dict
        self.roles: list[str] = []
        self.message_calls: list[tuple[ToolCall, ...]] = []
        self.sources: list[int] = []  # the input message of each message
        self.blocks: dict[int, int] = {}  # message -> its content block, if one
        self.calls: list[ToolCall] = []

    def add(self, role: str, calls: tuple[ToolCall, ...], source: int) -> None:
        """Append one message (its calls are already numbered with its index)."""
        self.roles.append(role)
        self.message_calls.append(calls)
        self.sources.append(source)
        if calls:
            self.calls.extend(calls)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self.roles))[index]]
        if index < 0:
            index += len(self.roles)
        place = (self.base, self.sources[index], self.blocks.get(index))
        return Message(self.roles[index], self.message_calls[index], place)

    def __len__(self) -> int:
        return len(self.roles)

    def __iter__(self) -> Iterator[Message]:
        return (self[index] for index in range(len(self.roles)))
