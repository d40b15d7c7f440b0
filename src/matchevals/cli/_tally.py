"""The numbers a summary needs, gathered per chunk of examples and merged in any order.

Sums are exact: every finite float is an integer multiple of ``2**-1074``, so a running total
is kept as one Python integer and a mean is that integer divided by the count, rounded once.
Merging two tallies therefore gives the same means whatever the chunks were and whichever
process scored them: one worker, N workers and Ray produce the same summary, bit for bit.

>>> part, other = Mean(), Mean()
>>> for value in (0.1, 0.2):
...     part.add(value)
>>> other.add(0.3)
>>> part.merge(other)
>>> part.value == (0.1 + 0.2 + 0.3) / 3, part.value
(False, 0.2)
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

from matchevals.cli._read import Problem
from matchevals.cli._run import Kind, Scored
from matchevals.report._stats import below_threshold, key_scores, threshold_mark

__all__ = ["Mean", "Tally"]

_BITS = 1074  # the exponent of the smallest positive double, 2**-1074


_SEEN: dict[float, int] = {}  # scores repeat (0, 0.5, 1, ...): their exact forms, remembered


def _exact(value: float) -> int:
    """``value * 2**1074`` as an integer, exactly (``value`` finite)."""
    exact = _SEEN.get(value)
    if exact is None:
        numerator, denominator = value.as_integer_ratio()
        exact = numerator << (_BITS + 1 - denominator.bit_length())
        if len(_SEEN) < 4096:
            _SEEN[value] = exact
    return exact


@dataclass(slots=True)
class Mean:
    """An exact running mean of floats; ``merge`` adds another one's values."""

    total: int = 0
    count: int = 0
    unusual: float = 0.0  # the sum of non-finite values (NaN, ±inf), which have no exact form

    def add(self, value: float) -> None:
        if value - value == 0:  # finite
            self.total += _exact(value)
        else:
            self.unusual += value
        self.count += 1

    def merge(self, other: Mean) -> None:
        self.total += other.total
        self.count += other.count
        self.unusual += other.unusual

    @property
    def value(self) -> float:
        """The mean, correctly rounded; NaN when empty."""
        if not self.count:
            return math.nan
        if self.unusual:
            return self.unusual
        return self.total / (self.count << _BITS)


def _key_order(name: str) -> tuple[int, Any]:
    if name.startswith("superstep ") and name[10:].isdigit():
        return (1, int(name[10:]))
    return (0, name)


@dataclass(slots=True)
class Tally:
    """Scored examples and problems of one chunk (or of everything so far), mergeable.

    What :class:`matchevals.report._stats.RunStats` counts (a superstep left unchecked is
    counted as unchecked, not averaged as 0; examples below a graph ``threshold``), with exact
    sums, so merging chunks in any order gives the same means.

    ``worst`` keeps the ``worst_count`` lowest-scoring examples below 1 as heap entries
    ``(-score, -index, item)``: the lowest scores, ties to the earlier example, whatever
    order the examples were added or merged in.
    """

    kind: Kind
    worst_count: int = 5
    scored: int = 0
    score: Mean = field(default_factory=Mean)
    per_key: dict[str, Mean] = field(default_factory=dict)
    unchecked: dict[str, int] = field(default_factory=dict)
    below_threshold: int = 0
    threshold: float | None = None  # the pass mark results carry in their metadata, if any
    worst: list[tuple[float, int, Scored]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    invalid: int = 0

    def add(self, item: Scored | Problem) -> None:
        if isinstance(item, Problem):
            self.problems.append(item)
            self.invalid += item.counted
            return
        self.scored += 1
        self.score.add(item.score)
        per_key = self.per_key
        if self.kind == "json":
            for result in item.results:
                key = str(result["key"])
                mean = per_key.get(key)
                if mean is None:
                    mean = per_key[key] = Mean()
                mean.add(float(result["score"]))
        else:
            self._add_graph(item.results)
        if item.score < 1:
            self._keep((-item.score, -item.index, item))

    def _add_graph(self, results: list[dict[str, Any]]) -> None:
        per_key = self.per_key
        for key, value in key_scores(results):
            mean = per_key.get(key)
            if mean is None:
                mean = per_key[key] = Mean()
            if value is None:
                self.unchecked[key] = self.unchecked.get(key, 0) + 1
            else:
                mean.add(value)
        if below_threshold(results) is not None:
            self.below_threshold += 1
        if self.threshold is None:
            self.threshold = threshold_mark(results)

    def _keep(self, entry: tuple[float, int, Scored]) -> None:
        if len(self.worst) < self.worst_count:
            heapq.heappush(self.worst, entry)
        elif self.worst_count:
            heapq.heappushpop(self.worst, entry)

    def merge(self, other: Tally) -> None:
        """Add everything ``other`` holds; its problems come after this one's."""
        self.scored += other.scored
        self.score.merge(other.score)
        for key, mean in other.per_key.items():
            self.per_key.setdefault(key, Mean()).merge(mean)
        for key, count in other.unchecked.items():
            self.unchecked[key] = self.unchecked.get(key, 0) + count
        self.below_threshold += other.below_threshold
        if self.threshold is None:
            self.threshold = other.threshold
        for entry in other.worst:
            self._keep(entry)
        self.problems.extend(other.problems)
        self.invalid += other.invalid

    @property
    def mean(self) -> float | None:
        """The mean example score, None when nothing was scored."""
        return self.score.value if self.scored else None

    def key_rows(self) -> list[tuple[str, float, int, int]]:
        """``(key, mean, count, unchecked)``: keys by name, then supersteps by position."""
        return [
            (key, self.per_key[key].value, self.per_key[key].count, self.unchecked.get(key, 0))
            for key in sorted(self.per_key, key=_key_order)
        ]
