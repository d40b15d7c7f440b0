"""What a run adds up to: example scores, means per key and per superstep, threshold passes,
the worst examples and the verdict, and how a score is written.

The one aggregation of runs: the command line's summary, the HTML report and
``matchevals.ray``'s ``summarize`` all tally with :class:`Tally` and write scores with
:func:`score_text`, so they show the same numbers. A superstep left unchecked (after a run
left its reference pattern) is counted as unchecked, never averaged as 0.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from matchevals._scoring import Problem, Scored, example_score, result_score
from matchevals._values import counted

__all__ = [
    "Mean",
    "Tally",
    "below_threshold",
    "example_score",
    "is_superstep",
    "key_scores",
    "score_text",
    "threshold_mark",
    "verdict",
    "why",
]

SUPERSTEP = "superstep "


def key_scores(results: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, float | None]]:
    """``(key, score)`` of every result, then ``("superstep N", 1.0 | 0.0 | None)`` for every
    superstep of every graph run: 1 matched, 0 did not (or was extra), None left unchecked.

    >>> meta = {"runs": [{"verdicts": ["match", "mismatch", "unchecked"]}]}
    >>> list(key_scores([{"key": "graph", "score": False, "metadata": meta}]))
    [('graph', 0.0), ('superstep 0', 1.0), ('superstep 1', 0.0), ('superstep 2', None)]
    """
    for result in results:
        score = result_score(result)
        if score is not None:
            yield str(result.get("key")), score
        metadata = result.get("metadata")
        runs = metadata.get("runs") if isinstance(metadata, Mapping) else None
        for run in runs or ():
            if not isinstance(run, Mapping):
                continue
            for position, verdict in enumerate(run.get("verdicts") or ()):
                value = None if verdict == "unchecked" else 1.0 if verdict == "match" else 0.0
                name = _SUPERSTEP_NAMES[position] if position < _NAMED else f"{SUPERSTEP}{position}"
                yield name, value


_NAMED = 256
_SUPERSTEP_NAMES = [f"{SUPERSTEP}{position}" for position in range(_NAMED)]
"""The first supersteps' names, made once: every run of every example asks for them."""


def below_threshold(results: Sequence[Mapping[str, Any]]) -> float | None:
    """The threshold an example failed (a result whose metadata says ``pass: false``), or None.

    >>> below_threshold([{"key": "g", "score": 0.5, "metadata": {"threshold": 0.8, "pass": False}}])
    0.8
    """
    for result in results:
        metadata = result.get("metadata")
        if isinstance(metadata, Mapping) and metadata.get("pass") is False:
            threshold = metadata.get("threshold")
            return float(threshold) if isinstance(threshold, (int, float)) else math.nan
    return None


def threshold_mark(results: Sequence[Mapping[str, Any]]) -> float | None:
    """The pass mark the results carry in their metadata (a graph ``threshold``), or None.

    >>> threshold_mark([{"key": "g", "score": 1, "metadata": {"threshold": 0.8, "pass": True}}])
    0.8
    """
    for result in results:
        metadata = result.get("metadata")
        mark = metadata.get("threshold") if isinstance(metadata, Mapping) else None
        if isinstance(mark, (int, float)) and not isinstance(mark, bool):
            return float(mark)
    return None


def why(results: Sequence[Mapping[str, Any]]) -> str:
    """The comments of the results that did not score 1, each once, in order.

    >>> why([{"score": 0, "comment": "a: expected 1, got 2"}, {"score": 1, "comment": "ok"}])
    'a: expected 1, got 2'
    """
    comments = (
        str(r.get("comment"))
        for r in results
        if r.get("comment") and (result_score(r) is None or (result_score(r) or 0.0) < 1)
    )
    return "; ".join(dict.fromkeys(comments))  # aggregator None repeats list-level comments


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
    """An exact running mean of floats; ``merge`` adds another one's values.

    Every finite float is an integer multiple of ``2**-1074``, so the total is kept as one
    Python integer and the mean is that integer divided by the count, rounded once: merging
    parts gives the same mean, bit for bit, whatever the parts were and in whatever order.

    >>> part, other = Mean(), Mean()
    >>> for value in (0.1, 0.2):
    ...     part.add(value)
    >>> other.add(0.3)
    >>> part.merge(other)
    >>> part.value == (0.1 + 0.2 + 0.3) / 3, part.value
    (False, 0.2)
    """

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

    @property
    def sum(self) -> Fraction:
        """The exact sum of the finite values added.

        >>> mean = Mean()
        >>> for value in (0.5, 0.25):
        ...     mean.add(value)
        >>> mean.sum
        Fraction(3, 4)
        """
        return Fraction(self.total, 1 << _BITS)


def _key_order(name: str) -> tuple[int, Any]:
    if name.startswith(SUPERSTEP) and name[len(SUPERSTEP) :].isdigit():
        return (1, int(name[len(SUPERSTEP) :]))
    return (0, name)


WorstEntry = tuple[float, int, Scored]
_MORE = frozenset({"runs", "pass", "threshold"})
"""The metadata keys a result needs for more than its score (see :func:`key_scores`)."""


