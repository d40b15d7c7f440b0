"""What a comparison of two runs holds: each changed example with what newly fails in it, the
paired statistics, and the problems; as plain frozen records, and as the JSON document
``matchevals compare --format json`` writes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from matchevals._scoring import Problem
from matchevals._values import counted

__all__ = [
    "CATEGORIES",
    "VERDICTS",
    "Comparison",
    "ExampleChange",
    "KeyDelta",
    "PairedDifference",
    "PassFail",
    "RepeatedTrials",
    "Significance",
    "Verdict",
]

Verdict = Literal["improved", "regressed", "unchanged", "added", "removed"]
VERDICTS: tuple[Verdict, ...] = ("regressed", "improved", "unchanged", "added", "removed")
CATEGORIES = ("json", "tool_calls", "supersteps", "results")
"""What can fail in an example: JSON paths, tool calls, supersteps, and other results."""

Failing = Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class ExampleChange:
    """One example of either run: its verdict, its score in each run (the mean over its
    trials), where its lines came from, and, where both runs hold it, what fails in the new run
    and not in the base (``newly_failing``) and the other way round (``now_passing``), by
    category (:data:`CATEGORIES`)."""

    id: Any
    verdict: Verdict
    base_score: float | None
    new_score: float | None
    base_where: str | None = None
    new_where: str | None = None
    base_trials: int = 0
    new_trials: int = 0
    newly_failing: Failing = field(default_factory=dict)
    now_passing: Failing = field(default_factory=dict)
    base_examples: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    new_examples: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def delta(self) -> float | None:
        """``new_score - base_score``; None unless both runs hold the example."""
        if self.base_score is None or self.new_score is None:
            return None
        return self.new_score - self.base_score

    def as_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "id": self.id,
            "verdict": self.verdict,
            "base_score": self.base_score,
            "new_score": self.new_score,
            "delta": self.delta,
            "base_where": self.base_where,
            "new_where": self.new_where,
        }
        if self.base_trials > 1 or self.new_trials > 1:
            document |= {"base_trials": self.base_trials, "new_trials": self.new_trials}
        if self.verdict in ("regressed", "improved", "unchanged"):
            document["newly_failing"] = {k: list(v) for k, v in self.newly_failing.items()}
            document["now_passing"] = {k: list(v) for k, v in self.now_passing.items()}
        return document


@dataclass(frozen=True)
class PairedDifference:
    """The mean of ``new - base`` over the paired examples, its confidence interval (the t
    interval of paired differences) and the paired t-test's two-sided p-value; None where
    fewer than two examples were paired (one has no spread to judge by)."""

    mean: float | None
    low: float | None
    high: float | None
    p_value: float | None
    stdev: float | None
    confidence: float = 0.95
    method: str = "paired t interval"


@dataclass(frozen=True)
class PassFail:
    """Pass rates of the paired examples (pass: a score of at least ``threshold``) and the
    exact McNemar test on the pairs whose outcome changed."""

    threshold: float
    base_pass_rate: float | None
    new_pass_rate: float | None
    both_pass: int
    both_fail: int
    pass_to_fail: int
    fail_to_pass: int
    p_value: float


@dataclass(frozen=True)
class Significance:
    """Whether the new run differs from the base by more than chance at ``alpha``, by
    ``test``: ``"mcnemar"`` when every paired score is 0 or 1, else ``"t"`` (the paired
    t-test); ``"none"`` when nothing can be tested (fewer than two pairs)."""

    test: Literal["mcnemar", "t", "none"]
    p_value: float | None
    alpha: float
    direction: Literal["worse", "better", "same"]

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < self.alpha

    @property
    def worse(self) -> bool:
        """The new run is significantly worse."""
        return self.significant and self.direction == "worse"

    @property
    def better(self) -> bool:
        """The new run is significantly better."""
        return self.significant and self.direction == "better"


@dataclass(frozen=True)
class KeyDelta:
    """One result key's (or superstep position's) mean in each run, over the paired examples."""

    key: str
    base_mean: float | None
    new_mean: float | None
    base_count: int
    new_count: int

    @property
    def delta(self) -> float | None:
        if self.base_mean is None or self.new_mean is None:
            return None
        return self.new_mean - self.base_mean


@dataclass(frozen=True)
class RepeatedTrials:
    """One run set's trials of its paired examples (the same example in several runs):
    pass@k (at least one of k trials passes) and pass^k (all k pass), estimated from each
    example's n trials with c passes as ``1 - C(n-c, k) / C(n, k)`` and ``C(c, k) / C(n, k)``,
    averaged over the examples, for k from 1 to the fewest trials an example has."""

    examples: int
    fewest_trials: int
    most_trials: int
    pass_at_k: Mapping[int, float]
    pass_hat_k: Mapping[int, float]


@dataclass(frozen=True)
class Comparison:
    """Two runs compared: see :func:`matchevals.compare.compare_runs`."""

    base: str
    new: str
    kind: str | None
    paired_by: Literal["id", "position"]
    id_key: str | None
    counts: Mapping[str, int]
    base_mean: float | None
    new_mean: float | None
    difference: PairedDifference
    pass_fail: PassFail
    significance: Significance
    per_key: tuple[KeyDelta, ...]
    regressions: tuple[ExampleChange, ...]
    improvements: tuple[ExampleChange, ...]
    added: tuple[ExampleChange, ...]
    removed: tuple[ExampleChange, ...]
    repeated: Mapping[str, RepeatedTrials | None]
    problems: tuple[Problem, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def paired(self) -> int:
        """How many examples both runs hold."""
        return sum(self.counts[name] for name in ("improved", "regressed", "unchanged"))

    @property
    def invalid(self) -> int:
        """Examples that could not be compared: problems, and examples one run lacks (those
        listed one by one, and those past ``listed``, counted)."""
        return len(self.problems) + self.counts["added"] + self.counts["removed"]

    def verdict(
        self,
        *,
        fail_on_regression: bool = False,
        strict: bool = False,
        skip_invalid: bool = False,
    ) -> tuple[bool, list[str]]:
        """Whether the comparison passes its gates, and each reason it does not: examples
        that could not be compared (unless ``skip_invalid``), and with ``fail_on_regression``
        (or ``strict``) :meth:`regression_reasons`."""
        reasons = []
        invalid = self.invalid
        if invalid and not skip_invalid:
            reasons.append(
                "1 example could not be compared" if invalid == 1
                else f"{invalid} examples could not be compared"
            )  # fmt: skip
        if fail_on_regression or strict:
            reasons += self.regression_reasons(strict=strict)
        return not reasons, reasons

    def regression_reasons(self, *, strict: bool = False) -> list[str]:
        """Why ``--fail-on-regression`` fails (empty when it passes): the new run is
        significantly worse at ``alpha``, or, ``strict``, any example regressed."""
        reasons = []
        significance = self.significance
        if significance.worse:
            test = "exact McNemar test" if significance.test == "mcnemar" else "paired t-test"
            reasons.append(
                f"the new run is significantly worse (p = {significance.p_value:.3g} < alpha "
                f"{significance.alpha:g}, {test})"
            )
        regressed = self.counts["regressed"]
        if strict and regressed:
            examples = counted(regressed, "example")
            reasons.append(f"{examples} regressed (--strict)")
        return reasons

    def as_dict(self) -> dict[str, Any]:
        """The ``--format json`` document: plain JSON values (NaN as null)."""
        difference, pass_fail = self.difference, self.pass_fail
        document: dict[str, Any] = _plain(
            {
                "base": self.base,
                "new": self.new,
                "kind": self.kind,
                "paired_by": self.paired_by,
                "id_key": self.id_key,
                "warnings": list(self.warnings),
                "counts": {name: self.counts[name] for name in VERDICTS},
                "paired": self.paired,
                "base_mean": self.base_mean,
                "new_mean": self.new_mean,
                "difference": _fields(difference),
                "pass_fail": _fields(pass_fail),
                "significance": {
                    **_fields(self.significance),
                    "worse": self.significance.worse,
                    "better": self.significance.better,
                },
                "per_key": [{**_fields(row), "delta": row.delta} for row in self.per_key],
                "regressions": [change.as_dict() for change in self.regressions],
                "improvements": [change.as_dict() for change in self.improvements],
                "added": [change.as_dict() for change in self.added],
                "removed": [change.as_dict() for change in self.removed],
                "repeated": {
                    side: None if trials is None else _trials_dict(trials)
                    for side, trials in self.repeated.items()
                },
                "problems": [{"where": p.where, "message": p.message} for p in self.problems],
            }
        )
        return document


def _fields(record: Any) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def _trials_dict(trials: RepeatedTrials) -> dict[str, Any]:
    return {
        "examples": trials.examples,
        "fewest_trials": trials.fewest_trials,
        "most_trials": trials.most_trials,
        "pass_at_k": {str(k): value for k, value in trials.pass_at_k.items()},
        "pass_hat_k": {str(k): value for k, value in trials.pass_hat_k.items()},
    }


def _plain(value: Any) -> Any:
    """NaN and infinities as null (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
