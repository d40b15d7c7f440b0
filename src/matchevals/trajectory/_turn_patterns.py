"""Turn patterns read into the shared pattern engine's model, and the output's turns.

A turn pattern (``trajectory_match_mode="pattern"``) is a list of :class:`TurnStep`,
``Repeat`` (of turn steps) and ``"*"`` (any one turn), or its JSON form
``{"turns": [{"calls": [...], "match_mode": "unordered", "optional": false},
{"repeat": [...], "min": 1, "max": 3}, "*"]}``. It is read into :class:`ExpectedTurn` and the
engine's :class:`~matchevals._patterns.Loop`, failing early with errors that name the path
(``reference_outputs.turns[2].calls[0].name``).

The output's turns are its assistant messages, in order (:func:`output_turns`); an assistant
message without tool calls (a final answer) is a turn with no calls. User, tool and system
messages are not turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._patterns import Loop
from matchevals.graph_trajectory._types import Repeat, check_repeat_fields
from matchevals.trajectory._json import a_type
from matchevals.trajectory._turn_step import TurnStep, check_turn_fields, expected_args
from matchevals.trajectory._types import WILDCARD, ToolCall, Trajectory, TurnMatchMode

__all__ = [
    "ExpectedCall",
    "ExpectedTurn",
    "Turn",
    "is_pattern",
    "output_turns",
    "read_pattern",
]

_STEP_KEYS = frozenset({"calls", "match_mode", "optional"})
_REPEAT_KEYS = frozenset({"repeat", "min", "max"})
_NEEDS_PATTERN = (
    "with trajectory_match_mode='pattern', reference_outputs is a list of turn patterns "
    '(TurnStep, Repeat, "*") or {"turns": [...]}'
)


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One call of an expected turn: its tool (``"*"``: any), its arguments (None: any)."""

    name: str
    args: dict[str, Any] | None
    path: str


