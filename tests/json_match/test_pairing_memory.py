"""Pairing large lists keeps one score matrix: the optimal pairing does not copy it."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from matchevals.json_match._pairing import best_matches


def test_best_matches_does_not_copy_the_score_matrix() -> None:
    rng = np.random.default_rng(0)
    scores = rng.random((400, 400))
    rows, columns = linear_sum_assignment(-scores)
    expected_total = float(scores[rows, columns].sum())
    original = scores.copy()
    tracemalloc.start()
    try:
        matches = best_matches(scores)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(original[i, j] for i, j in matches.items()) == pytest.approx(expected_total)
    assert len(matches) == 400
    assert peak < scores.nbytes / 2  # a copy (np.negative(scores)) would be the whole matrix
