"""The vocabulary of trajectory matching: modes, option types, and normalized trajectories.

A trajectory is normalized once into :class:`Message` objects holding their role and their
:class:`ToolCall` objects (name and arguments as a JSON object); everything after that works on
these plain values. Locations (``outputs[3].tool_calls[1]``) are kept for explanations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, overload

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
    "TurnStep",
    "check_turn_fields",
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


_CALL_KEYS = frozenset({"name", "args", "id", "type"})


def _describe(value: object) -> str:
    if value is None:
        return "None"
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def check_turn_fields(
    calls: object, mode: object, optional: object, path: str, mode_field: str = "mode"
) -> None:
    """The rules of one turn step's fields, wherever it comes from (a :class:`TurnStep` being
    built, a dict of a JSON pattern, whose mode is ``match_mode``); errors name ``path``."""
    if not isinstance(calls, (list, tuple)):
        raise TypeError(f"{path}.calls is {_describe(calls)}, expected a list of tool calls")
    for index, call in enumerate(calls):
        at = f"{path}.calls[{index}]"
        if not isinstance(call, Mapping):
            raise TypeError(f'{at} is {_describe(call)}, expected a tool call {{"name": ...}}')
        unknown = sorted(str(key) for key in call if key not in _CALL_KEYS)
        if unknown:
            raise ValueError(f"{at} has unknown keys {unknown}; expected name and args")
        if not isinstance(call.get("name"), str):
            raise TypeError(f"{at}.name is {_describe(call.get('name'))}, expected a tool name")
        if "args" in call and not isinstance(call["args"], Mapping):
            raise TypeError(
                f"{at}.args is {_describe(call['args'])}, expected a JSON object (leave args "
                "out to accept any arguments)"
            )
    if mode not in TURN_MODES:
        raise ValueError(
            f"{path}.{mode_field} is {mode!r}; expected one of {', '.join(sorted(TURN_MODES))}"
        )
    if not isinstance(optional, bool):
        raise TypeError(f"{path}.optional is {_describe(optional)}, expected a bool")


class _TurnStepFields(NamedTuple):
    calls: list[dict[str, Any]]
    mode: TurnMatchMode = "unordered"
    optional: bool = False


class TurnStep(_TurnStepFields):
    """One expected assistant turn of a turn pattern (``trajectory_match_mode="pattern"``).

    ``calls`` are tool calls ``{"name": ..., "args": ...}``; a call without ``"args"`` accepts
    any arguments, and the name ``"*"`` any tool. ``mode``: ``"exact"`` (these calls in this
    order), ``"unordered"`` (these calls, in any order), ``"subset"`` (only calls among
    these), ``"superset"`` (at least these). ``optional=True``: the turn may be absent. Its
    fields are checked when it is built.

    >>> TurnStep([{"name": "search"}], optional=True)
    TurnStep(calls=[{'name': 'search'}], mode='unordered', optional=True)
    >>> TurnStep([{"name": 3}])
    Traceback (most recent call last):
    ...
    TypeError: TurnStep.calls[0].name is an int, expected a tool name
    """

    __slots__ = ()

    def __new__(
        cls,
        calls: list[dict[str, Any]],
        mode: TurnMatchMode = "unordered",
        optional: bool = False,
    ) -> TurnStep:
        check_turn_fields(calls, mode, optional, "TurnStep")
        return super().__new__(cls, calls, mode, optional)