@dataclass(slots=True)
class ExpectedTurn:
    """One expected assistant turn: its calls (None: ``"*"``, any turn), mode, optionality
    and path."""

    calls: tuple[ExpectedCall, ...] | None
    mode: TurnMatchMode
    optional: bool
    path: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One output turn: an assistant message's index among the turns, its calls and where it
    is (``outputs[5]``)."""

    index: int
    calls: tuple[ToolCall, ...]
    at: str


Element = ExpectedTurn | Loop[ExpectedTurn]


def output_turns(trajectory: Trajectory) -> list[Turn]:
    """The assistant messages of ``trajectory``, in order, as turns.

    >>> from matchevals.trajectory._messages import read_trajectory
    >>> messages = [{"role": "user", "content": "hi"}, {"role": "ai", "content": "hello"}]
    >>> output_turns(read_trajectory(messages, "outputs"))
    [Turn(index=0, calls=(), at='outputs[1]')]
    """
    turns: list[Turn] = []
    for index, role in enumerate(trajectory.roles):
        if role == "assistant":
            turns.append(Turn(len(turns), trajectory.message_calls[index], trajectory[index].at))
    return turns


def _is_pattern_item(item: object) -> bool:
    return (
        isinstance(item, (TurnStep, Repeat))
        or _is_wildcard(item)
        or (isinstance(item, Mapping) and ("calls" in item or "repeat" in item))
    )


def is_pattern(value: object) -> bool:
    """Whether ``value`` looks like a turn pattern (not a message list).

    >>> is_pattern({"turns": []}), is_pattern(["*"]), is_pattern([{"role": "ai"}])
    (True, True, False)
    """
    if isinstance(value, Mapping):
        return "turns" in value
    if isinstance(value, (list, tuple)) and not isinstance(value, (TurnStep, Repeat)):
        return any(_is_pattern_item(item) for item in value)
    return _is_pattern_item(value)


def read_pattern(value: object, path: str) -> list[Element]:
    """A turn pattern read into the engine's model (ValueError/TypeError naming the path).

    >>> pattern = read_pattern({"turns": ["*", {"calls": [{"name": "a"}]}]}, "r")
    >>> pattern[0].calls, pattern[1].calls[0].name, pattern[1].path
    (None, 'a', 'r.turns[1]')
    """
    items, base = _items(value, path)
    elements: list[Element] = []
    for index, item in enumerate(items):
        at = f"{base}[{index}]"
        if isinstance(item, Repeat) or (isinstance(item, Mapping) and "repeat" in item):
            elements.append(_loop(item, at))
        else:
            elements.append(_turn(item, at))
    return elements


def _items(value: object, path: str) -> tuple[Sequence[Any], str]:
    if isinstance(value, Mapping):
        if "turns" not in value:
            raise ValueError(f'{path} has no "turns"; {_NEEDS_PATTERN}')
        unknown = sorted(str(key) for key in value if key != "turns")
        if unknown:
            raise ValueError(f'{path} has unknown keys {unknown}; expected only "turns"')
        items = value["turns"]
        if not isinstance(items, (list, tuple)) or isinstance(items, (TurnStep, Repeat)):
            raise TypeError(f"{path}.turns is {a_type(items)}, expected a list of turn patterns")
        return items, f"{path}.turns"
    if isinstance(value, (TurnStep, Repeat)):
        raise TypeError(f"{path} is a single {type(value).__name__}; {_NEEDS_PATTERN}")
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{path} is {a_type(value)}; {_NEEDS_PATTERN}")
    return value, path


def _is_wildcard(item: object) -> bool:
    return isinstance(item, str) and item == WILDCARD


def _turn(item: object, path: str) -> ExpectedTurn:
    if _is_wildcard(item):
        return ExpectedTurn(None, "unordered", False, path)
    if isinstance(item, TurnStep):
        calls, mode, optional = item.calls, item.mode, item.optional
        check_turn_fields(calls, mode, optional, path)
    elif isinstance(item, Mapping) and "calls" in item:
        unknown = sorted(str(key) for key in item if key not in _STEP_KEYS)
        if unknown:
            raise ValueError(
                f"{path} has unknown keys {unknown}; expected only {sorted(_STEP_KEYS)}"
            )
        calls = item["calls"]
        mode = item.get("match_mode", "unordered")
        optional = item.get("optional", False)
        check_turn_fields(calls, mode, optional, path, "match_mode")
    else:
        raise TypeError(_what(item, path))
    expected = tuple(
        ExpectedCall(
            call["name"],
            expected_args(call, f"{path}.calls[{index}]"),
            f"{path}.calls[{index}]",
        )
        for index, call in enumerate(calls)
    )
    return ExpectedTurn(expected, mode, optional, path)


def _what(item: object, path: str) -> str:
    """The error for a bad pattern item, saying so when it is a message."""
    if (isinstance(item, Mapping) and ("role" in item or "type" in item)) or (
        not isinstance(item, Mapping) and hasattr(item, "tool_calls")
    ):
        return f"{path} is a message, not a turn pattern; {_NEEDS_PATTERN}"
    what = a_type(item)
    if isinstance(item, Mapping):
        what = 'a dict without "calls" or "repeat"'
    elif isinstance(item, str):
        what = f'the string {item[:40]!r} (only "*" stands for a turn)'
    return f'{path} is {what}, expected a TurnStep, a Repeat or "*"'


def _loop(item: object, path: str) -> Loop[ExpectedTurn]:
    if isinstance(item, Repeat):
        body, low, high, field = item.steps, item.min, item.max, "steps"
    else:
        assert isinstance(item, Mapping)
        unknown = sorted(str(key) for key in item if key not in _REPEAT_KEYS)
        if unknown:
            raise ValueError(
                f"{path} has unknown keys {unknown}; expected only {sorted(_REPEAT_KEYS)}"
            )
        body, low, high, field = item["repeat"], item.get("min", 1), item.get("max"), "repeat"
    check_repeat_fields(body, low, high, path, field)
    turns = tuple(_turn(turn, f"{path}.{field}[{index}]") for index, turn in enumerate(body))
    return Loop(turns, low, high, path)
