"""Partial credit: the best alignment of a run's supersteps to its reference's steps.

An alignment pairs supersteps with reference steps in order; the rest are gaps. Its score is
the sum of the paired steps' similarities (see ``_modes``) divided by the longer of the run and
the reference path, so it is 1.0 exactly when the strict match passes.

With patterns the reference path is chosen too (which optional steps are present, how often a
Repeat runs). The alignment minimizes one additive cost (a pair costs ``1 - similarity``, a gap on
either side costs ``1/2``, leaving out an optional step or ending a Repeat costs nothing), which
for a fixed reference length is the same as maximizing the summed similarity; it is a shortest
path over (run superstep, reference position), solved layer by layer with Dijkstra. Ties keep the
higher summed similarity.

Cost: O(supersteps × positions), after trimming the matching prefix and suffix of a reference
without patterns. A Repeat has ``(min + 1) × len(body)`` positions, or up to
``(max + 1) × len(body)`` with a ``max`` (positions with more iterations survive only when
cheaper), so a large bounded Repeat over a long run is slow (seconds at 1,000 × 1,000).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.graph_trajectory._match import Position, advance, met_min, skips, step_at
from matchevals.graph_trajectory._modes import matches, similarity
from matchevals.graph_trajectory._validate import Loop, Reference, Step

__all__ = ["Alignment", "partial_credit"]

_GAP = 0.5


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


def partial_credit(steps: Sequence[Sequence[str]], reference: Reference) -> Alignment:
    """Score one validated run against its validated reference.

    >>> from matchevals.graph_trajectory._validate import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["b"]]}, {"steps": [["a"], ["b"], ["c"]]})[0]
    >>> partial_credit(pair.steps, pair.reference).score
    0.6666666666666666
    """
    elements = reference.elements
    if reference.has_patterns:
        similarity_sum, length, pairs = _align(steps, elements, 0)
        return Alignment(similarity_sum, max(len(steps), length), pairs)
    head = 0
    limit = min(len(steps), len(elements))
    while head < limit and _same(steps[head], elements[head]):
        head += 1
    tail = 0
    while tail < limit - head and _same(steps[-1 - tail], elements[-1 - tail]):
        tail += 1
    middle, middle_length, middle_pairs = _align(
        steps[head : len(steps) - tail], elements[head : len(elements) - tail], head
    )
    pairs = [_pair(index, elements[index], 1.0) for index in range(head)]
    pairs += middle_pairs
    for offset in range(tail, 0, -1):
        pairs.append(_pair(len(steps) - offset, elements[len(elements) - offset], 1.0))
    total = head + tail + middle
    return Alignment(total, max(len(steps), head + tail + middle_length), pairs)


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
    bounded = any(isinstance(element, Loop) and element.max is not None for element in elements)
    layers = [_settle(elements, {start: _Cell(0.0, 0.0, 0, None)}, bounded)]
    for index, actual in enumerate(steps):
        scores: dict[int, float] = {}
        seeds: dict[Position, _Cell] = {}
        for position, cell in layers[-1].items():
            _offer(
                seeds,
                position,
                cell.cost + _GAP,
                cell.similarity,
                cell.length,
                (index, position, None, 0.0),
            )
            step = step_at(elements, position)
            if step is None:
                continue
            score = scores.get(id(step))
            if score is None:
                score = scores[id(step)] = similarity(actual, step.nodes, step.mode)
            _offer(
                seeds,
                advance(elements, position),
                cell.cost + 1.0 - score,
                cell.similarity + score,
                cell.length + 1,
                (index, position, step, score),
            )
        layers.append(_settle(elements, seeds, bounded))
    final = layers[-1][end]
    return final.similarity, final.length, _pairs(layers, end, offset)


def _offer(
    cells: dict[Position, _Cell],
    position: Position,
    cost: float,
    similarity_sum: float,
    length: int,
    back: tuple[int, Position, Step | None, float],
) -> None:
    known = cells.get(position)
    if known is None or (cost, -similarity_sum) < (known.cost, -known.similarity):
        cells[position] = _Cell(cost, similarity_sum, length, back)


def _settle(
    elements: Sequence[Step | Loop], seeds: dict[Position, _Cell], bounded: bool
) -> dict[Position, _Cell]:
    """Dijkstra within one layer over moves that consume no superstep.

    With ``bounded`` (a Repeat has a ``max``), a position that met the Repeat's ``min`` is
    dropped when one with fewer iterations at the same body step settled first: that one is
    no costlier and can do all it can, so positions stay few however large ``max`` is."""
    best = dict(seeds)
    heap = [(cell.cost, -cell.similarity, position) for position, cell in best.items()]
    heapq.heapify(heap)
    done: set[Position] = set()
    fewest: dict[tuple[int, int], int] = {}
    while heap:
        _, _, position = heapq.heappop(heap)
        if position in done:
            continue
        done.add(position)
        element_index, iteration, body_index = position
        if bounded and met_min(elements, element_index, iteration):
            if fewest.get((element_index, body_index), iteration + 1) <= iteration:
                del best[position]
                continue
            fewest[(element_index, body_index)] = iteration
        cell = best[position]
        for target, skipped in skips(elements, position):
            if target in done:
                continue
            required = skipped is not None and not skipped.optional
            cost = cell.cost + (_GAP if required else 0.0)
            known = best.get(target)
            if known is None or (cost, -cell.similarity) < (known.cost, -known.similarity):
                back = (-1, position, skipped if required else None, 0.0)
                best[target] = _Cell(cost, cell.similarity, cell.length + required, back)
                heapq.heappush(heap, (cost, -cell.similarity, target))
    return best


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
