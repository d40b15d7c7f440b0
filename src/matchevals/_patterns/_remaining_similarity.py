"""What the rest of a run can still add from each point of a pattern: the upper bounds that let
partial credit's best-first search (``_alignment``) skip what cannot win.

For each count of supersteps consumed and each position, over every way to align the remaining
supersteps to the rest of the pattern, and for each weight ``w`` of :data:`WEIGHTS`: the
largest ``S - w y`` for the similarity ``S`` it adds and the reference deficit ``y`` it adds
(steps minus similarity: pairing ``s`` adds ``s - w (1 - s)``, leaving out a required step
``-w``). Weight 0 is the most similarity the rest can add; the others bound how much
similarity costs in deficit (at the best score ``s``, the weight ``s / (1 - s)`` is the one
that binds). Every Repeat is taken as unbounded past its ``min``, which only loosens them.

One backward pass over the run, one numpy row per superstep: a row is the better of leaving
the superstep out and pairing it at each position, then the best over every position that
moves consuming nothing reach, at the cost of the required steps they leave out: a running
maximum from the right in coordinates that count those steps (a Repeat's last iteration is
left for free), and, from inside that iteration, its start (reached by leaving out the rest).

>>> from matchevals.graph_trajectory._reference import read_reference
>>> from matchevals.graph_trajectory._superstep import COMPARATOR
>>> elements = read_reference({"steps": [["a"], ["b"]]}, "r").elements
>>> bounds = remaining_similarity([["b"], ["a"]], elements, 100, COMPARATOR)
>>> dict(zip(WEIGHTS, bounds.at(0, (0, 0, 0))))[1.0]  # one pair, one required step left out
0.0
>>> bounds.at(0, (0, 0, 0))[0], bounds.at(1, (2, 0, 0))[0]
(1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from matchevals._patterns._elements import Comparator, Loop, PatternStep
from matchevals._patterns._positions import Elements, Position

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["WEIGHTS", "RemainingSimilarity", "remaining_similarity"]

S = TypeVar("S", bound=PatternStep)
A = TypeVar("A")

WEIGHTS = (0.0, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0, 8.0)
"""The weights of the reference deficit, one bound each (0 first: similarity alone). The
weight ``s / (1 - s)`` binds near the score ``s``, so these serve scores from 0.06 to 0.9 (a
run scoring higher is aligned before the search needs them)."""


@dataclass(slots=True)
class RemainingSimilarity(Generic[S]):
    """The bounds (supersteps consumed, column, weight) and each position's column."""

    table: NDArray[Any]
    columns: dict[Position, int]
    elements: Elements[S]

    def at(self, consumed: int, position: Position) -> list[float]:
        """The bound for each of :data:`WEIGHTS` after ``consumed`` supersteps at
        ``position``."""
        column = self.columns.get(position)
        if column is None:  # past min in a Repeat: bounded by its iteration at min
            element = self.elements[position[0]]
            assert isinstance(element, Loop)
            column = self.columns[(position[0], element.min, position[2])]
        bounds: list[float] = self.table[consumed, column].tolist()
        return bounds


@dataclass(slots=True)
class _Layout(Generic[S]):
    """The positions in order (iterations up to ``min``, the end last) and, per column: the
    step there, the column after pairing it, the required steps left out to reach it from the
    start (a Repeat's last iteration is left for free), and, in a Repeat's last iteration, to
    finish that iteration. ``segments``: (first, stop, whether it is a last iteration) in order,
    covering every column."""

    positions: list[Position]
    steps: list[S]
    after: list[int]
    reach_cost: list[int]
    rest_cost: list[int]
    segments: list[tuple[int, int, bool]]


