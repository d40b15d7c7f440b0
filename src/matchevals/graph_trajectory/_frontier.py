"""Pareto frontiers of partial credit's alignment search (``_alignment``): at one (superstep,
position), the ways to get there that no other beats on both the summed similarity and the
reference deficit (steps minus similarity), whose scores fall as either grows.

>>> first = Entry(1, (0, 0, 0), 1, 1.0, None, 0, None, 1.0)
>>> frontier = Frontier()
>>> frontier.admit(first), frontier.admit(Entry(1, (0, 0, 0), 2, 1.0, None, -1, None, 0.0))
(True, False)
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from matchevals.graph_trajectory._positions import Position
from matchevals.graph_trajectory._reference import Step

__all__ = ["Entry", "Frontier", "RankedFrontier"]

_EPSILON = 1e-9
"""Similarity sums equal up to this are equal (they add the same values in other orders)."""


@dataclass(slots=True, eq=False)
class Entry:
    """One way to reach ``position`` after ``layer`` supersteps: ``length`` reference steps and
    ``similarity`` summed, made by one move from ``back`` (consuming ``superstep``, or -1 for
    none, and pairing or leaving out ``step``)."""

    layer: int
    position: Position
    length: int
    similarity: float
    back: Entry | None
    superstep: int
    step: Step | None
    score: float
    alive: bool = True


class Frontier:
    """The entries at one (layer, position) that no other beats: none has both a summed
    similarity and a reference deficit (``length - similarity``) at least as good. Sorted by
    similarity, so their deficits ascend too; admitting one is a binary search."""

    __slots__ = ("entries", "similarities")

    def __init__(self) -> None:
        self.similarities: list[float] = []
        self.entries: list[Entry] = []

    def admit(self, entry: Entry) -> bool:
        """Keep ``entry`` unless one beats it, dropping those it beats (within ``_EPSILON``)."""
        total, deficit = entry.similarity, entry.length - entry.similarity
        similarities, entries = self.similarities, self.entries
        index = bisect_left(similarities, total - _EPSILON)
        if index < len(entries):
            other = entries[index]  # of the entries as similar, the one with the least deficit
            if other.length - other.similarity <= deficit + _EPSILON:
                return False
        end = bisect_left(similarities, total)
        start = end
        while start and entries[start - 1].length - similarities[start - 1] >= deficit - _EPSILON:
            start -= 1
            entries[start].alive = False
        similarities[start:end] = [total]
        entries[start:end] = [entry]
        return True


class RankedFrontier:
    """A :class:`Frontier` across the iterations of a Repeat with a ``max`` at one body step
    (once ``min`` is met), where fewer iterations also count as better."""

    __slots__ = ("entries",)

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def admit(self, entry: Entry) -> bool:
        if any(_beats(other, entry) for other in self.entries):
            return False
        kept = []
        for other in self.entries:
            if _beats(entry, other):
                other.alive = False
            else:
                kept.append(other)
        kept.append(entry)
        self.entries = kept
        return True


def _beats(one: Entry, other: Entry) -> bool:
    """No more iterations, no less similarity, no larger reference deficit."""
    return (
        one.position[1] <= other.position[1]
        and one.similarity >= other.similarity - _EPSILON
        and one.length - one.similarity <= other.length - other.similarity + _EPSILON
    )
