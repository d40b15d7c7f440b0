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
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from matchevals.cli._read import Problem
from matchevals.cli._run import Kind, Scored

__all__ = ["Mean", "Tally", "key_scores"]

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


def key_scores(kind: Kind, results: list[dict[str, Any]]) -> Iterator[tuple[str, float]]:
    """The (key, score) pairs an example adds to the per-key means (graph: per superstep too)."""
    for result in results:
        yield str(result["key"]), float(result["score"])
        if kind == "json":
            continue
        for run in (result.get("metadata") or {}).get("runs") or ():
            for position, verdict in enumerate(run.get("verdicts") or ()):
                yield f"superstep {position}", float(verdict == "match")


@dataclass(slots=True)
class Tally:
    """Scored examples and problems of one chunk (or of everything so far), mergeable.

    ``worst`` keeps the ``worst_count`` lowest-scoring examples below 1 as heap entries
    ``(-score, -index, item)``: the lowest scores, ties to the earlier example, whatever
    order the examples were added or merged in.
    """

    kind: Kind
    worst_count: int = 5
    scored: int = 0
    score: Mean = field(default_factory=Mean)
    per_key: dict[str, Mean] = field(default_factory=dict)
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
        pairs = (
            [(str(r["key"]), float(r["score"])) for r in item.results]
            if self.kind == "json"
            else key_scores(self.kind, item.results)
        )
        for key, value in pairs:
            mean = per_key.get(key)
            if mean is None:
                mean = per_key[key] = Mean()
            mean.add(value)
        if item.score < 1:
            self._keep((-item.score, -item.index, item))

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
        for entry in other.worst:
            self._keep(entry)
        self.problems.extend(other.problems)
        self.invalid += other.invalid
