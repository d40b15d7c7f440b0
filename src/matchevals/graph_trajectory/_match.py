"""Strict matching of one run against its reference, superstep by superstep.

The general path treats every reference as an automaton over positions (see ``_positions``):
the run is matched by keeping the set of positions every prefix of the run can reach (a dynamic
program over run supersteps × positions), so the time is O(supersteps × positions) with no
backtracking, and the first superstep that no position accepts is where the run left the
pattern; each matched superstep is traced back to the reference step it matched (``alignment``).

A reference without patterns (no optional step, no Repeat) takes the fast path instead,
:func:`match_positional`: superstep ``i`` against reference step ``i``, and a run equal to a
plain reference is a match at once. It reports supersteps past the reference's end as
``extra`` and no alignment; otherwise it agrees with :func:`match_pattern` on the verdict and
the divergence (``tests/graph_trajectory/test_fast_paths.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matchevals.graph_trajectory._positions import (
    Dominance,
    Moves,
    Position,
    expected_length,
    skips,
    step_at,
)
from matchevals.graph_trajectory._reference import Loop, Reference, Step
from matchevals.graph_trajectory._superstep import difference, matches

__all__ = ["Divergence", "RunMatch", "match_pattern", "match_positional", "match_run"]


@dataclass(slots=True)
class Divergence:
    """Where a run first left its reference: superstep ``superstep`` (``len(run)`` when the run
    ended early) expected one of ``expected`` (empty: nothing more was expected) and got
    ``actual`` (None: the run had ended)."""

    superstep: int
    expected: tuple[Step, ...]
    actual: Sequence[str] | None
    missing: list[str]
    extra: list[str]


@dataclass(slots=True)
class RunMatch:
    """The strict verdict of one run: per-superstep verdicts (``match``, ``mismatch``,
    ``extra`` past a plain reference's end, ``unchecked`` after leaving a pattern)."""

    matched: bool
    verdicts: list[str]
    divergence: Divergence | None
    expected_min: int
    expected_max: int | None
    alignment: list[str | None] | None = None


def match_run(
    steps: Sequence[Sequence[str]], reference: Reference, same: bool = False, *, fast: bool = True
) -> RunMatch:
    """Match one validated run against its validated reference (``fast=False``: always the
    general path, the oracle of the fast path's tests).

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["c", "b"]]}, {"steps": [["a"], ["b", "c"]]})[0]
    >>> match_run(pair.steps, pair.reference).matched
    True
    """
    if not fast or reference.has_patterns:
        return match_pattern(steps, reference.elements)
    plain = reference.plain
    if plain is not None and (same or steps == plain):
        return RunMatch(True, ["match"] * len(steps), None, len(plain), len(plain))
    return match_positional(steps, reference)


def match_positional(steps: Sequence[Sequence[str]], reference: Reference) -> RunMatch:
    """The fast path for a reference without patterns: superstep ``i`` against step ``i``."""
    plain = reference.plain
    expected_count = len(plain) if plain is not None else len(reference.elements)
    verdicts = []
    first: int | None = None
    pairs = zip(steps, plain if plain is not None else reference.elements, strict=False)
    for index, (actual, expected) in enumerate(pairs):
        if isinstance(expected, Loop):
            raise AssertionError("a reference with patterns is not positional")
        if isinstance(expected, Step):
            ok = matches(actual, expected.nodes, expected.mode)
        else:
            ok = matches(actual, expected, "unordered")
        verdicts.append("match" if ok else "mismatch")
        if not ok and first is None:
            first = index
    verdicts.extend(["extra"] * (len(steps) - expected_count))
    divergence = None
    if first is not None:
        step = _positional(reference, first)
        missing, extra = difference(steps[first], step.nodes, step.mode)
        divergence = Divergence(first, (step,), steps[first], missing, extra)
    elif len(steps) > expected_count:
        divergence = Divergence(expected_count, (), steps[expected_count], [], [])
    elif len(steps) < expected_count:
        step = _positional(reference, len(steps))
        divergence = Divergence(len(steps), (step,), None, list(step.nodes), [])
    return RunMatch(divergence is None, verdicts, divergence, expected_count, expected_count)


def _positional(reference: Reference, index: int) -> Step:
    step = reference.elements[index]
    assert isinstance(step, Step)
    return step


def _closure(
    elements: Sequence[Step | Loop],
    reached: dict[Position, Position | None],
    dominance: Dominance | None,
) -> dict[Position, Position | None]:
    """Add every position reachable by skipping optional steps or leaving a Repeat; each
    position remembers the consumed position it was reached from. With a ``dominance`` (a
    Repeat has a ``max``), dominated positions are neither explored nor kept."""
    if dominance is not None:
        dominance.start()
        for position in reached:
            dominance.note(position)
    frontier = list(reached)
    while frontier:
        position = frontier.pop()
        for target, skipped in skips(elements, position):
            if (skipped is None or skipped.optional) and target not in reached:
                if dominance is not None and not dominance.admits(target):
                    continue
                reached[target] = reached[position]
                frontier.append(target)
    if dominance is None or not dominance.fewest:
        return reached
    return {position: origin for position, origin in reached.items() if dominance.keeps(position)}


def match_pattern(steps: Sequence[Sequence[str]], elements: Sequence[Step | Loop]) -> RunMatch:
    """The general path: the run against the reference's automaton of positions."""
    low, high = expected_length(elements)
    end: Position = (len(elements), 0, 0)
    start: Position = (0, 0, 0)
    dominance = Dominance.of(elements)
    moves = Moves(elements)
    current = _closure(elements, {start: start}, dominance)
    history: list[tuple[dict[Position, Position | None], dict[Position, Position]]] = []
    for index, actual in enumerate(steps):
        consumed: dict[Position, Position] = {}
        for position, _, target, ok in moves.layer(current, actual, _meets):
            if ok and target is not None:
                consumed.setdefault(target, position)
        if not consumed:
            divergence = _left_pattern(elements, current, index, actual)
            verdicts = ["match"] * index + ["mismatch"] + ["unchecked"] * (len(steps) - index - 1)
            alignment = _trace(elements, history, next(iter(current)), len(steps))
            return RunMatch(False, verdicts, divergence, low, high, alignment)
        current = _closure(elements, {position: position for position in consumed}, dominance)
        history.append((current, consumed))
    verdicts = ["match"] * len(steps)
    if end in current:
        return RunMatch(True, verdicts, None, low, high, _trace(elements, history, end, len(steps)))
    expected = _expected(elements, current)
    missing = list(expected[0].nodes) if _one_content(expected) else []
    divergence = Divergence(len(steps), expected, None, missing, [])
    alignment = _trace(elements, history, next(iter(current)), len(steps))
    return RunMatch(False, verdicts, divergence, low, high, alignment)


def _meets(actual: Sequence[str], step: Step) -> bool:
    return matches(actual, step.nodes, step.mode)


def _expected(
    elements: Sequence[Step | Loop], positions: dict[Position, Position | None]
) -> tuple[Step, ...]:
    found: dict[int, Step] = {}
    for position in positions:
        step = step_at(elements, position)
        if step is not None:
            found.setdefault(id(step), step)
    return tuple(found.values())


def _one_content(steps: Sequence[Step]) -> bool:
    """Whether all the alternatives expect the same nodes in the same mode."""
    return len({(tuple(step.nodes), step.mode) for step in steps}) == 1


def _left_pattern(
    elements: Sequence[Step | Loop],
    positions: dict[Position, Position | None],
    index: int,
    actual: Sequence[str],
) -> Divergence:
    expected = _expected(elements, positions)
    if _one_content(expected):
        missing, extra = difference(actual, expected[0].nodes, expected[0].mode)
        return Divergence(index, expected, actual, missing, extra)
    return Divergence(index, expected, actual, [], [])


def _trace(
    elements: Sequence[Step | Loop],
    history: list[tuple[dict[Position, Position | None], dict[Position, Position]]],
    last: Position,
    length: int,
) -> list[str | None]:
    """The reference step path each matched superstep was matched to (None past the match)."""
    alignment: list[str | None] = [None] * length
    position = last
    for index in range(len(history) - 1, -1, -1):
        reached, consumed = history[index]
        origin = reached[position]
        assert origin is not None
        previous = consumed[origin]
        step = step_at(elements, previous)
        assert step is not None
        alignment[index] = step.path
        position = previous
    return alignment
