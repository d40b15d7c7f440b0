"""The verdict of ``trajectory_match_mode="pattern"``: the output's turns against a turn
pattern, through the shared pattern engine (:mod:`matchevals._patterns`).

Strict: True exactly when some path of the pattern matches the turns one to one; the comment
names the first output turn no path accepts (``outputs[5]``), what was expected there and the
calls missing or extra. ``metadata``: ``turns`` (each output turn's verdict, ``match``,
``mismatch`` or ``unchecked`` past the divergence, and the reference step it matched), ``mode``,
``expected_turns`` (the fewest and most turns the pattern accepts) and ``divergence``.

Partial credit: the best alignment's score, ``S / max(n, L)`` over every path of the pattern
(the graph package's definition), 1.0 exactly when the strict match passes;
``metadata["partial_alignment"]`` lists its pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from matchevals import _patterns
from matchevals._patterns import Comparator, Elements, either, names
from matchevals.trajectory._explain import render_call
from matchevals.trajectory._json import counted
from matchevals.trajectory._turn_compare import render_expected
from matchevals.trajectory._turn_patterns import ExpectedTurn, Turn

__all__ = ["score_pattern"]

_BELOW_ONE = math.nextafter(1.0, 0.0)
_LOOSE_BOUND_BUDGET = _patterns.LOOSE_BOUND_BUDGET
"""The alignment search's budget before its tighter bounds (read at each call: tests lower it)."""

RunMatch = _patterns.RunMatch[Turn, ExpectedTurn]
Divergence = _patterns.Divergence[Turn, ExpectedTurn]


def score_pattern(
    turns: Sequence[Turn],
    elements: Elements[ExpectedTurn],
    comparator: Comparator[Turn, ExpectedTurn],
    *,
    partial: bool,
) -> tuple[bool | float, str | None, dict[str, Any]]:
    """(score, comment, metadata) of the output's ``turns`` against the pattern ``elements``."""
    verdict = _patterns.match_pattern(turns, elements, comparator)
    metadata: dict[str, Any] = {
        "mode": "pattern",
        "match": verdict.matched,
        "turns": _turn_entries(turns, verdict),
        "expected_turns": {"min": verdict.expected_min, "max": verdict.expected_max},
        "divergence": _divergence(verdict.divergence, turns),
    }
    comment = None if verdict.divergence is None else _comment(verdict, turns)
    if not partial:
        return verdict.matched, comment, metadata
    if verdict.matched:
        metadata["score"] = 1.0
        return 1.0, comment, metadata
    _patterns.check_alignment_size(
        len(turns), elements, steps="turns", pattern="a turn pattern", runs="trajectories"
    )
    pairs = _patterns.align_pattern(turns, elements, None, comparator, _LOOSE_BOUND_BUDGET)
    alignment = _patterns.Alignment.of(pairs, len(turns), None)
    score = min(alignment.score, _BELOW_ONE)
    metadata["score"] = score
    metadata["partial_alignment"] = [
        {
            "turn": pair["superstep"],
            "outputs": None if pair["superstep"] is None else turns[pair["superstep"]].at,
            "reference": pair["reference"],
            "score": pair["score"],
        }
        for pair in pairs
    ]
    return score, comment, metadata


def _calls(turn: Turn) -> list[str]:
    return [render_call(call.name, call.args) for call in turn.calls]


def _turn_entries(turns: Sequence[Turn], verdict: RunMatch) -> list[dict[str, Any]]:
    alignment = verdict.alignment or [None] * len(turns)
    return [
        {
            "turn": turn.index,
            "outputs": turn.at,
            "calls": _calls(turn),
            "verdict": state,
            "reference": reference,
        }
        for turn, state, reference in zip(turns, verdict.verdicts, alignment, strict=True)
    ]


def _expected_calls(step: ExpectedTurn) -> list[str] | None:
    return None if step.calls is None else [render_expected(call) for call in step.calls]


def _divergence(divergence: Divergence | None, turns: Sequence[Turn]) -> dict[str, Any] | None:
    if divergence is None:
        return None
    index = divergence.superstep
    return {
        "turn": index,
        "outputs": turns[index].at if index < len(turns) else None,
        "expected": [
            {"calls": _expected_calls(step), "match_mode": step.mode, "reference": step.path}
            for step in divergence.expected
        ],
        "actual": None if divergence.actual is None else _calls(divergence.actual),
        "missing": divergence.missing,
        "extra": divergence.extra,
    }


def _shown(calls: list[str] | None) -> str:
    """``[a(...), b(...)]``, or ``*`` for any turn."""
    return "*" if calls is None else "[" + names(calls) + "]"


def _steps(steps: Sequence[ExpectedTurn]) -> str:
    """``[a] (unordered, p1 or p2) or [b] (exact, p3)``: alternatives grouped by content."""
    groups: dict[tuple[str, str], list[str]] = {}
    for step in steps:
        groups.setdefault((_shown(_expected_calls(step)), step.mode), []).append(step.path)
    return either([f"{shown} ({mode}, {either(paths)})" for (shown, mode), paths in groups.items()])


def _comment(verdict: RunMatch, turns: Sequence[Turn]) -> str:
    divergence = verdict.divergence
    assert divergence is not None
    index = divergence.superstep
    if divergence.actual is None:
        return (
            f"outputs ended after {counted(len(turns), 'turn')}, before the reference pattern was "
            f"complete: turn {index} should have been {_steps(divergence.expected)}"
        )
    where = f"turn {index}, {turns[index].at}"
    actual = _shown(_calls(divergence.actual))
    if not divergence.expected:
        return f"outputs went past the end of the reference pattern: {where} {actual} is extra"
    if len({(_shown(_expected_calls(s)), s.mode) for s in divergence.expected}) > 1:
        expected = _steps(divergence.expected)
        return f"outputs left the reference pattern at {where}: expected {expected}, got {actual}"
    step = divergence.expected[0]
    paths = either([s.path for s in divergence.expected])
    sentence = (
        f"outputs left the reference pattern at {where} ({step.mode}, {paths}): expected "
        f"{_shown(_expected_calls(step))}, got {actual}"
    )
    parts = []
    if divergence.missing:
        parts.append("missing " + names(divergence.missing))
    if divergence.extra:
        parts.append("extra " + names(divergence.extra))
    if parts:
        return sentence + "; " + "; ".join(parts)
    if step.mode == "exact":
        return sentence + "; same calls in a different order"
    return sentence
