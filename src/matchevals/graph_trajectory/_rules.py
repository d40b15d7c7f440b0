"""Reference-free rules on runs: forbidden nodes, visit limits, a superstep budget, ordering.

Each rule is checked on every run separately and passes only when every run passes; the
comment names the first violation. ``(a, b)`` in ``before`` holds when every superstep running
``a`` comes before every superstep running ``b``, so it holds trivially when either never runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from matchevals._rule_options import limit, limits, names, pairs
from matchevals._types import EvaluatorResult
from matchevals.graph_trajectory._reference import check_run, runs_of

__all__ = ["Rules", "check_rules", "make_rules"]


@dataclass(frozen=True)
class Rules:
    """Validated rule options (immutable, so evaluators built from them can be pickled)."""

    forbidden: tuple[str, ...]
    max_visits: tuple[tuple[str, int], ...]
    max_supersteps: int | None
    before: tuple[tuple[str, str], ...]


def make_rules(
    *,
    forbidden: Iterable[str],
    max_visits: Mapping[str, int],
    max_supersteps: int | None,
    before: Iterable[tuple[str, str]],
) -> Rules:
    """Validate the options of a rules evaluator; at least one rule must be given."""
    rules = Rules(
        names(forbidden, "forbidden", "node"),
        limits(max_visits, "max_visits", "node"),
        None if max_supersteps is None else limit(max_supersteps, "max_supersteps"),
        pairs(before, "before", "node"),
    )
    if not (rules.forbidden or rules.max_visits or rules.before or max_supersteps is not None):
        raise ValueError("no rule given: pass forbidden, max_visits, max_supersteps or before")
    return rules


def check_rules(rules: Rules, outputs: object) -> list[EvaluatorResult]:
    """One result per configured rule, over every run in ``outputs``.

    >>> rules = make_rules(forbidden=["x"], max_visits={}, max_supersteps=None, before=())
    >>> check_rules(rules, {"steps": [["a"], ["x"]]})[0]["comment"]
    'run 0 ran the forbidden node x in superstep 1'
    """
    runs = [check_run(run, path)[0] for path, run in runs_of(outputs, "outputs")]
    scope = "the run" if len(runs) == 1 else f"all {len(runs)} runs"
    results = []
    if rules.forbidden:
        passed = f"no forbidden node ({', '.join(rules.forbidden)}) ran in {scope}"
        results.append(_rule("graph_trajectory_forbidden", runs, rules, _forbidden, passed))
    if rules.max_visits:
        passed = f"every node stayed within its visit limit in {scope}"
        results.append(_rule("graph_trajectory_max_visits", runs, rules, _max_visits, passed))
    if rules.max_supersteps is not None:
        passed = f"{scope} stayed within {rules.max_supersteps} supersteps"
        results.append(_rule("graph_trajectory_max_supersteps", runs, rules, _budget, passed))
    if rules.before:
        passed = f"every ordering held in {scope}"
        results.append(_rule("graph_trajectory_before", runs, rules, _before, passed))
    return results


_Check = Callable[[Rules, Sequence[Sequence[str]]], list[str]]


def _rule(
    key: str, runs: Sequence[Sequence[Sequence[str]]], rules: Rules, check: _Check, passed: str
) -> EvaluatorResult:
    per_run = []
    first: str | None = None
    for index, steps in enumerate(runs):
        violations = check(rules, steps)
        per_run.append({"run": index, "pass": not violations, "violations": violations})
        if violations and first is None:
            first = f"run {index} {violations[0]}"
    comment = first or passed
    return cast(
        EvaluatorResult,
        {"key": key, "score": first is None, "comment": comment, "metadata": {"runs": per_run}},
    )


def _forbidden(rules: Rules, steps: Sequence[Sequence[str]]) -> list[str]:
    banned = set(rules.forbidden)
    return [
        f"ran the forbidden node {node} in superstep {index}"
        for index, superstep in enumerate(steps)
        for node in dict.fromkeys(superstep)
        if node in banned
    ]


def _max_visits(rules: Rules, steps: Sequence[Sequence[str]]) -> list[str]:
    limits = dict(rules.max_visits)
    counts = dict.fromkeys(limits, 0)
    violations = []
    for index, superstep in enumerate(steps):
        for node in superstep:
            if node in counts:
                counts[node] += 1
                if counts[node] == limits[node] + 1:
                    violations.append(
                        f"ran {node} more than its limit of {limits[node]} "
                        f"(visit {counts[node]} in superstep {index})"
                    )
    return violations


def _budget(rules: Rules, steps: Sequence[Sequence[str]]) -> list[str]:
    budget = rules.max_supersteps
    assert budget is not None
    if len(steps) <= budget:
        return []
    return [f"had {len(steps)} supersteps, more than the budget of {budget}"]


def _before(rules: Rules, steps: Sequence[Sequence[str]]) -> list[str]:
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for index, superstep in enumerate(steps):
        for node in superstep:
            first.setdefault(node, index)
            last[node] = index
    return [
        f"ran {b} in superstep {first[b]} but {a} still ran in superstep {last[a]} "
        f"(every {a} must run in an earlier superstep than any {b})"
        for a, b in rules.before
        if a in last and b in first and first[b] <= last[a]
    ]
