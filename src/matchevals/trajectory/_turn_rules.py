"""Reference-free rules on a trajectory: forbidden tools, call limits, a turn budget, ordering.

The graph rules (:mod:`matchevals.graph_trajectory._rules`) on messages: a tool call stands for
a node's visit and an assistant turn (one assistant message, a final answer without calls
included) for a superstep; the calls of one assistant message are concurrent. ``(a, b)`` in
``before`` holds when every turn calling ``a`` comes before every turn calling ``b``, so it
holds trivially when either is never called. The comment names the first violation by its
place (``outputs[3].tool_calls[1]``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from matchevals._rule_options import limit, limits, names, pairs
from matchevals._types import EvaluatorResult
from matchevals.trajectory._messages import read_trajectory
from matchevals.trajectory._types import ToolCall, Trajectory

__all__ = ["PREFIX", "TurnRules", "check_turn_rules", "make_turn_rules"]

PREFIX = "trajectory"
"""The default prefix of the rules' keys (``trajectory_max_calls``), and ``feedback_key``'s."""


@dataclass(frozen=True)
class TurnRules:
    """Validated rule options (immutable, so evaluators built from them can be pickled)."""

    forbidden_tools: tuple[str, ...]
    max_calls: tuple[tuple[str, int], ...]
    max_turns: int | None
    before: tuple[tuple[str, str], ...]


def make_turn_rules(
    *,
    forbidden_tools: Iterable[str],
    max_calls: Mapping[str, int],
    max_turns: int | None,
    before: Iterable[tuple[str, str]],
) -> TurnRules:
    """Validate the options of a rules evaluator; at least one rule must be given."""
    rules = TurnRules(
        names(forbidden_tools, "forbidden_tools", "tool"),
        limits(max_calls, "max_calls", "tool"),
        None if max_turns is None else limit(max_turns, "max_turns"),
        pairs(before, "before", "tool"),
    )
    if not (rules.forbidden_tools or rules.max_calls or rules.before or max_turns is not None):
        raise ValueError("no rule given: pass forbidden_tools, max_calls, max_turns or before")
    return rules


def check_turn_rules(rules: TurnRules, outputs: Any) -> list[EvaluatorResult]:
    """One result per configured rule, on the trajectory in ``outputs``.

    >>> rules = make_turn_rules(forbidden_tools=["x"], max_calls={}, max_turns=None, before=())
    >>> outputs = [{"role": "ai", "tool_calls": [{"name": "x", "args": {}}]}]
    >>> check_turn_rules(rules, outputs)[0]["comment"]
    'outputs[0].tool_calls[0] called the forbidden tool x'
    """
    try:
        trajectory = read_trajectory(outputs, "outputs")
    except RecursionError:
        raise ValueError("outputs hold tool arguments nested too deeply to read") from None
    results = []
    if rules.forbidden_tools:
        passed = f"no forbidden tool ({', '.join(rules.forbidden_tools)}) was called"
        results.append(_rule("forbidden_tools", trajectory, rules, _forbidden, passed))
    if rules.max_calls:
        passed = "every tool stayed within its call limit"
        results.append(_rule("max_calls", trajectory, rules, _max_calls, passed))
    if rules.max_turns is not None:
        passed = f"the trajectory stayed within {rules.max_turns} assistant turns"
        results.append(_rule("max_turns", trajectory, rules, _budget, passed))
    if rules.before:
        passed = "every ordering held"
        results.append(_rule("before", trajectory, rules, _before, passed))
    return results


_Check = Callable[[TurnRules, Trajectory], list[str]]


def _rule(
    name: str, trajectory: Trajectory, rules: TurnRules, check: _Check, passed: str
) -> EvaluatorResult:
    violations = check(rules, trajectory)
    return {
        "key": f"{PREFIX}_{name}",
        "score": not violations,
        "comment": violations[0] if violations else passed,
        "metadata": {"violations": violations},
    }


def _forbidden(rules: TurnRules, trajectory: Trajectory) -> list[str]:
    banned = set(rules.forbidden_tools)
    return [
        f"{call.at} called the forbidden tool {call.name}"
        for call in trajectory.calls
        if call.name in banned
    ]


def _max_calls(rules: TurnRules, trajectory: Trajectory) -> list[str]:
    limits = dict(rules.max_calls)
    counts = dict.fromkeys(limits, 0)
    violations = []
    for call in trajectory.calls:
        if call.name in counts:
            counts[call.name] += 1
            if counts[call.name] == limits[call.name] + 1:
                violations.append(
                    f"{call.at} called {call.name} more than its limit of {limits[call.name]} "
                    f"(call {counts[call.name]})"
                )
    return violations


def _budget(rules: TurnRules, trajectory: Trajectory) -> list[str]:
    budget = rules.max_turns
    assert budget is not None
    turns = [index for index, role in enumerate(trajectory.roles) if role == "assistant"]
    if len(turns) <= budget:
        return []
    return [
        f"{trajectory[turns[budget]].at} is assistant turn {budget + 1}, more than the budget "
        f"of {budget} (the trajectory has {len(turns)})"
    ]


def _before(rules: TurnRules, trajectory: Trajectory) -> list[str]:
    first: dict[str, ToolCall] = {}
    last: dict[str, ToolCall] = {}
    for call in trajectory.calls:
        first.setdefault(call.name, call)
        last[call.name] = call
    # a call's message index orders the turns: calls of one message share it
    return [
        f"{first[b].at} called {b} but {last[a].at} still called {a} "
        f"(every {a} must be called in an earlier assistant turn than any {b})"
        for a, b in rules.before
        if a in last and b in first and first[b].message <= last[a].message
    ]
