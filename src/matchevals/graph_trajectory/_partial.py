"""Partial credit: the best alignment of a run's supersteps to its reference's steps.

An alignment pairs supersteps with reference steps in order; the rest are gaps. Its score is
the sum of the paired steps' similarities (see ``_superstep``) divided by the longer of the run and
the reference path, so it is 1.0 exactly when the strict match passes.

With patterns the reference path is chosen too (which optional steps are present, how often a
Repeat runs). The alignment minimizes one additive cost (a pair costs ``1 - similarity``, a gap on
either side costs ``1/2``, leaving out an optional step or ending a Repeat costs nothing), which
for a fixed reference length is the same as maximizing the summed similarity; it is a shortest
path over (run superstep, reference position), solved layer by layer with Dijkstra. Ties keep the
higher summed similarity.

Cost: O(supersteps × positions). A reference without patterns takes the fast path: trimmed of
its matching prefix and suffix and filled as a numpy table (see ``_align_plain``), with the same
score as the general alignment (``tests/graph_trajectory/test_fast_paths.py`` checks it against
``partial_credit(..., fast=False)`` on random inputs). A Repeat has ``(min + 1) × len(body)``
positions, or up to ``(max + 1) × len(body)`` with a ``max`` (positions
with more iterations survive only when cheaper), so a large bounded Repeat over a long run is slow
(seconds at 1,000 × 1,000). Past ``CELL_LIMIT`` / ``DISTINCT_LIMIT`` (no patterns) or
``PATTERN_CELL_LIMIT`` (patterns), partial credit is a ``ValueError`` instead of minutes of work.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matchevals.graph_trajectory._positions import (
    Dominance,
    Moves,
    Position,
    position_count,
    skips,
)
from matchevals.graph_trajectory._reference import Loop, Reference, Step
from matchevals.graph_trajectory._superstep import matches, similarity
from matchevals.graph_trajectory._types import GraphTrajectoryMatchMode

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Alignment", "partial_credit"]

_GAP = 0.5
_EPSILON = 1e-9
CELL_LIMIT = 25_000_000
"""Most (superstep, reference step) cells a reference without patterns may align, after the
matching prefix and suffix are trimmed (25 MB of back-pointers)."""
DISTINCT_LIMIT = 1_000_000
"""Most distinct (superstep, reference step) contents whose similarity is computed."""
PATTERN_CELL_LIMIT = 500_000
"""Most (superstep, reference position) cells a reference with patterns may align."""


@dataclass(slots=True)
class Alignment:
    """The best alignment: summed similarity, the longer of run and reference path, and its
    pairs (superstep index or None, reference path or None, similarity)."""

    similarity_sum: float
    longest: int
    pairs: list[dict[str, Any]]

    @property
    def score(self) -> float:
        return 1.0 if self.longest == 0 else min(1.0, self.similarity_sum / self.longest)


@dataclass(slots=True)
class _Cell:
    cost: float
    similarity: float
    length: int
    back: tuple[int, Position, Step | None, float] | None


def partial_credit(
    steps: Sequence[Sequence[str]], reference: Reference, *, fast: bool = True
) -> Alignment:
    """Score one validated run against its validated reference (``fast=False``: always the
    general alignment, the oracle of the fast path's tests).

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["b"]]}, {"steps": [["a"], ["b"], ["c"]]})[0]
    >>> partial_credit(pair.steps, pair.reference).score
    0.6666666666666666
    """
    elements = reference.elements
    if not fast or reference.has_patterns:
        cells = len(steps) * position_count(elements)
        if cells > PATTERN_CELL_LIMIT:
            raise ValueError(
                f"partial credit would align {len(steps)} supersteps with a reference pattern of "
                f"about {position_count(elements)} positions ({cells:,} cells, more than "
                f"{PATTERN_CELL_LIMIT:,}); use strict matching for runs this long"
            )
        similarity_sum, length, pairs = _align(steps, elements, 0)
        return Alignment(similarity_sum, max(len(steps), length), pairs)
    head = 0
    limit = min(len(steps), len(elements))
    while head < limit and _same(steps[head], elements[head]):
        head += 1
    tail = 0
    while tail < limit - head and _same(steps[-1 - tail], elements[-1 - tail]):
        tail += 1
    middle_elements = elements[head : len(elements) - tail]
    middle, middle_length, middle_pairs = _align_plain(
        steps[head : len(steps) - tail], [e for e in middle_elements if isinstance(e, Step)], head
    )
    pairs = [_pair(index, elements[index], 1.0) for index in range(head)]
    pairs += middle_pairs
    for offset in range(tail, 0, -1):
        pairs.append(_pair(len(steps) - offset, elements[len(elements) - offset], 1.0))
    total = head + tail + middle
    return Alignment(total, max(len(steps), head + tail + middle_length), pairs)


def _align_plain(
    steps: Sequence[Sequence[str]], elements: Sequence[Step], offset: int
) -> tuple[float, int, list[dict[str, Any]]]:
    """``_align`` for a reference without patterns, as a table filled row by row with numpy.

    Every reference step is required, so an alignment's cost is ``(n + m) / 2`` minus its summed
    similarity, and the cheapest one is the most similar. ``D[i][j]``, the cheapest way to use
    ``i`` supersteps and ``j`` reference steps, is the best of a pair ``D[i-1][j-1] + 1 - s``, a
    superstep left out ``D[i-1][j] + 1/2`` and a reference step left out ``D[i][j-1] + 1/2``; the
    last is a running minimum along the row (``np.minimum.accumulate``). Ties prefer the pair,
    then leaving out the superstep. Time O(n × m) in C, plus one similarity per distinct
    (superstep, reference step) content; inputs past ``CELL_LIMIT`` or ``DISTINCT_LIMIT`` are a
    ``ValueError`` rather than minutes of work.
    """
    import numpy as np

    n, m = len(steps), len(elements)
    if n * m > CELL_LIMIT:
        raise ValueError(
            f"partial credit would align {n} supersteps with {m} reference steps that differ "
            f"({n * m:,} cells, more than {CELL_LIMIT:,}); use strict matching for runs this long"
        )
    table, rows, columns = _similarity_table(steps, elements)
    skips = np.arange(m + 1) * _GAP
    previous = skips.copy()
    moves = np.empty((n, m + 1), dtype=np.uint8)  # 0 pair, 1 superstep left out, 2 step left out
    diagonal = np.empty(m + 1)
    diagonal[0] = np.inf
    for index in range(n):
        diagonal[1:] = previous[:-1] + (1.0 - table[rows[index], columns])
        up = previous + _GAP
        best = np.minimum(diagonal, up)
        shifted = best - skips
        running = np.minimum.accumulate(shifted)
        left = running < shifted
        moves[index] = np.where(left, 2, np.where(diagonal <= up, 0, 1))
        previous = np.where(left, running + skips, best)
    pairs = _plain_pairs(moves, table, rows, columns, elements, offset)
    total = 0.0
    for pair in pairs:
        total += pair["score"]
    return total, m, pairs


def _similarity_table(
    steps: Sequence[Sequence[str]], elements: Sequence[Step]
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """One similarity per distinct (superstep, reference step) content, and each superstep's
    row and each reference step's column in that table."""
    import numpy as np

    row_ids: dict[tuple[str, ...], int] = {}
    rows = np.fromiter(
        (row_ids.setdefault(tuple(actual), len(row_ids)) for actual in steps), np.intp, len(steps)
    )
    column_ids: dict[tuple[tuple[str, ...], GraphTrajectoryMatchMode], int] = {}
    columns = np.fromiter(
        (column_ids.setdefault((tuple(e.nodes), e.mode), len(column_ids)) for e in elements),
        np.intp,
        len(elements),
    )
    if len(row_ids) * len(column_ids) > DISTINCT_LIMIT:
        raise ValueError(
            f"partial credit would compare {len(row_ids)} distinct supersteps with "
            f"{len(column_ids)} distinct reference steps (more than {DISTINCT_LIMIT:,} pairs); "
            "use strict matching for runs this long"
        )
    table = np.empty((len(row_ids), len(column_ids)))
    for actual, row in row_ids.items():
        for (nodes, mode), column in column_ids.items():
            table[row, column] = similarity(actual, nodes, mode)
    return table, rows, columns


