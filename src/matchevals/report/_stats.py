"""What a run adds up to: example scores, means per key and per superstep, threshold passes.

Pure functions on plain result dicts, shared by the command line's summary and the HTML report,
so both show the same numbers. A superstep left unchecked (after a run left its reference
pattern) is counted as unchecked, never averaged as 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "KeyStats",
    "RunStats",
    "below_threshold",
    "example_score",
    "is_superstep",
    "key_scores",
    "threshold_mark",
    "verdict",
    "why",
]

SUPERSTEP = "superstep "


def _score_of(result: Mapping[str, Any]) -> float | None:
    score = result.get("score")
    if score is None or not isinstance(score, (bool, int, float)):
        return None
    return float(score)


def example_score(results: Sequence[Mapping[str, Any]]) -> float:
    """The mean of the results' scores (booleans count 0/1; results without a score, such as
    LangSmith value-only feedback, are left out); nothing to score is 1.

    >>> example_score([{"key": "a", "score": True}, {"key": "b", "score": 0.5}])
    0.75
    """
    scores = [s for s in map(_score_of, results) if s is not None]
    return math.fsum(scores) / len(scores) if scores else 1.0


def key_scores(results: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, float | None]]:
    """``(key, score)`` of every result, then ``("superstep N", 1.0 | 0.0 | None)`` for every
    superstep of every graph run: 1 matched, 0 did not (or was extra), None left unchecked.

    >>> meta = {"runs": [{"verdicts": ["match", "mismatch", "unchecked"]}]}
    >>> list(key_scores([{"key": "graph", "score": False, "metadata": meta}]))
    [('graph', 0.0), ('superstep 0', 1.0), ('superstep 1', 0.0), ('superstep 2', None)]
    """
    for result in results:
        score = _score_of(result)
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
        if r.get("comment") and (_score_of(r) is None or (_score_of(r) or 0.0) < 1)
    )
    return "; ".join(dict.fromkeys(comments))  # aggregator None repeats list-level comments


@dataclass(slots=True)
class KeyStats:
    """The mean of one key's scores, and how many times it was left unchecked."""

    total: float = 0.0
    count: int = 0
    unchecked: int = 0

    def add(self, value: float | None) -> None:
        if value is None:
            self.unchecked += 1
        else:
            self.total += value
            self.count += 1

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan


def _key_order(name: str) -> tuple[int, Any]:
    if name.startswith(SUPERSTEP) and name[len(SUPERSTEP) :].isdigit():
        return (1, int(name[len(SUPERSTEP) :]))
    return (0, name)


@dataclass
class RunStats:
    """Running totals over the scored examples of a run (memory bounded by the keys)."""

    scored: int = 0
    total: float = 0.0
    per_key: dict[str, KeyStats] = field(default_factory=dict)
    below_threshold: int = 0
    threshold: float | None = None  # the pass mark results carry in their metadata, if any

    def add(self, score: float, results: Sequence[Mapping[str, Any]]) -> None:
        self.scored += 1
        self.total += score
        for key, value in key_scores(results):
            stats = self.per_key.get(key)
            if stats is None:
                stats = self.per_key[key] = KeyStats()
            stats.add(value)
        if below_threshold(results) is not None:
            self.below_threshold += 1
        if self.threshold is None:
            self.threshold = threshold_mark(results)

    @property
    def mean(self) -> float | None:
        """The mean example score, None when nothing was scored."""
        return self.total / self.scored if self.scored else None

    def key_rows(self) -> list[tuple[str, float, int, int]]:
        """``(key, mean, count, unchecked)``: keys by name, then supersteps by position."""
        return [
            (key, self.per_key[key].mean, self.per_key[key].count, self.per_key[key].unchecked)
            for key in sorted(self.per_key, key=_key_order)
        ]


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
        examples = "1 example" if below_threshold == 1 else f"{below_threshold} examples"
        reasons.append(f"{examples} scored below --threshold {threshold:g}")
    return not reasons, reasons
