"""The statistics of a comparison, each from scipy.stats: the t interval and the paired t-test
of the mean difference (from its exact sums, so they stream), the exact McNemar test on the
pairs whose pass/fail outcome changed (a binomial test), and pass@k and pass^k of repeated
trials.

>>> exact_mcnemar(pass_to_fail=9, fail_to_pass=1)
0.021484375
>>> pass_hat_k({(4, 2): 1}, 2), pass_at_k({(4, 2): 1}, 2)
(0.16666666666666666, 0.8333333333333334)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction

from matchevals.compare._model import PairedDifference
from matchevals.report._stats import Mean

__all__ = [
    "CONFIDENCE",
    "Squares",
    "exact_mcnemar",
    "paired_difference",
    "pass_at_k",
    "pass_hat_k",
]

CONFIDENCE = 0.95
_BITS = 1074  # every finite double is a whole multiple of 2**-1074, its square of 2**-2148


class Squares:
    """The exact sum of the squares of floats (each square exact, never rounded), so the
    variance of differences all alike is exactly 0.

    >>> squares = Squares()
    >>> squares.add(1 / 3)
    >>> squares.sum == Fraction(1 / 3) ** 2
    True
    """

    __slots__ = ("total",)

    def __init__(self) -> None:
        self.total = 0  # the sum, in units of 2**-2148

    def add(self, value: float) -> None:
        numerator, denominator = value.as_integer_ratio()  # the denominator a power of 2
        self.total += (numerator * numerator) << 2 * (_BITS + 1 - denominator.bit_length())

    @property
    def sum(self) -> Fraction:
        return Fraction(self.total, 1 << 2 * _BITS)


def paired_difference(differences: Mean, squares: Squares) -> PairedDifference:
    """The mean of the paired differences ``new - base``, its 95% t interval
    (``scipy.stats.t.interval``) and the paired t-test's two-sided p-value (``scipy.stats.t``),
    from the exact sums of the differences and of their squares: no rounding on the way.

    Differences all alike (no spread) give an interval of that one value, and a p-value of 1
    when they are all 0, else 0: every example moved the same way.

    >>> differences, squares = Mean(), Squares()
    >>> for d in (-0.5, 0.0, -0.5, -1.0):
    ...     differences.add(d)
    ...     squares.add(d)
    >>> found = paired_difference(differences, squares)
    >>> found.mean, round(found.low, 4), round(found.high, 4), round(found.p_value, 4)
    (-0.5, -1.1496, 0.1496, 0.0917)
    """
    count = differences.count
    if not count:
        return PairedDifference(None, None, None, None, None)
    mean = differences.value
    if count < 2:
        return PairedDifference(mean, None, None, None, None)
    total = differences.sum
    variance = (squares.sum - total * total / count) / (count - 1)
    stdev = math.sqrt(max(variance, Fraction(0)))
    error = stdev / math.sqrt(count)
    if error == 0:
        return PairedDifference(mean, mean, mean, 1.0 if mean == 0 else 0.0, 0.0)
    from scipy import stats

    low, high = stats.t.interval(CONFIDENCE, count - 1, loc=mean, scale=error)
    p_value = 2 * stats.t.sf(abs(mean) / error, count - 1)
    return PairedDifference(mean, float(low), float(high), min(1.0, float(p_value)), stdev)


def exact_mcnemar(*, pass_to_fail: int, fail_to_pass: int) -> float:
    """The exact McNemar test's two-sided p-value: a binomial test of the pairs whose outcome
    changed (``scipy.stats.binomtest(b, b + c, 0.5)``); 1 when none did."""
    changed = pass_to_fail + fail_to_pass
    if not changed:
        return 1.0
    from scipy import stats

    return float(stats.binomtest(pass_to_fail, changed, 0.5).pvalue)


def pass_hat_k(trials: Mapping[tuple[int, int], int], k: int) -> float:
    """pass^k: the chance that k trials of an example, drawn from its n, all pass, averaged
    over the examples; ``trials`` counts the examples with each ``(n, passes)``."""
    return _average(trials, lambda n, c: Fraction(math.comb(c, k), math.comb(n, k)))


def pass_at_k(trials: Mapping[tuple[int, int], int], k: int) -> float:
    """pass@k: the chance that at least one of k trials, drawn from an example's n, passes."""
    return _average(trials, lambda n, c: 1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def _average(
    trials: Mapping[tuple[int, int], int], chance: Callable[[int, int], Fraction]
) -> float:
    examples = sum(trials.values())
    total = sum((count * chance(n, c) for (n, c), count in trials.items()), Fraction(0))
    return float(total / examples)
