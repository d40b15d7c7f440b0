"""The comparison itself, one example at a time: each example's verdict, the exact sums the
statistics need, the per-key means of both runs, and the biggest changes; in memory bounded by
the keys and the number of changes kept.

An example's score in a run is the mean of its trials' scores (one trial: its score); every
paired statistic (the difference, pass/fail, the verdict) uses that mean. pass@k and pass^k
count each trial apart.

>>> from matchevals.report._examples import example_from
>>> def one(score, key="k"):
...     return [example_from({"key": key, "score": score}, 0)]
>>> builder = ComparisonBuilder()
>>> builder.add("a", one(1.0), one(0.0))
>>> builder.add("b", one(0.5), one(0.5))
>>> comparison = builder.result(base="base", new="new")
>>> comparison.counts["regressed"], comparison.counts["unchanged"], comparison.difference.mean
(1, 1, -0.5)
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal

from matchevals._scoring import Problem, Scored
from matchevals.compare._failures import changes
from matchevals.compare._model import (
    VERDICTS,
    Comparison,
    ExampleChange,
    KeyDelta,
    PassFail,
    RepeatedTrials,
    Significance,
    Verdict,
)
from matchevals.compare._statistics import (
    Squares,
    exact_mcnemar,
    paired_difference,
    pass_at_k,
    pass_hat_k,
)
from matchevals.report._examples import ReportExample
from matchevals.report._stats import Mean, Tally, is_superstep

__all__ = ["DEFAULT_LISTED", "DEFAULT_WORST", "ComparisonBuilder"]

DEFAULT_WORST = 10
"""How many of the biggest regressions (and improvements) a comparison keeps, unless told."""
DEFAULT_LISTED = 1000
"""How many examples only one run holds are listed one by one (all are counted)."""
MAX_K = 10
"""pass@k and pass^k for every k up to this; past it, powers of 2 and the largest k."""

Trials = Sequence[ReportExample]
_Kept = tuple[float, int, Hashable, Trials, Trials, float, float]


class ComparisonBuilder:
    """Collects a comparison, one example (with its trials in each run) at a time."""

    def __init__(
        self,
        *,
        pass_threshold: float = 1.0,
        alpha: float = 0.05,
        worst: int = DEFAULT_WORST,
        listed: int = DEFAULT_LISTED,
    ) -> None:
        self.pass_threshold, self.alpha = pass_threshold, alpha
        self.worst, self.listed = worst, listed
        self.counts: dict[str, int] = dict.fromkeys(VERDICTS, 0)
        self.base_mean, self.new_mean = Mean(), Mean()
        self.differences, self.squares = Mean(), Squares()
        self.binary = True  # every paired score is 0 or 1 (so far)
        self.outcomes = [[0, 0], [0, 0]]  # [base passed][new passed]
        self.base_keys, self.new_keys = Tally(worst_count=0), Tally(worst_count=0)
        self.base_trials: Counter[tuple[int, int]] = Counter()
        self.new_trials: Counter[tuple[int, int]] = Counter()
        self._regressions: list[_Kept] = []
        self._improvements: list[_Kept] = []
        self._added: list[ExampleChange] = []
        self._removed: list[ExampleChange] = []
        self._order = itertools.count()
        self.problems: list[Problem] = []

    def add(self, key: Hashable, base: Trials, new: Trials) -> None:
        """Add one example: its trials in the base run and in the new run (none where that
        run lacks it)."""
        if not base or not new:
            if base or new:
                self._one_sided(key, base, new)
            return
        base_score, new_score = self._score(base), self._score(new)
        difference = new_score - base_score
        self.base_mean.add(base_score)
        self.new_mean.add(new_score)
        self.differences.add(difference)
        self.squares.add(difference)
        if self.binary and not (base_score in (0.0, 1.0) and new_score in (0.0, 1.0)):
            self.binary = False
        threshold = self.pass_threshold
        self.outcomes[base_score >= threshold][new_score >= threshold] += 1
        self._tally(self.base_keys, self.base_trials, base)
        self._tally(self.new_keys, self.new_trials, new)
        order = next(self._order)
        if difference < 0:
            self.counts["regressed"] += 1
            self._keep(self._regressions, (-difference, -order, key, base, new, base_score,
                                           new_score))  # fmt: skip
        elif difference > 0:
            self.counts["improved"] += 1
            self._keep(self._improvements, (difference, -order, key, base, new, base_score,
                                            new_score))  # fmt: skip
        else:
            self.counts["unchanged"] += 1

    @staticmethod
    def _score(trials: Trials) -> float:
        if len(trials) == 1:
            return trials[0].score
        mean = Mean()
        for trial in trials:
            mean.add(trial.score)
        return mean.value

    def _tally(self, keys: Tally, counts: Counter[tuple[int, int]], trials: Trials) -> None:
        passed = 0
        for trial in trials:
            keys.add(Scored(trial.index, trial.id, trial.where, trial.score, trial.results))
            passed += trial.score >= self.pass_threshold
        counts[len(trials), passed] += 1

    def _keep(self, heap: list[_Kept], entry: _Kept) -> None:
        """Keep the ``worst`` biggest changes: a heap whose root is the smallest kept."""
        if len(heap) < self.worst:
            heapq.heappush(heap, entry)
        elif self.worst and entry[:2] > heap[0][:2]:
            heapq.heapreplace(heap, entry)

    def _one_sided(self, key: Hashable, base: Trials, new: Trials) -> None:
        verdict: Verdict = "removed" if base else "added"
        self.counts[verdict] += 1
        kept = self._removed if base else self._added
        if len(kept) < self.listed:
            trials = base or new
            score = self._score(trials)
            kept.append(
                ExampleChange(
                    id=key,
                    verdict=verdict,
                    base_score=score if base else None,
                    new_score=None if base else score,
                    base_where=base[0].where if base else None,
                    new_where=new[0].where if new else None,
                    base_trials=len(base),
                    new_trials=len(new),
                    base_examples=tuple(base),
                    new_examples=tuple(new),
                )
            )

    def problem(self, problem: Problem) -> None:
        """An example (or a line) that could not be compared."""
        self.problems.append(problem)

    def result(
        self,
        *,
        base: str,
        new: str,
        kind: str | None = None,
        paired_by: Literal["id", "position"] = "id",
        id_key: str | None = None,
        warnings: Sequence[str] = (),
    ) -> Comparison:
        """The comparison of everything added."""
        difference = paired_difference(self.differences, self.squares)
        pass_fail = self._pass_fail()
        return Comparison(
            base=base,
            new=new,
            kind=kind,
            paired_by=paired_by,
            id_key=id_key,
            counts=dict(self.counts),
            base_mean=self.base_mean.value if self.base_mean.count else None,
            new_mean=self.new_mean.value if self.new_mean.count else None,
            difference=difference,
            pass_fail=pass_fail,
            significance=self._significance(difference.p_value, difference.mean, pass_fail),
            per_key=self._per_key(),
            regressions=_changes(self._regressions, "regressed"),
            improvements=_changes(self._improvements, "improved"),
            added=tuple(self._added),
            removed=tuple(self._removed),
            repeated={"base": _repeated(self.base_trials), "new": _repeated(self.new_trials)},
            problems=tuple(self.problems),
            warnings=tuple(warnings),
        )

    def _pass_fail(self) -> PassFail:
        (both_fail, fail_to_pass), (pass_to_fail, both_pass) = self.outcomes
        paired = both_fail + fail_to_pass + pass_to_fail + both_pass
        return PassFail(
            threshold=self.pass_threshold,
            base_pass_rate=(pass_to_fail + both_pass) / paired if paired else None,
            new_pass_rate=(fail_to_pass + both_pass) / paired if paired else None,
            both_pass=both_pass,
            both_fail=both_fail,
            pass_to_fail=pass_to_fail,
            fail_to_pass=fail_to_pass,
            p_value=exact_mcnemar(pass_to_fail=pass_to_fail, fail_to_pass=fail_to_pass),
        )

    def _significance(
        self, t_p_value: float | None, mean: float | None, pass_fail: PassFail
    ) -> Significance:
        """The exact McNemar test where every paired score is 0 or 1 (the mean score is then
        the pass rate), else the paired t-test; nothing to test below two pairs."""
        if self.differences.count < 2:
            return Significance("none", None, self.alpha, "same")
        if self.binary:
            change = pass_fail.fail_to_pass - pass_fail.pass_to_fail
            return Significance("mcnemar", pass_fail.p_value, self.alpha, _direction(change))
        assert mean is not None
        return Significance("t", t_p_value, self.alpha, _direction(mean))

    def _per_key(self) -> tuple[KeyDelta, ...]:
        base = {row[0]: row for row in self.base_keys.key_rows()}
        new = {row[0]: row for row in self.new_keys.key_rows()}
        rows = []
        for key in dict.fromkeys([*base, *new]):
            base_row, new_row = base.get(key), new.get(key)
            rows.append(
                KeyDelta(
                    key=key,
                    base_mean=_mean_of(base_row),
                    new_mean=_mean_of(new_row),
                    base_count=base_row[2] if base_row else 0,
                    new_count=new_row[2] if new_row else 0,
                )
            )
        plain = sorted(
            (row for row in rows if not is_superstep(row.key)),
            key=lambda row: (row.delta is None, row.delta or 0.0, row.key),
        )
        return (*plain, *(row for row in rows if is_superstep(row.key)))


def _direction(change: float) -> Literal["worse", "better", "same"]:
    return "worse" if change < 0 else "better" if change > 0 else "same"


def _mean_of(row: tuple[str, float, int, int] | None) -> float | None:
    if row is None or row[2] == 0:
        return None
    return row[1]


def _changes(heap: list[_Kept], verdict: Verdict) -> tuple[ExampleChange, ...]:
    """The kept changes, biggest first (ties in input order), with what newly fails."""
    found = []
    for _, _, key, base, new, base_score, new_score in sorted(heap, reverse=True):
        newly, fixed = changes([t.results for t in base], [t.results for t in new])
        found.append(
            ExampleChange(
                id=key,
                verdict=verdict,
                base_score=base_score,
                new_score=new_score,
                base_where=base[0].where,
                new_where=new[0].where,
                base_trials=len(base),
                new_trials=len(new),
                newly_failing=newly,
                now_passing=fixed,
                base_examples=tuple(base),
                new_examples=tuple(new),
            )
        )
    return tuple(found)


def _repeated(trials: Counter[tuple[int, int]]) -> RepeatedTrials | None:
    """pass@k and pass^k of a run set that holds several trials of its examples."""
    if not trials or max(n for n, _ in trials) < 2:
        return None
    fewest = min(n for n, _ in trials)
    ks = [k for k in range(1, fewest + 1) if k <= MAX_K or k & (k - 1) == 0 or k == fewest]
    return RepeatedTrials(
        examples=sum(trials.values()),
        fewest_trials=fewest,
        most_trials=max(n for n, _ in trials),
        pass_at_k={k: pass_at_k(trials, k) for k in ks},
        pass_hat_k={k: pass_hat_k(trials, k) for k in ks},
    )
