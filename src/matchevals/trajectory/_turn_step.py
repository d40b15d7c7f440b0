"""``TurnStep``: one expected assistant turn of a turn pattern, checked when it is built, and
the rules of a turn step's fields wherever it comes from (a ``TurnStep``, a dict of the JSON
form).

>>> TurnStep([{"name": "search", "args": {"q": "x"}}], "exact").mode
'exact'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from matchevals.trajectory._json import a_type, to_json
from matchevals.trajectory._types import TURN_MODES, WILDCARD, TurnMatchMode

__all__ = ["TurnStep", "check_turn_fields", "expected_args"]


_CALL_KEYS = frozenset({"name", "args", "id", "type"})


def check_turn_fields(
    calls: object, mode: object, optional: object, path: str, mode_field: str = "mode"
) -> None:
    """The rules of one turn step's fields, wherever it comes from (a :class:`TurnStep` being
    built, a dict of a JSON pattern, whose mode is ``match_mode``); errors name ``path``."""
    if not isinstance(calls, (list, tuple)):
        raise TypeError(f"{path}.calls is {a_type(calls)}, expected a list of tool calls")
    for index, call in enumerate(calls):
        at = f"{path}.calls[{index}]"
        if not isinstance(call, Mapping):
            raise TypeError(f'{at} is {a_type(call)}, expected a tool call {{"name": ...}}')
        unknown = sorted(str(key) for key in call if key not in _CALL_KEYS)
        if unknown:
            raise ValueError(f"{at} has unknown keys {unknown}; expected name and args")
        if not isinstance(call.get("name"), str):
            raise TypeError(f"{at}.name is {a_type(call.get('name'))}, expected a tool name")
        if call["name"] == WILDCARD and "args" in call:
            raise ValueError(
                f'{at} names any tool ("*") and gives args; "*" accepts any arguments: drop args'
            )
        if "args" in call:
            expected_args(call, at)
    if mode not in TURN_MODES:
        raise ValueError(
            f"{path}.{mode_field} is {mode!r}; expected one of {', '.join(sorted(TURN_MODES))}"
        )
    if not isinstance(optional, bool):
        raise TypeError(f"{path}.optional is {a_type(optional)}, expected a bool")


def expected_args(call: Mapping[str, Any], at: str) -> dict[str, Any] | None:
    """An expected call's arguments as JSON data, read as a message's are (the value
    conversion policy: dates, decimals, dataclasses, models); None when it gives none."""
    if "args" not in call:
        return None
    args = to_json(call["args"], f"{at}.args")
    if type(args) is not dict:
        raise TypeError(
            f"{at}.args is {a_type(call['args'])}, expected a JSON object (leave args "
            "out to accept any arguments)"
        )
    return args


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
    TypeError: TurnStep.calls[0].name is a number, expected a tool name
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
