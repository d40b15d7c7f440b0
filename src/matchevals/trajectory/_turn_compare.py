"""One output turn against one expected turn: match, partial score and what differs, for the
shared pattern engine (:func:`turn_comparator`).

A call fits an expected call when the names are equal (or the expected name is ``"*"``) and
the expected call has no ``args`` or the tool's argument rule accepts the output's arguments.
Calls of one turn are paired by a maximum bipartite matching (never greedily); with ``k`` pairs,
``a`` output calls and ``e`` expected calls, the modes and their partial scores (1.0 exactly
when the turn matches) mirror the graph package's supersteps:

- ``unordered``: ``k = a = e``; score ``k / (a + e - k)``;
- ``subset``: every output call is paired, ``k = a``; score ``k / a``;
- ``superset``: every expected call is paired, ``k = e``; score ``k / e``;
- ``exact``: ``a = e`` and the ``i``-th calls fit; score the longest common subsequence of
  fitting calls over ``max(a, e)``.

Two empty turns score 1.0. The expected turn ``"*"`` matches any turn.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from matchevals._patterns import Comparator, Difference, Table
from matchevals.trajectory._args import ArgsRules, MatcherFailed
from matchevals.trajectory._bipartite import maximum_matching
from matchevals.trajectory._explain import render_call
from matchevals.trajectory._turn_patterns import ExpectedCall, ExpectedTurn, Turn
from matchevals.trajectory._types import WILDCARD, ToolCall

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["render_expected", "turn_comparator"]


def turn_comparator(rules: ArgsRules) -> Comparator[Turn, ExpectedTurn]:
    """The comparator of turns under ``rules`` (each tool's argument rule).

    >>> from matchevals.trajectory._rules import build_rules
    >>> from matchevals.trajectory._turn_patterns import read_pattern
    >>> compare = turn_comparator(build_rules("exact", None))
    >>> expected = read_pattern([{"calls": [{"name": "a"}, {"name": "b"}]}], "r")[0]
    >>> compare.similarity(Turn(0, (), "outputs[0]"), expected)
    0.0
    """
    return Comparator(
        partial(_matches, rules),
        partial(_similarity, rules),
        partial(_difference, rules),
        _content,
        partial(_table, rules),
    )


def _fits(rules: ArgsRules, call: ToolCall, expected: ExpectedCall) -> bool:
    if expected.name == WILDCARD:
        return True
    if call.name != expected.name:
        return False
    if expected.args is None:
        return True
    try:
        return rules.rule_for(call.name).compatible(call.args, expected.args)
    except MatcherFailed as error:
        raise ValueError(f"{error} (comparing {call.at} with {expected.path})") from None


def _pairing(
    rules: ArgsRules, calls: Sequence[ToolCall], expected: Sequence[ExpectedCall]
) -> list[int]:
    """For each output call its expected partner in a maximum matching, or -1."""
    adjacency = [
        [j for j, want in enumerate(expected) if _fits(rules, call, want)] for call in calls
    ]
    return maximum_matching(adjacency, len(expected))


def _common(rules: ArgsRules, calls: Sequence[ToolCall], expected: Sequence[ExpectedCall]) -> int:
    """The longest common subsequence of fitting calls."""
    previous = [0] * (len(expected) + 1)
    for call in calls:
        current = [0]
        for j, want in enumerate(expected):
            best = previous[j] + 1 if _fits(rules, call, want) else 0
            current.append(max(best, previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def _similarity(rules: ArgsRules, turn: Turn, step: ExpectedTurn) -> float:
    if step.calls is None:
        return 1.0
    calls, expected = turn.calls, step.calls
    a, e = len(calls), len(expected)
    if step.mode == "exact":
        longest = max(a, e)
        return 1.0 if longest == 0 else _common(rules, calls, expected) / longest
    k = sum(partner >= 0 for partner in _pairing(rules, calls, expected))
    if step.mode == "unordered":
        union = a + e - k
        return 1.0 if union == 0 else k / union
    if step.mode == "subset":
        return 1.0 if a == 0 else k / a
    return 1.0 if e == 0 else k / e


def _matches(rules: ArgsRules, turn: Turn, step: ExpectedTurn) -> bool:
    if step.calls is None:
        return True
    calls, expected = turn.calls, step.calls
    if step.mode == "exact":
        return len(calls) == len(expected) and all(
            _fits(rules, call, want) for call, want in zip(calls, expected, strict=True)
        )
    if step.mode in ("unordered", "subset") and len(calls) > len(expected):
        return False
    if step.mode in ("unordered", "superset") and len(calls) < len(expected):
        return False
    return _similarity(rules, turn, step) == 1.0


def render_expected(call: ExpectedCall) -> str:
    """``search({"q": "x"})``, ``search(any args)``, or ``*`` for any tool.

    >>> render_expected(ExpectedCall("search", None, "r"))
    'search(any args)'
    """
    if call.name == WILDCARD:
        return WILDCARD
    if call.args is None:
        return f"{call.name}(any args)"
    return render_call(call.name, call.args)


def _difference(rules: ArgsRules, turn: Turn | None, step: ExpectedTurn) -> Difference:
    """(missing, extra) calls as text: expected calls left unpaired, output calls left
    unpaired (``subset`` reports only extra ones, ``superset`` only missing ones)."""
    if step.calls is None:
        return [], []
    calls = () if turn is None else turn.calls
    pairing = _pairing(rules, calls, step.calls)
    paired = set(pairing)
    missing = [render_expected(want) for j, want in enumerate(step.calls) if j not in paired]
    extra = [
        render_call(call.name, call.args)
        for call, partner in zip(calls, pairing, strict=True)
        if partner < 0
    ]
    if step.mode == "subset":
        return [], extra
    if step.mode == "superset":
        return missing, []
    return missing, extra


def _content(step: ExpectedTurn) -> Hashable:
    if step.calls is None:
        return None
    return step.mode, tuple((call.name, _key(call.args)) for call in step.calls)


def _key(args: dict[str, Any] | None) -> Hashable:
    """Arguments as a hashable key: their JSON text, or their identity when they have none."""
    if args is None:
        return None
    try:
        return json.dumps(args, sort_keys=True)
    except (TypeError, ValueError):
        return ("object", id(args))


def _turn_key(rules: ArgsRules, turn: Turn) -> Hashable:
    """Turns with equal keys compare alike; a user's matcher may tell apart what JSON text
    does not (key order, ``1`` and ``1.0``), so under one each turn is its own key."""
    if rules.asks_matchers:
        return ("turn", turn.index)
    return tuple((call.name, _key(call.args)) for call in turn.calls)


def _table(
    rules: ArgsRules, turns: Sequence[Turn], steps: Sequence[ExpectedTurn], limit: int
) -> Table:
    """One similarity per distinct (turn, expected turn) content (None past ``limit``)."""
    import numpy as np

    row_ids: dict[Hashable, int] = {}
    firsts: list[Turn] = []
    row_list = []
    for turn in turns:
        key = _turn_key(rules, turn)
        row = row_ids.get(key)
        if row is None:
            row = row_ids[key] = len(firsts)
            firsts.append(turn)
        row_list.append(row)
    rows: NDArray[Any] = np.array(row_list, dtype=np.intp)
    column_ids: dict[int, int] = {}
    distinct: list[ExpectedTurn] = []
    column_list = []
    for step in steps:
        column = column_ids.get(id(step))
        if column is None:
            column = column_ids[id(step)] = len(distinct)
            distinct.append(step)
        column_list.append(column)
    columns: NDArray[Any] = np.array(column_list, dtype=np.intp)
    if len(firsts) * len(distinct) > limit:
        return None, rows, columns
    table = np.empty((len(firsts), len(distinct)))
    for row, turn in enumerate(firsts):
        for column, step in enumerate(distinct):
            table[row, column] = _similarity(rules, turn, step)
    return table, rows, columns
