"""The best alignment of a run to a reference with patterns, over every path the pattern allows.

An alignment pairs supersteps with the steps of one reference path (optional steps present or
absent, each Repeat run between ``min`` and ``max`` times) in order; the rest are gaps. With
``S`` its summed similarity, ``n`` the run's supersteps and ``L`` the path's steps, it scores
``S / max(n, L)`` (:func:`alignment_score`). That ratio is no sum of per-move costs, so no
shortest path finds its maximum. But it only falls as either deficit grows, the run's ``n - S``
or the path's ``L - S``, and a move adds the same to both whatever came before. So at each
(superstep, position) the search keeps every (L, S) that no other beats on both deficits, a
Pareto frontier (``_frontier``). In a Repeat with a ``max``, fewer iterations at the same body
step beat more (they allow every later move the others do), which keeps a large ``max`` cheap.

The search is best first: each entry is queued under an upper bound of the score its
completions can reach, so the first complete alignment taken off the queue is a best one, and
entries whose bound is below it are never expanded. The first bound assumes every superstep
left pairs perfectly; once the queue has grown (the run strays from its reference), the search
switches to the bounds of ``_remaining_similarity``, which know what the rest of the run can
still pair and at what reference deficit. A run close to its reference is aligned in a narrow
band; the worst case is O(supersteps × positions × frontier), a frontier holding the entries
that trade one deficit for the other.

A present optional step is always paired (left unpaired, its absence does better), so ``L``
counts the path's required steps and the optional ones paired.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from matchevals._patterns._elements import Comparator, Loop, PatternStep
from matchevals._patterns._frontier import Entry, Frontier
from matchevals._patterns._positions import (
    Elements,
    Position,
    advance,
    position_count,
    skips,
    step_at,
)
from matchevals._patterns._remaining_similarity import (
    WEIGHTS,
    RemainingSimilarity,
    remaining_similarity,
)

__all__ = [
    "LOOSE_BOUND_BUDGET",
    "PATTERN_CELL_LIMIT",
    "Alignment",
    "align_pattern",
    "alignment_score",
    "check_alignment_size",
    "pair_record",
]

S = TypeVar("S", bound=PatternStep)
A = TypeVar("A")

LOOSE_BOUND_BUDGET = 16
"""Entries queued per superstep and reference element before the search computes its tighter
bounds (a run close to its reference is aligned well within this); callers may pass another."""
_DISTINCT_LIMIT = 250_000
"""Most distinct (superstep, reference step) contents the tighter bounds compare."""
PATTERN_CELL_LIMIT = 500_000
"""Most (actual step, reference position) cells :func:`align_pattern` is asked to align:
past it, :func:`check_alignment_size` refuses with a ValueError instead of minutes of work."""


def check_alignment_size(
    count: int, elements: Elements[S], *, steps: str, pattern: str, runs: str
) -> None:
    """Refuse (ValueError) to align ``count`` actual steps with ``elements`` past
    :data:`PATTERN_CELL_LIMIT`; the sentence calls them ``steps``, the elements ``pattern``
    and what holds the steps ``runs``.

    >>> from matchevals.graph_trajectory._reference import read_reference
    >>> elements = read_reference({"steps": [{"repeat": [["a"]], "min": 0}]}, "r").elements
    >>> check_alignment_size(
    ...     400_000, elements, steps="supersteps", pattern="a reference pattern", runs="runs"
    ... )
    Traceback (most recent call last):
    ValueError: partial credit would align 400000 supersteps with a reference pattern of about 2 \