def remaining_similarity(
    supersteps: Sequence[A], elements: Elements[S], limit: int, comparator: Comparator[A, S]
) -> RemainingSimilarity[S] | None:
    """The bounds for ``supersteps`` (the actual steps) against the pattern ``elements`` (None
    when it would compare more than ``limit`` distinct pairs of contents: the search then does
    without). They depend on the steps' contents only through ``comparator.table``."""
    import numpy as np

    layout = _layout(elements)
    similarities, rows, step_columns = comparator.table(supersteps, layout.steps, limit)
    if similarities is None:
        return None
    size = len(layout.positions)
    pairs = np.full((len(similarities), size), -np.inf)
    pairs[:, : len(layout.steps)] = similarities[:, step_columns]
    weights = np.array(WEIGHTS)[:, None]
    values = pairs[:, None, :] * (1.0 + weights) - weights  # superstep content, weight, column
    after = np.array(layout.after)
    reach = weights * np.array(layout.reach_cost, dtype=float)
    rest = weights * np.array(layout.rest_cost, dtype=float)
    tables = np.empty((len(supersteps) + 1, len(WEIGHTS), size))
    ended = np.full((len(WEIGHTS), size), -np.inf)
    ended[:, -1] = 0.0  # no superstep left: only the end, reached by leaving steps out
    _reach(ended, reach, rest, layout.segments, tables[-1])
    for consumed in range(len(supersteps) - 1, -1, -1):
        later = tables[consumed + 1]
        best = np.maximum(later, values[rows[consumed]] + later[:, after])
        _reach(best, reach, rest, layout.segments, tables[consumed])
    columns = {position: column for column, position in enumerate(layout.positions)}
    return RemainingSimilarity(tables.transpose(0, 2, 1).copy(), columns, elements)


def _reach(
    best: NDArray[Any],
    reach: NDArray[Any],
    rest: NDArray[Any],
    segments: list[tuple[int, int, bool]],
    row: NDArray[Any],
) -> None:
    """Fill ``row`` with the best of ``best`` over the positions each one reaches by moves that
    consume nothing, less their cost; segment by segment from the right."""
    import numpy as np

    beyond = np.full((len(WEIGHTS), 1), -np.inf)  # at the first column right of the segment
    beyond_cost = np.zeros((len(WEIGHTS), 1))
    for first, stop, last_iteration in reversed(segments):
        cost = reach[:, first:stop]
        forward = best[:, first:stop] - cost
        inner = np.maximum.accumulate(forward[:, ::-1], axis=1)[:, ::-1] + cost
        if last_iteration:  # leave at its start for free; reach the start by finishing
            start = np.maximum(inner[:, :1], beyond)
            row[:, first:stop] = np.maximum(inner, start - rest[:, first:stop])
            row[:, first : first + 1] = start
        else:
            row[:, first:stop] = np.maximum(inner, beyond - (beyond_cost - cost))
        beyond = row[:, first : first + 1]
        beyond_cost = reach[:, first : first + 1]


def _layout(elements: Elements[S]) -> _Layout[S]:
    layout: _Layout[S] = _Layout([], [], [], [], [], [])
    cost = 0
    linear_from = 0
    for index, element in enumerate(elements):
        if not isinstance(element, Loop):
            _add(layout, (index, 0, 0), element, len(layout.positions) + 1, cost, 0)
            cost += not element.optional
            continue
        body = element.body
        for iteration in range(element.min + 1):
            first = len(layout.positions)
            last = iteration == element.min
            start = cost
            if last and first > linear_from:
                layout.segments.append((linear_from, first, False))
            for body_index, step in enumerate(body):
                following = first + body_index + 1
                if body_index + 1 == len(body):
                    following = first if last else first + len(body)
                rest = sum(not later.optional for later in body[body_index:]) if last else 0
                _add(layout, (index, iteration, body_index), step, following, cost, rest)
                cost += not step.optional
            if last:
                layout.segments.append((first, len(layout.positions), True))
                linear_from = len(layout.positions)
                cost = start
    _add(layout, (len(elements), 0, 0), None, len(layout.positions), cost, 0)
    layout.segments.append((linear_from, len(layout.positions), False))
    return layout


def _add(
    layout: _Layout[S],
    position: Position,
    step: S | None,
    after: int,
    reach_cost: int,
    rest_cost: int,
) -> None:
    layout.positions.append(position)
    if step is not None:
        layout.steps.append(step)
    layout.after.append(after)
    layout.reach_cost.append(reach_cost)
    layout.rest_cost.append(rest_cost)
