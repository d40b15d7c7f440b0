"""Partial credit's best-first search with patterns (``_alignment``) on runs longer than the
exhaustive oracle reaches, against a dynamic program that keeps every (steps, similarity) each
(superstep, position) can be reached with; and its upper bounds (``_remaining_similarity``)
against a brute-force dynamic program over the pattern's real moves: never below it (a bound
too low would let the search stop early with a worse alignment), and exactly it when no Repeat
has a ``max`` (the bounds take Repeats as unbounded past ``min``)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._patterns import WEIGHTS, Position, advance, skips, step_at
from matchevals._patterns import remaining_similarity as bounds_of
from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    _alignment,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
)
from matchevals.graph_trajectory._reference import Loop, Step, read_reference
from matchevals.graph_trajectory._superstep import COMPARATOR, similarity

NODES = st.lists(st.sampled_from(["a", "b", "c"]), max_size=2)
MODES = st.sampled_from(["exact", "unordered", "subset", "superset"])
STEPS = st.builds(ReferenceStep, NODES, MODES, st.booleans())


@st.composite
def patterns(draw: st.DrawFn) -> list[Any]:
    items: list[Any] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            low = draw(st.integers(0, 2))
            high = draw(st.one_of(st.none(), st.integers(max(low, 1), low + 2)))
            items.append(Repeat(draw(st.lists(STEPS, min_size=1, max_size=3)), low, high))
        else:
            items.append(draw(STEPS))
    return items


def all_positions(elements: list[Step | Loop]) -> list[Position]:
    positions: list[Position] = []
    for index, element in enumerate(elements):
        if isinstance(element, Step):
            positions.append((index, 0, 0))
            continue
        iterations = element.min if element.max is None else element.max
        for iteration in range(iterations + 1):
            positions.extend((index, iteration, body) for body in range(len(element.body)))
    return [*positions, (len(elements), 0, 0)]


def best_completions(
    steps: list[list[str]], elements: list[Step | Loop], weight: float
) -> list[dict[Position, float]]:
    """The largest ``S - weight * (steps added - S)`` from each (supersteps consumed,
    position) to the end, by relaxing every move until nothing changes."""
    positions = all_positions(elements)
    end = (len(elements), 0, 0)
    tables: list[dict[Position, float]] = [{} for _ in range(len(steps) + 1)]
    for consumed in range(len(steps), -1, -1):
        row = {p: 0.0 if (p == end and consumed == len(steps)) else -math.inf for p in positions}
        if consumed < len(steps):
            for position in positions:
                row[position] = tables[consumed + 1][position]
                step = step_at(elements, position)
                if step is not None:
                    pair = similarity(steps[consumed], step.nodes, step.mode)
                    after = tables[consumed + 1][advance(elements, position)]
                    row[position] = max(row[position], pair - weight * (1 - pair) + after)
        for _ in positions:
            for position in positions:
                for target, skipped in skips(elements, position):
                    cost = weight if skipped is not None and not skipped.optional else 0.0
                    row[position] = max(row[position], row[target] - cost)
        tables[consumed] = row
    return tables


@settings(max_examples=200, deadline=None)
@given(st.lists(NODES, max_size=4), patterns())
def test_remaining_similarity_bounds_every_completion(
    steps: list[list[str]], items: list[Any]
) -> None:
    elements = read_reference({"steps": items}, "reference").elements
    bounds = bounds_of(steps, elements, 1_000_000, COMPARATOR)
    assert bounds is not None
    unbounded = all(not isinstance(e, Loop) or e.max is None for e in elements)
    for index, weight in enumerate(WEIGHTS):
        exact = best_completions(steps, elements, weight)
        for consumed, row in enumerate(exact):
            for position, value in row.items():
                got = bounds.at(consumed, position)[index]
                assert got >= value - 1e-9
                if unbounded:
                    assert abs(got - value) < 1e-9


def test_past_its_limit_the_search_does_without() -> None:
    elements = read_reference({"steps": [["a"], ["b"]]}, "reference").elements
    assert bounds_of([["a"], ["c"]], elements, 3, COMPARATOR) is None


def every_alignment_score(steps: list[list[str]], elements: list[Step | Loop]) -> float:
    """The best S / max(n, L) over every (L, S) the end is reached with, each (superstep,
    position) keeping all of them (paths longer than any useful one cut off)."""
    end = (len(elements), 0, 0)
    positions = all_positions(elements)
    widest = max([len(e.body) for e in elements if isinstance(e, Loop)] + [1])
    cap = sum(not e.optional for e in elements if isinstance(e, Step))
    cap += sum(e.min * len(e.body) for e in elements if isinstance(e, Loop))
    cap += len(steps) * (widest + 1)
    layer: dict[Position, set[tuple[int, float]]] = {p: set() for p in positions}
    layer[(0, 0, 0)].add((0, 0.0))
    for consumed in range(len(steps) + 1):
        changed = True
        while changed:  # moves that consume no superstep, to a fixed point
            changed = False
            for position in positions:
                for target, skipped in skips(elements, position):
                    added = int(skipped is not None and not skipped.optional)
                    for length, total in list(layer[position]):
                        item = (length + added, total)
                        if item[0] <= cap and item not in layer[target]:
                            layer[target].add(item)
                            changed = True
        if consumed == len(steps):
            break
        following: dict[Position, set[tuple[int, float]]] = {p: set() for p in positions}
        for position in positions:
            step = step_at(elements, position)
            for length, total in layer[position]:
                following[position].add((length, total))
                if step is not None and length < cap:
                    pair = similarity(steps[consumed], step.nodes, step.mode)
                    following[advance(elements, position)].add((length + 1, round(total + pair, 9)))
        layer = following
    scores = [s / max(len(steps), n) if max(len(steps), n) else 1.0 for n, s in layer[end]]
    return max(scores)


PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)


@settings(max_examples=150, deadline=None)
@given(st.lists(NODES, max_size=9), patterns(), st.sampled_from([16, 0]))
def test_the_search_is_the_best_of_every_alignment_on_longer_runs(
    steps: list[list[str]], items: list[Any], budget: int
) -> None:
    # budget 0: the tighter bounds from the first entry on
    elements = read_reference({"steps": items}, "reference").elements
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_alignment, "_LOOSE_BOUND_BUDGET", budget)
        result = PARTIAL(outputs={"steps": steps}, reference_outputs={"steps": items})
    if graph_trajectory_match(outputs={"steps": steps}, reference_outputs={"steps": items})[
        "score"
    ]:
        assert result["score"] == 1.0
    else:
        assert result["score"] == pytest.approx(every_alignment_score(steps, elements), abs=1e-9)
