"""Strict matching of one run against its reference, superstep by superstep.

A reference without patterns pairs supersteps one to one. A reference with optional steps or
:class:`~matchevals.graph_trajectory.Repeat` is an automaton over reference positions
``(element, iteration, body index)``; the run is matched by keeping the set of positions every
prefix of the run can reach (a dynamic program over run supersteps × positions), so the time is
O(supersteps × positions) with no backtracking, and the first superstep that no position accepts
is where the run left the pattern. Iteration counts of a ``Repeat`` without ``max`` stop at
``min`` (more iterations behave alike), which keeps the position set finite; with a ``max``, a
position that met ``min`` is dropped when one with fewer iterations reached the same body step,
so a Repeat never holds more than ``(min + 1) × len(body)`` positions. Nested Repeat is rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matchevals.graph_trajectory._modes import difference, matches
from matchevals.graph_trajectory._validate import Loop, Reference, Step

__all__ = [
    "Divergence",
    "Position",
    "RunMatch",
    "advance",
    "expected_length",
    "match_run",
    "met_min",
    "skips",
    "step_at",
]

Position = tuple[int, int, int]
"""(element index, completed iterations of a Repeat, index in its body); (len, 0, 0) is the end."""


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


def expected_length(elements: Sequence[Step | Loop]) -> tuple[int, int | None]:
    """The fewest and most supersteps a reference accepts (None: no upper bound)."""
    low, high = 0, 0
    unbounded = False
    for element in elements:
        if isinstance(element, Step):
            low += not element.optional
            high += 1
        else:
            low += element.min * sum(not step.optional for step in element.body)
            if element.max is None:
                unbounded = True
            else:
                high += element.max * len(element.body)
    return low, None if unbounded else high


def match_run(steps: Sequence[Sequence[str]], reference: Reference, same: bool = False) -> RunMatch:
    """Match one validated run against its validated reference.

    >>> from matchevals.graph_trajectory._validate import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["c", "b"]]}, {"steps": [["a"], ["b", "c"]]})[0]
    >>> match_run(pair.steps, pair.reference).matched
    True
    """
    plain = reference.plain
    if plain is not None and (same or steps == plain):
        return RunMatch(True, ["match"] * len(steps), None, len(plain), len(plain))
    if reference.has_patterns:
        return _match_pattern(steps, reference.elements)
    return _match_positional(steps, reference)


def _match_positional(steps: Sequence[Sequence[str]], reference: Reference) -> RunMatch:
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


def step_at(elements: Sequence[Step | Loop], position: Position) -> Step | None:
    """The reference step that consumes the next superstep at ``position`` (None: none can)."""
    element_index, iteration, body_index = position
    if element_index == len(elements):
        return None
    element = elements[element_index]
    if isinstance(element, Step):
        return element
    if element.max is not None and iteration >= element.max:
        return None
    return element.body[body_index]


def advance(elements: Sequence[Step | Loop], position: Position) -> Position:
    """The position after the step at ``position`` is consumed (or skipped)."""
    element_index, iteration, body_index = position
    element = elements[element_index]
    if isinstance(element, Step):
        return (element_index + 1, 0, 0)
    if body_index + 1 < len(element.body):
        return (element_index, iteration, body_index + 1)
    iteration += 1
    if element.max is None and iteration > element.min:
        iteration = element.min
    return (element_index, iteration, 0)


def skips(
    elements: Sequence[Step | Loop], position: Position
) -> list[tuple[Position, Step | None]]:
    """Moves that consume no superstep: (next position, the step skipped or None for a
    Repeat's exit). Skipped steps are optional ones here; partial credit also skips required
    ones, at a cost."""
    element_index, iteration, body_index = position
    if element_index == len(elements):
        return []
    element = elements[element_index]
    if isinstance(element, Step):
        return [((element_index + 1, 0, 0), element)]
    moves: list[tuple[Position, Step | None]] = []
    if body_index == 0 and iteration >= element.min:
        moves.append(((element_index + 1, 0, 0), None))
    if element.max is None or iteration < element.max:
        moves.append((advance(elements, position), element.body[body_index]))
    return moves


def _closure(
    elements: Sequence[Step | Loop], reached: dict[Position, Position | None], bounded: bool
) -> dict[Position, Position | None]:
    """Add every position reachable by skipping optional steps or leaving a Repeat; each
    position remembers the consumed position it was reached from. With ``bounded`` (a Repeat
    has a ``max``), dominated positions are neither explored nor kept."""
    fewest = _fewest(elements, reached) if bounded else {}
    frontier = list(reached)
    while frontier:
        position = frontier.pop()
        for target, skipped in skips(elements, position):
            if (skipped is None or skipped.optional) and target not in reached:
                element_index, iteration, body_index = target
                if bounded and met_min(elements, element_index, iteration):
                    key = (element_index, body_index)
                    if fewest.get(key, iteration + 1) <= iteration:
                        continue
                    fewest[key] = iteration
                reached[target] = reached[position]
                frontier.append(target)
    return _drop_dominated(elements, reached, fewest) if bounded else reached


def _match_pattern(steps: Sequence[Sequence[str]], elements: list[Step | Loop]) -> RunMatch:
    low, high = expected_length(elements)
    end: Position = (len(elements), 0, 0)
    start: Position = (0, 0, 0)
    bounded = any(isinstance(element, Loop) and element.max is not None for element in elements)
    current = _closure(elements, {start: start}, bounded)
    history: list[tuple[dict[Position, Position | None], dict[Position, Position]]] = []
    for index, actual in enumerate(steps):
        consumed: dict[Position, Position] = {}
        verdict_of: dict[int, bool] = {}
        for position in current:
            step = step_at(elements, position)
            if step is None:
                continue
            ok = verdict_of.get(id(step))
            if ok is None:
                ok = verdict_of[id(step)] = matches(actual, step.nodes, step.mode)
            if ok:
                consumed.setdefault(advance(elements, position), position)
        if not consumed:
            divergence = _left_pattern(elements, current, index, actual)
            verdicts = ["match"] * index + ["mismatch"] + ["unchecked"] * (len(steps) - index - 1)
            alignment = _trace(elements, history, next(iter(current)), len(steps))
            return RunMatch(False, verdicts, divergence, low, high, alignment)
        current = _closure(elements, {position: position for position in consumed}, bounded)
        history.append((current, consumed))
    verdicts = ["match"] * len(steps)
    if end in current:
        return RunMatch(True, verdicts, None, low, high, _trace(elements, history, end, len(steps)))
    expected = _expected(elements, current)
    missing = list(expected[0].nodes) if _one_content(expected) else []
    divergence = Divergence(len(steps), expected, None, missing, [])
    alignment = _trace(elements, history, next(iter(current)), len(steps))
    return RunMatch(False, verdicts, divergence, low, high, alignment)


def _fewest(
    elements: Sequence[Step | Loop], reached: dict[Position, Position | None]
) -> dict[tuple[int, int], int]:
    """The fewest iterations at each (Repeat, body step) among positions that met ``min``."""
    fewest: dict[tuple[int, int], int] = {}
    for element_index, iteration, body_index in reached:
        if met_min(elements, element_index, iteration):
            key = (element_index, body_index)
            fewest[key] = min(iteration, fewest.get(key, iteration))
    return fewest


def _drop_dominated(
    elements: Sequence[Step | Loop],
    reached: dict[Position, Position | None],
    fewest: dict[tuple[int, int], int],
) -> dict[Position, Position | None]:
    """In a Repeat with a ``max``, of two positions at the same body step that both met ``min``,
    the one with fewer iterations can do all the other can: keep only it. This bounds the
    positions per body step by ``min + 1``."""
    if not fewest:
        return reached
    return {
        position: origin
        for position, origin in reached.items()
        if not met_min(elements, position[0], position[1])
        or fewest[(position[0], position[2])] == position[1]
    }


def met_min(elements: Sequence[Step | Loop], element_index: int, iteration: int) -> bool:
    """Whether a position is in a Repeat with a ``max`` and has done its ``min`` iterations."""
    if element_index == len(elements):
        return False
    element = elements[element_index]
    return isinstance(element, Loop) and element.max is not None and iteration >= element.min


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
