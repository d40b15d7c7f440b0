"""Pareto frontiers of partial credit's alignment search (``_alignment``): at one (superstep,
position), the ways to get there that no other beats on both the summed similarity and the
reference deficit (steps minus similarity), whose scores fall as either grows.

>>> first = Entry(1, (0, 0, 0), 1, 1.0, None, 0, None, 1.0)
>>> frontier = Frontier(short=0)
>>> frontier.admit(first), frontier.admit(Entry(1, (0, 0, 0), 2, 1.0, None, -1, None, 0.0))
(True, False)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from matchevals._patterns._elements import PatternStep
from matchevals._patterns._positions import Position

__all__ = ["Entry", "Frontier"]

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
    step: PatternStep | None
    score: float
    alive: bool = True


class Frontier:
    """The entries at one (layer, position) that no other beats. One beats another when it has
    no less summed similarity and either no larger reference deficit (``length - similarity``)
    or so few steps that no path from here can outgrow the run (``length <= short``: then only
    similarity counts, the score being similarity over the run's length). Sorted by similarity,
    the deficits ascending (after the one short entry there may be, first): admitting one is a
    binary search."""

    __slots__ = ("entries", "short", "similarities")

    def __init__(self, short: float) -> None:
        self.short = short
        self.similarities: list[float] = []
        self.entries: list[Entry] = []

    def beats(self, entry: Entry) -> bool:
        """Whether an entry here beats ``entry`` (here, or at one more iteration of a Repeat,
        which can do no more than one here)."""
        total, deficit = entry.similarity, entry.length - entry.similarity
        entries = self.entries
        index = bisect_left(self.similarities, total - _EPSILON)
        if index == len(entries):
            return False
        if entries[0].length <= self.short and entries[0].similarity >= total - _EPSILON:
            return True
        other = entries[index]  # of the entries as similar, the one with the least deficit
        return other.length - other.similarity <= deficit + _EPSILON

    def admit(self, entry: Entry) -> bool:
        """Keep ``entry`` unless one beats it, dropping those it beats (within ``_EPSILON``)."""
        if self.beats(entry):
            return False
        total, deficit = entry.similarity, entry.length - entry.similarity
        similarities, entries = self.similarities, self.entries
        end = bisect_left(similarities, total)
        if entry.length <= self.short:  # beats every entry no more similar
            end = bisect_right(similarities, total + _EPSILON)
            start = 0
        else:
            start = end
            while start and entries[start - 1].length - similarities[start - 1] >= (
                deficit - _EPSILON
            ):
                start -= 1
        for beaten in entries[start:end]:
            beaten.alive = False
        similarities[start:end] = [total]
        entries[start:end] = [entry]
        return True