positions (800,000 cells, more than 500,000); use strict matching for runs this long
    """
    positions = position_count(elements)
    cells = count * positions
    if cells > PATTERN_CELL_LIMIT:
        raise ValueError(
            f"partial credit would align {count} {steps} with {pattern} of about {positions} "
            f"positions ({cells:,} cells, more than {PATTERN_CELL_LIMIT:,}); use strict "
            f"matching for {runs} this long"
        )


def alignment_score(similarity_sum: float, longest: float, results: float | None) -> float:
    """``S / max(n, L)``, or ``(S + r) / (max(n, L) + 1)`` with the results' score ``r``.

    >>> alignment_score(2.5, 3, None), alignment_score(2.5, 3, 0.5)
    (0.8333333333333334, 0.75)
    """
    if results is not None:
        return (similarity_sum + results) / (longest + 1)
    return 1.0 if longest == 0 else similarity_sum / longest


@dataclass(slots=True)
class Alignment:
    """An alignment: summed similarity, the longer of run and reference path, its pairs
    (superstep index or None, reference step path or None, similarity), and the score of the
    run's results when they count as one more aligned item (None when results are not compared).
    """

    similarity_sum: float
    longest: int
    pairs: list[dict[str, Any]]
    results: float | None = None

    @classmethod
    def of(cls, pairs: list[dict[str, Any]], supersteps: int, results: float | None) -> Alignment:
        """The alignment of a run of ``supersteps`` made of ``pairs`` (its path: the steps they
        name), its similarity summed exactly (``math.fsum``: the same pairs, the same score).

        >>> from matchevals.graph_trajectory._reference import Step
        >>> step = Step(["a"], "exact", False, "r")
        >>> Alignment.of([pair_record(0, None, 0.0), pair_record(1, step, 1.0)], 2, None).score
        0.5
        """
        path = sum(pair["reference"] is not None for pair in pairs)
        total = math.fsum(pair["score"] for pair in pairs)
        return cls(total, max(supersteps, path), pairs, results)

    @property
    def score(self) -> float:
        return min(1.0, alignment_score(self.similarity_sum, self.longest, self.results))


def pair_record(
    superstep: int | None, step: PatternStep | Loop[Any] | None, score: float
) -> dict[str, Any]:
    """One entry of ``metadata["runs"][i]["partial_alignment"]``."""
    return {
        "superstep": superstep,
        "reference": None if step is None else step.path,
        "score": score,
    }


def align_pattern(
    steps: Sequence[A],
    elements: Elements[S],
    results: float | None,
    comparator: Comparator[A, S],
    budget: int = LOOSE_BOUND_BUDGET,
) -> list[dict[str, Any]]:
    """The pairs of an alignment with the highest :func:`alignment_score` over every path of
    the pattern ``elements`` (``results``: the results' score, when they count as an item;
    ``budget``: see :data:`LOOSE_BOUND_BUDGET`).

    >>> from matchevals.graph_trajectory._reference import read_reference
    >>> from matchevals.graph_trajectory._superstep import COMPARATOR
    >>> elements = read_reference({"steps": [{"repeat": [["a"]], "min": 0}]}, "r").elements
    >>> pairs = align_pattern([["a"], ["a", "b"]], elements, None, COMPARATOR)
    >>> [pair["score"] for pair in pairs]
    [1.0, 0.5]
    """
    return _Search(steps, elements, results, comparator, budget).run()


class _Search(Generic[A, S]):
    """The best-first search of :func:`align_pattern` (its state, kept for one alignment)."""

    def __init__(
        self,
        steps: Sequence[A],
        elements: Elements[S],
        results: float | None,
        comparator: Comparator[A, S],
        budget: int,
    ) -> None:
        self.steps = steps
        self.elements = elements
        self.results = results
        self.comparator = comparator
        self.budget = budget
        self.bounded = {  # the min of each Repeat with a max, by element index
            index: element.min
            for index, element in enumerate(elements)
            if isinstance(element, Loop) and element.max is not None
        }
        self.frontiers: dict[tuple[int, Position], Frontier] = {}
        self.queue: list[tuple[float, int, int, Entry]] = []
        self.moves: dict[Position, _Moves[S]] = {}
        self.similarities: dict[tuple[int, int], float] = {}
        self.required: dict[Position, int] = {}
        self.longest: dict[Position, float] = {}
        self.required_from = _required_suffixes(elements)
        self.longest_from = _longest_suffixes(elements)
        self.pushed = 0
        self.gains: RemainingSimilarity[S] | None = None
        self.tightened = False

    def run(self) -> list[dict[str, Any]]:
        end = (len(self.elements), 0, 0)
        count = len(self.steps)
        budget = self.budget * (count + len(self.required_from))
        self.offer(Entry(0, (0, 0, 0), 0, 0.0, None, -1, None, 0.0))
        while True:
            if self.pushed > budget and not self.tightened:
                self.tighten()
            entry = heapq.heappop(self.queue)[3]
            if not entry.alive:
                continue
            if entry.layer == count and entry.position == end:
                return _pairs(entry)
            self.expand(entry)

    def expand(self, entry: Entry) -> None:
        layer, position, length, total = entry.layer, entry.position, entry.length, entry.similarity
        moves = self.moves.get(position)
        if moves is None:
            moves = self.moves[position] = _Moves.at(self.elements, position)
        for target, required in moves.skips:
            self.offer(
                Entry(
                    layer, target, length + (required is not None), total, entry, -1, required, 0.0
                )
            )
        if layer == len(self.steps):
            return
        self.offer(Entry(layer + 1, position, length, total, entry, layer, None, 0.0))
        step, after = moves.step, moves.target
        if step is not None and after is not None:
            score = self.similarities.get((layer, id(step)))
            if score is None:
                score = self.comparator.similarity(self.steps[layer], step)
                self.similarities[(layer, id(step))] = score
            self.offer(
                Entry(layer + 1, after, length + 1, total + score, entry, layer, step, score)
            )

    def offer(self, entry: Entry) -> None:
        """Queue ``entry`` unless an entry of its frontier beats it (dropping those it beats),
        or, past ``min`` in a Repeat with a ``max``, one with an iteration fewer."""
        layer, position = entry.layer, entry.position
        element, iteration, body = position
        low = self.bounded.get(element)
        if low is not None and iteration > low:
            fewer = self.frontiers.get((layer, (element, iteration - 1, body)))
            if fewer is not None and fewer.beats(entry):
                return
        frontier = self.frontiers.get((layer, position))
        if frontier is None:
            short = len(self.steps) - self.longest_after(position)
            frontier = self.frontiers[(layer, position)] = Frontier(short)
        if not frontier.admit(entry):
            return
        self.pushed += 1
        heapq.heappush(self.queue, (-self.bound(entry), -layer, self.pushed, entry))

    def bound(self, entry: Entry) -> float:
        """The best score a completion of ``entry`` could reach: it pairs at most one step
        per superstep left and per step left on the longest path (fewer, with ``gains``)."""
        count, position = len(self.steps), entry.position
        needed = self.required_after(position)
        total, length = entry.similarity, entry.length
        longest = self.longest_after(position)
        left = min(count - entry.layer, longest)
        if self.gains is None:
            return alignment_score(
                total + left, max(count, length + max(left, needed)), self.results
            )
        bounds = self.gains.at(entry.layer, position)
        bounds[0] = min(bounds[0], left)
        if length + longest <= count:  # the path cannot outgrow the run: similarity decides
            return alignment_score(total + bounds[0], count, self.results)
        return _weighed_bound(bounds, total, length, needed, count, self.results)

    def tighten(self) -> None:
        """Switch to the bounds of ``remaining_similarity`` (worth their cost only when the
        run strays far from the reference) and order the queue by them."""
        self.tightened = True
        self.gains = remaining_similarity(
            self.steps, self.elements, _DISTINCT_LIMIT, self.comparator
        )
        if self.gains is None:
            return
        self.queue = [
            (-self.bound(entry), -entry.layer, order, entry)
            for _, _, order, entry in self.queue
            if entry.alive
        ]
        heapq.heapify(self.queue)

    def longest_after(self, position: Position) -> float:
        """The most reference steps on a path from ``position`` to the end (inf: unbounded)."""
        known = self.longest.get(position)
        if known is None:
            element_index, iteration, body_index = position
            known = self.longest_from[element_index]
            if element_index < len(self.elements):
                element = self.elements[element_index]
                if isinstance(element, Loop) and element.max is not None:
                    here = len(element.body) * (element.max - iteration) - body_index
                    known = self.longest_from[element_index + 1] + here
            self.longest[position] = known
        return known

    def required_after(self, position: Position) -> int:
        """The fewest required steps on a path from ``position`` to the end."""
        known = self.required.get(position)
        if known is None:
            known = _required_here(self.elements, position) + self.required_from[position[0] + 1]
            self.required[position] = known
        return known


def _weighed_bound(
    bounds: list[float],
    total: float,
    length: int,
    needed: int,
    count: int,
    results: float | None,
) -> float:
    """The best score of a completion of an entry (``total`` similarity, ``length`` steps) that
    adds ``u`` similarity and ``y`` reference deficit, where ``u`` is at most ``bounds[0]``,
    ``u - w y`` at most the bound for each weight ``w`` of ``WEIGHTS``, and ``u + y`` (the
    steps it adds) at least ``needed``: the least of the bests under each weight. Under one,
    with the least ``y``, the score rises with ``u`` until ``y = (u - bound) / w`` makes the
    path longer than the run, then moves one way: it is best at that turn or at the most ``u``.
    """
    most = bounds[0]
    floor = max(count, length + needed)  # the least max(n, L) of any completion
    extra, item = (0.0, 0.0) if results is None else (1.0, results)
    best = 1.0
    for weight, net in zip(WEIGHTS[1:], bounds[1:], strict=True):
        gain = most
        turn = max(net, (weight * (floor - length) + net) / (weight + 1))
        if turn < most and weight * (length + extra) - net < (weight + 1) * (total + item):
            gain = max(turn, 0.0)  # falling past the turn
        deficit = max(0.0, (gain - net) / weight)
        longest = max(floor, length + gain + deficit)
        score = (total + gain + item) / (longest + extra) if longest + extra else 1.0
        best = min(best, score)
    return best


@dataclass(slots=True)
class _Moves(Generic[S]):
    """The moves from one position: the step that consumes a superstep there and the position
    after (None: no step can), and the moves that consume none (target, required step left
    out or None when the move is free: an optional step absent, a Repeat left)."""

    step: S | None
    target: Position | None
    skips: list[tuple[Position, S | None]]

    @classmethod
    def at(cls, elements: Elements[S], position: Position) -> _Moves[S]:
        step = step_at(elements, position)
        return cls(
            step,
            None if step is None else advance(elements, position),
            [
                (target, None if skipped is None or skipped.optional else skipped)
                for target, skipped in skips(elements, position)
            ],
        )


def _required(element: S | Loop[S]) -> int:
    """The required steps of one element on its shortest path."""
    if not isinstance(element, Loop):
        return int(not element.optional)
    return element.min * sum(not step.optional for step in element.body)


def _required_suffixes(elements: Elements[S]) -> list[int]:
    """The required steps on the shortest path from each element on (two past the end: 0)."""
    suffixes = [0] * (len(elements) + 2)
    for index in range(len(elements) - 1, -1, -1):
        suffixes[index] = suffixes[index + 1] + _required(elements[index])
    return suffixes


def _longest_suffixes(elements: Elements[S]) -> list[float]:
    """The most steps on a path from each element on (inf past a Repeat without ``max``)."""
    suffixes: list[float] = [0] * (len(elements) + 2)
    for index in range(len(elements) - 1, -1, -1):
        element = elements[index]
        if not isinstance(element, Loop):
            longest: float = 1
        else:
            longest = math.inf if element.max is None else element.max * len(element.body)
        suffixes[index] = suffixes[index + 1] + longest
    return suffixes


def _required_here(elements: Elements[S], position: Position) -> int:
    """The required steps left in the element at ``position`` on its shortest path."""
    element_index, iteration, body_index = position
    if element_index == len(elements):
        return 0
    element = elements[element_index]
    if not isinstance(element, Loop):
        return _required(element)
    count = 0
    if body_index:
        count = sum(not step.optional for step in element.body[body_index:])
        iteration += 1
    return count + max(0, element.min - iteration) * sum(not s.optional for s in element.body)


def _pairs(last: Entry) -> list[dict[str, Any]]:
    """The alignment's pairs and gaps, followed back from its last entry."""
    pairs: list[dict[str, Any]] = []
    entry: Entry | None = last
    while entry is not None and entry.back is not None:
        if entry.superstep >= 0:
            pairs.append(pair_record(entry.superstep, entry.step, entry.score))
        elif entry.step is not None:
            pairs.append(pair_record(None, entry.step, 0.0))
        entry = entry.back
    pairs.reverse()
    return pairs
