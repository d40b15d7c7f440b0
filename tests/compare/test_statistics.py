"""The statistics of a comparison against their definitions: the t interval and the paired
t-test equal scipy's own one-sample test on the differences (computed from the whole array),
the exact McNemar test is the binomial test of the discordant pairs, and pass@k and pass^k equal
the chance counted over every k-subset of an example's trials."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from matchevals.compare._statistics import (
    Squares,
    exact_mcnemar,
    paired_difference,
    pass_at_k,
    pass_hat_k,
)
from matchevals.report._stats import Mean

scores = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 1 / 3, 2 / 3, 1.0]), st.floats(0, 1, allow_subnormal=False)
)


def _difference(pairs: list[tuple[float, float]]):  # type: ignore[no-untyped-def]
    differences, squares = Mean(), Squares()
    for base, new in pairs:
        d = new - base
        differences.add(d)
        squares.add(d)
    return paired_difference(differences, squares)


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(scores, scores), min_size=2, max_size=80))
def test_the_interval_and_p_value_are_scipys_paired_t_test(
    pairs: list[tuple[float, float]],
) -> None:
    found = _difference(pairs)
    base = np.array([b for b, _ in pairs])
    new = np.array([n for _, n in pairs])
    differences = new - base
    assert found.mean == pytest.approx(float(np.mean(differences)), abs=1e-12)
    if np.ptp(differences) == 0:  # no spread: scipy has no answer, ours is the one value
        assert found.low == found.high == found.mean
        assert found.p_value == (1.0 if found.mean == 0 else 0.0)
        return
    oracle = stats.ttest_rel(new, base)
    interval = oracle.confidence_interval(0.95)
    assert found.low == pytest.approx(float(interval.low), abs=1e-9)
    assert found.high == pytest.approx(float(interval.high), abs=1e-9)
    assert found.p_value == pytest.approx(float(oracle.pvalue), abs=1e-9)
    assert found.stdev == pytest.approx(float(np.std(differences, ddof=1)), abs=1e-9)


def test_fewer_than_two_pairs_have_no_interval() -> None:
    assert _difference([]).mean is None
    one = _difference([(1.0, 0.5)])
    assert (one.mean, one.low, one.high, one.p_value) == (-0.5, None, None, None)


def test_differences_all_alike_are_certain() -> None:
    every_one_worse = _difference([(0.9, 0.8)] * 5)
    assert every_one_worse.p_value == 0.0
    assert every_one_worse.low == every_one_worse.high == every_one_worse.mean
    same = _difference([(0.3, 0.3)] * 5)
    assert (same.mean, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (1, 0), (9, 1), (5, 5), (30, 12), (0, 7)])
def test_mcnemar_is_the_exact_binomial_test_of_the_discordant_pairs(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5).pvalue
    assert exact_mcnemar(pass_to_fail=b, fail_to_pass=c) == expected
    # by hand for one case: 9 of 10 changes one way, two-sided
    if (b, c) == (9, 1):
        assert expected == pytest.approx(2 * (math.comb(10, 9) + math.comb(10, 10)) / 2**10)


def _by_subsets(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """pass@k and pass^k by counting every k-subset of n trials, c of them passing."""
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_pass = sum(any(trials[i] for i in subset) for subset in subsets)
    all_pass = sum(all(trials[i] for i in subset) for subset in subsets)
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


@settings(max_examples=200, deadline=None)
@given(
    examples=st.lists(
        st.integers(1, 7).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
        min_size=1,
        max_size=6,
    ),
    k=st.integers(1, 7),
)
def test_pass_at_k_and_pass_hat_k_count_every_k_subset(
    examples: list[tuple[int, int]], k: int
) -> None:
    k = min(k, *(n for n, _ in examples))
    counts: dict[tuple[int, int], int] = {}
    for example in examples:
        counts[example] = counts.get(example, 0) + 1
    at = [_by_subsets(n, c, k)[0] for n, c in examples]
    hat = [_by_subsets(n, c, k)[1] for n, c in examples]
    assert pass_at_k(counts, k) == float(sum(at) / len(examples))
    assert pass_hat_k(counts, k) == float(sum(hat) / len(examples))


def test_pass_hat_k_is_taubenchs_estimator() -> None:
    # 4 trials, 2 passing: C(2, 2) / C(4, 2) = 1/6; 3 passing: C(3, 2) / C(4, 2) = 1/2
    assert pass_hat_k({(4, 2): 1, (4, 3): 1}, 2) == (1 / 6 + 1 / 2) / 2
    assert pass_hat_k({(4, 4): 3}, 4) == 1.0
    assert pass_at_k({(4, 0): 1}, 3) == 0.0