def _plain_pairs(
    moves: NDArray[Any],
    table: NDArray[Any],
    rows: NDArray[Any],
    columns: NDArray[Any],
    elements: Sequence[Step],
    offset: int,
) -> list[dict[str, Any]]:
    """The alignment's pairs, followed back from the table's last cell."""
    pairs: list[dict[str, Any]] = []
    i, j = len(moves), len(elements)
    while i or j:
        move = 2 if i == 0 else moves[i - 1, j]
        if move == 0:
            score = float(table[rows[i - 1], columns[j - 1]])
            pairs.append(_pair(i - 1 + offset, elements[j - 1], score))
            i, j = i - 1, j - 1
        elif move == 1:
            pairs.append(_pair(i - 1 + offset, None, 0.0))
            i -= 1
        else:
            pairs.append(_pair(None, elements[j - 1], 0.0))
            j -= 1
    pairs.reverse()
    return pairs


def _same(actual: Sequence[str], step: Step | Loop) -> bool:
    return isinstance(step, Step) and matches(actual, step.nodes, step.mode)


def _pair(superstep: int | None, step: Step | Loop | None, score: float) -> dict[str, Any]:
    return {
        "superstep": superstep,
        "reference": None if step is None else step.path,
        "score": score,
    }


def _align(
    steps: Sequence[Sequence[str]], elements: Sequence[Step | Loop], offset: int
) -> tuple[float, int, list[dict[str, Any]]]:
    """(summed similarity, reference path length, pairs) of the cheapest alignment."""
    start: Position = (0, 0, 0)
    end: Position = (len(elements), 0, 0)
    dominance = Dominance.of(elements)
    moves = Moves(elements)
    layers = [_settle(elements, {start: _Cell(0.0, 0.0, 0, None)}, dominance)]
    for index, actual in enumerate(steps):
        layer = layers[-1]
        seeds: dict[Position, _Cell] = {}
        for position, step, target, score in moves.layer(layer, actual, _similarity):
            cell = layer[position]
            gap = (index, position, None, 0.0)
            _offer(seeds, position, cell.cost + _GAP, cell.similarity, cell.length, gap)
            if step is None or target is None or score is None:
                continue
            _offer(
                seeds,
                target,
                cell.cost + 1.0 - score,
                cell.similarity + score,
                cell.length + 1,
                (index, position, step, score),
            )
        layers.append(_settle(elements, seeds, dominance))
    final = layers[-1][end]
    return final.similarity, final.length, _pairs(layers, end, offset)