@dataclass(slots=True)
class Tally:
    """What a run adds up to, in memory bounded by its keys: examples scored and their mean,
    the mean per key and per superstep position (a superstep left unchecked is counted as
    unchecked, not averaged as 0), examples below a graph ``threshold``, the worst examples,
    and the problems. Sums are exact (:class:`Mean`), so tallies of parts of a run, made
    anywhere and merged in any order, give the same numbers, bit for bit.

    ``worst`` keeps the ``worst_count`` lowest-scoring examples below 1 as heap entries
    ``(-score, -index, item)``: the lowest scores, ties to the earlier example.

    >>> tally = Tally()
    >>> tally.add(Scored(0, "a", "out.jsonl:1", 0.5, [{"key": "k", "score": 0.5}]))
    >>> tally.add(Problem("out.jsonl:2", "blank line"))
    >>> tally.scored, tally.invalid, tally.mean, tally.key_rows()
    (1, 1, 0.5, [('k', 0.5, 1, 0)])
    """

    worst_count: int = 5
    scored: int = 0
    score: Mean = field(default_factory=Mean)
    per_key: dict[str, Mean] = field(default_factory=dict)
    unchecked: dict[str, int] = field(default_factory=dict)
    below_threshold: int = 0
    threshold: float | None = None  # the pass mark results carry in their metadata, if any
    worst: list[WorstEntry] = field(default_factory=list)
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
        marked = False
        for result in item.results:
            metadata = result.get("metadata")
            if metadata and (type(metadata) is not dict or not _MORE.isdisjoint(metadata)):
                self._add_keys(result)
                marked = True
                continue
            score = result_score(result)  # a plain result: key_scores gives its score alone
            if score is not None:
                key = str(result.get("key"))
                mean = per_key.get(key)
                if mean is None:
                    mean = per_key[key] = Mean()
                mean.add(score)
        if marked:
            if below_threshold(item.results) is not None:
                self.below_threshold += 1
            if self.threshold is None:
                self.threshold = threshold_mark(item.results)
        if item.score < 1 and self.worst_count:
            self._keep((-item.score, -item.index, item))

    def _add_keys(self, result: Mapping[str, Any]) -> None:
        """The key scores of a result whose metadata may hold runs (superstep verdicts)."""
        per_key = self.per_key
        for key, value in key_scores([result]):
            mean = per_key.get(key)
            if mean is None:
                mean = per_key[key] = Mean()
            if value is None:
                self.unchecked[key] = self.unchecked.get(key, 0) + 1
            else:
                mean.add(value)

    def _keep(self, entry: WorstEntry) -> None:
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

    def renumber(self, move: Callable[[Scored], Scored]) -> None:
        """Its worst examples given new numbers (``move`` makes each one's new record), for a
        part of a run whose examples were numbered from 0."""
        self.worst = [(score, -moved.index, moved) for score, _, item in self.worst
                      for moved in (move(item),)]  # fmt: skip
        heapq.heapify(self.worst)

    @property
    def mean(self) -> float | None:
        """The mean example score, None when nothing was scored."""
        return self.score.value if self.scored else None

    @property
    def worst_examples(self) -> list[Scored]:
        """The lowest-scoring examples (below 1), lowest first, ties in input order."""
        return [entry[2] for entry in sorted(self.worst, key=lambda e: (-e[0], -e[1]))]

    def key_rows(self) -> list[tuple[str, float, int, int]]:
        """``(key, mean, count, unchecked)``: keys by name, then supersteps by position."""
        return [
            (key, self.per_key[key].value, self.per_key[key].count, self.unchecked.get(key, 0))
            for key in sorted(self.per_key, key=_key_order)
        ]


def score_text(value: float | None) -> str:
    """A score as every report shows it: four significant digits, a tie rounded up (as the
    HTML page's ``toPrecision(4)`` does), ``—`` for none.

    >>> score_text(0.78125), score_text(1.0), score_text(None), score_text(2 / 3)
    ('0.7813', '1', '—', '0.6667')
    """
    if value is None or math.isnan(value):
        return "—"
    if math.isinf(value) or value == 0:
        return f"{value:.4g}"
    exact = Decimal(value)
    digits = 3 - exact.adjusted()  # places after the point that keep four significant digits
    rounded = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{float(rounded):.4g}"


def is_superstep(key: str) -> bool:
    """Whether a per-key row is a superstep position of graph runs."""
    return _key_order(key)[0] == 1


def verdict(
    *,
    mean: float | None,
    invalid: int = 0,
    fail_under: float | None = None,
    threshold: float | None = None,
    below_threshold: int = 0,
    skip_invalid: bool = False,
) -> tuple[bool, list[str]]:
    """Whether a run passed its gates, and each reason it did not, in words.

    >>> verdict(mean=0.8, fail_under=0.9, invalid=2)
    (False, ['2 invalid examples', 'the mean score 0.8 is below --fail-under 0.9'])
    >>> verdict(mean=1.0, threshold=0.5, below_threshold=0)
    (True, [])
    """
    reasons: list[str] = []
    if invalid and not skip_invalid:
        reasons.append("1 invalid example" if invalid == 1 else f"{invalid} invalid examples")
    if fail_under is not None:
        if mean is None:
            reasons.append(f"nothing was scored (--fail-under {fail_under:g})")
        elif mean < fail_under:
            reasons.append(f"the mean score {mean:.4g} is below --fail-under {fail_under:g}")
    if threshold is not None and below_threshold:
        examples = counted(below_threshold, "example")
        reasons.append(f"{examples} scored below --threshold {threshold:g}")
    return not reasons, reasons
