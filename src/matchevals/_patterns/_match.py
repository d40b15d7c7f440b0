"""Strict matching of a run against a reference with patterns, one actual step at a time.

Every reference is an automaton over positions (see ``_positions``): the run is matched by
keeping the set of positions every prefix of the run can reach (a dynamic program over actual
steps × positions), so the time is O(steps × positions) with no backtracking, and the first
actual step that no position accepts is where the run left the pattern; each matched step is
traced back to the reference step it matched (``alignment``). What "matches" means for one
actual step and one reference step comes from the :class:`~._elements.Comparator`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from matchevals._patterns._elements import Comparator, PatternStep
from matchevals._patterns._positions import (
    Dominance,
    Elements,
    Moves,
    Position,
    expected_length,
    skips,
    step_at,
)

__all__ = ["Divergence", "RunMatch", "match_pattern"]

S = TypeVar("S", bound=PatternStep)
A = TypeVar("A")


@dataclass(slots=True)
class Divergence(Generic[A, S]):
    """Where a run first left its reference: actual step ``superstep`` (``len(run)`` when the
    run ended early) expected one of ``expected`` (empty: nothing more was expected) and got
    ``actual`` (None: the run had ended)."""

    superstep: int
    expected: tuple[S, ...]
    actual: A | None
    missing: list[Any]
    extra: list[Any]


@dataclass(slots=True)
class RunMatch(Generic[A, S]):
    """The strict verdict of one run: per-step verdicts (``match``, ``mismatch``, ``extra``
    past a plain reference's end, ``unchecked`` after leaving a pattern)."""

    matched: bool
    verdicts: list[str]
    divergence: Divergence[A, S] | None
    expected_min: int
    expected_max: int | None
    alignment: list[str | None] | None = None


def _closure(
    elements: Elements[S],
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


def match_pattern(
    steps: Sequence[A], elements: Elements[S], comparator: Comparator[A, S]
) -> RunMatch[A, S]:
    """The run ``steps`` against the reference's automaton of positions.

    >>> from matchevals.graph_trajectory._reference import read_reference
    >>> from matchevals.graph_trajectory._superstep import COMPARATOR
    >>> elements = read_reference({"steps": [{"repeat": [["a"]]}, ["b"]]}, "r").elements
    >>> match_pattern([["a"], ["a"], ["b"]], elements, COMPARATOR).alignment
    ['r.steps[0].steps[0]', 'r.steps[0].steps[0]', 'r.steps[1]']
    """
    low, high = expected_length(elements)
    end: Position = (len(elements), 0, 0)
    start: Position = (0, 0, 0)
    dominance = Dominance.of(elements)
    moves: Moves[S] = Moves(elements)
    current = _closure(elements, {start: start}, dominance)
    history: list[tuple[dict[Position, Position | None], dict[Position, Position]]] = []
    for index, actual in enumerate(steps):
        consumed: dict[Position, Position] = {}
        for position, _, target, ok in moves.layer(current, actual, comparator.matches):
            if ok and target is not None:
                consumed.setdefault(target, position)
        if not consumed:
            divergence = _left_pattern(elements, current, index, actual, comparator)
            verdicts = ["match"] * index + ["mismatch"] + ["unchecked"] * (len(steps) - index - 1)
            alignment = _trace(elements, history, next(iter(current)), len(steps))
            return RunMatch(False, verdicts, divergence, low, high, alignment)
        current = _closure(elements, {position: position for position in consumed}, dominance)
        history.append((current, consumed))
    verdicts = ["match"] * len(steps)
    if end in current:
        return RunMatch(True, verdicts, None, low, high, _trace(elements, history, end, len(steps)))
    expected = _expected(elements, current)
    missing: list[Any] = []
    if _one_content(expected, comparator):
        missing = comparator.difference(None, expected[0])[0]
    divergence = Divergence(len(steps), expected, None, missing, [])
    alignment = _trace(elements, history, next(iter(current)), len(steps))
    return RunMatch(False, verdicts, divergence, low, high, alignment)


def _expected(elements: Elements[S], positions: dict[Position, Position | None]) -> tuple[S, ...]:
    found: dict[int, S] = {}
    for position in positions:
        step = step_at(elements, position)
        if step is not None:
            found.setdefault(id(step), step)
    return tuple(found.values())


def _one_content(steps: Sequence[S], comparator: Comparator[A, S]) -> bool:
    """Whether all the alternatives expect the same content."""
    contents: set[Hashable] = {comparator.content(step) for step in steps}
    return len(contents) == 1


def _left_pattern(
    elements: Elements[S],
    positions: dict[Position, Position | None],
    index: int,
    actual: A,
    comparator: Comparator[A, S],
) -> Divergence[A, S]:
    expected = _expected(elements, positions)
    if _one_content(expected, comparator):
        missing, extra = comparator.difference(actual, expected[0])
        return Divergence(index, expected, actual, missing, extra)
    return Divergence(index, expected, actual, [], [])


def _trace(
    elements: Elements[S],
    history: list[tuple[dict[Position, Position | None], dict[Position, Position]]],
    last: Position,
    length: int,
) -> list[str | None]:
    """The reference step path each matched step was matched to (None past the match)."""
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