def _similarity(actual: Sequence[str], step: Step) -> float:
    return similarity(actual, step.nodes, step.mode)


def _offer(
    cells: dict[Position, _Cell],
    position: Position,
    cost: float,
    similarity_sum: float,
    length: int,
    back: tuple[int, Position, Step | None, float],
) -> None:
    if _better(cost, similarity_sum, cells.get(position)):
        cells[position] = _Cell(cost, similarity_sum, length, back)


def _better(cost: float, similarity_sum: float, known: _Cell | None) -> bool:
    """Cheaper, or as cheap and more similar. Costs within ``_EPSILON`` are equal: they are sums
    of ``1 - similarity`` in different orders, and rounding must not decide between two equally
    cheap paths (a path with more similarity, e.g. through one more Repeat iteration, wins)."""
    if known is None:
        return True
    if abs(cost - known.cost) > _EPSILON:
        return cost < known.cost
    return similarity_sum > known.similarity + _EPSILON


def _settle(
    elements: Sequence[Step | Loop], seeds: dict[Position, _Cell], dominance: Dominance | None
) -> dict[Position, _Cell]:
    """Dijkstra within one layer over moves that consume no superstep.

    With a ``dominance`` (a Repeat has a ``max``), a position that met the Repeat's ``min`` is
    dropped when one with fewer iterations at the same body step settled first: that one is
    no costlier and can do all it can, so positions stay few however large ``max`` is."""
    best = dict(seeds)
    heap = [(_rounded(cell.cost), -cell.similarity, position) for position, cell in best.items()]
    heapq.heapify(heap)
    done: set[Position] = set()
    if dominance is not None:
        dominance.start()
    while heap:
        _, _, position = heapq.heappop(heap)
        if position in done:
            continue
        done.add(position)
        if dominance is not None and not dominance.admits(position):
            del best[position]
            continue
        cell = best[position]
        for target, skipped in skips(elements, position):
            if target in done:
                continue
            required = skipped is not None and not skipped.optional
            cost = cell.cost + (_GAP if required else 0.0)
            if _better(cost, cell.similarity, best.get(target)):
                back = (-1, position, skipped if required else None, 0.0)
                best[target] = _Cell(cost, cell.similarity, cell.length + required, back)
                heapq.heappush(heap, (_rounded(cost), -cell.similarity, target))
    return best


def _rounded(cost: float) -> float:
    """A heap key under which costs equal up to rounding noise tie (then similarity decides)."""
    return round(cost, 9)


def _pairs(layers: list[dict[Position, _Cell]], end: Position, offset: int) -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = []
    layer, position = len(layers) - 1, end
    while True:
        back = layers[layer][position].back
        if back is None:
            break
        superstep, previous, step, score = back
        if superstep < 0:
            if step is not None:
                pairs.append(_pair(None, step, 0.0))
        else:
            pairs.append(_pair(superstep + offset, step, score))
            layer -= 1
        position = previous
    pairs.reverse()
    return pairs
