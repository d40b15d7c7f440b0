"""The one aggregation of runs: exact means merged in any order, the worst examples kept
whatever the chunks, every superstep named by its position, per-key means equal to what
``key_scores`` gives, and one way of writing a score."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._scoring import Problem, Scored
from matchevals.report._stats import Mean, Tally, key_scores, score_text


def test_every_superstep_of_a_long_run_is_named_by_its_position() -> None:
    verdicts = ["match", "mismatch", "unchecked"] * 200  # beyond the names made in advance
    results = [{"key": "g", "score": 0.5, "metadata": {"runs": [{"verdicts": verdicts}]}}]
    scores = list(key_scores(results))
    assert scores[0] == ("g", 0.5)
    expected = {"match": 1.0, "mismatch": 0.0, "unchecked": None}
    assert scores[1:] == [
        (f"superstep {position}", expected[verdict]) for position, verdict in enumerate(verdicts)
    ]


scores = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 0.1])), max_size=60
)


@settings(max_examples=200, deadline=None)
@given(values=scores, cuts=st.lists(st.integers(0, 60), max_size=6), seed=st.integers(0, 99))
def test_means_are_exact_whatever_the_chunks_and_their_order(
    values: list[float], cuts: list[int], seed: int
) -> None:
    bounds = sorted({0, len(values), *(min(c, len(values)) for c in cuts)})
    parts = []
    for start, end in itertools.pairwise(bounds):
        part = Mean()
        for value in values[start:end]:
            part.add(value)
        parts.append(part)
    random.Random(seed).shuffle(parts)
    total = Mean()
    for part in parts:
        total.merge(part)
    assert total.count == len(values)
    if values:
        exact = sum(map(Fraction, values)) / len(values)
        assert total.value == float(exact)  # correctly rounded: int / int rounds once


def test_a_tally_keeps_the_worst_examples_whatever_the_chunks() -> None:
    rng = random.Random(3)
    items = [
        Scored(i, i, f"f:{i}", s, [{"key": "k", "score": s}])
        for i, s in enumerate(rng.choice([0.0, 0.25, 0.5, 1.0]) for _ in range(200))
    ]
    whole = Tally(worst_count=7)
    for item in items:
        whole.add(item)
    merged = Tally(worst_count=7)
    for start in range(0, 200, 13)[::-1]:  # chunks merged out of order
        part = Tally(worst_count=7)
        for item in items[start : start + 13]:
            part.add(item)
        merged.merge(part)
    assert sorted(merged.worst) == sorted(whole.worst)
    assert [entry[2].index for entry in sorted(whole.worst, reverse=True)][:3] == [
        item.index for item in sorted(items, key=lambda i: (i.score, i.index))[:3]
    ]
    assert merged.per_key["k"].value == whole.per_key["k"].value
    problem = Problem("f:0", "bad", counted=False)
    merged.add(problem)
    assert (merged.invalid, merged.problems[-1]) == (0, problem)


metadata = st.none() | st.sampled_from(
    [
        {"mismatches": []},
        {"runs": [{"verdicts": ["match", "unchecked"]}]},
        {"threshold": 0.5, "pass": False},
        {"threshold": 0.8, "pass": True, "runs": [{"verdicts": ["mismatch"]}]},
        "text",
    ]
)
result = st.fixed_dictionaries(
    {
        "key": st.sampled_from(["a", "b", "graph"]),
        "score": st.sampled_from([0, 1, 0.5, True, False, None, "x"]),
        "metadata": metadata,
    }
)


@settings(max_examples=300, deadline=None)
@given(examples=st.lists(st.lists(result, min_size=1, max_size=3), max_size=8))
def test_per_key_means_are_what_key_scores_gives(examples: list[list[dict[str, Any]]]) -> None:
    """The oracle: ``key_scores`` of every example, added up by key (a plain result's score
    is taken on a shorter path; the numbers must not differ)."""
    tally = Tally()
    totals: dict[str, list[float]] = {}
    unchecked: dict[str, int] = {}
    for index, results in enumerate(examples):
        tally.add(Scored(index, index, f"x:{index}", 0.5, results))
        for key, value in key_scores(results):
            totals.setdefault(key, [])
            if value is None:
                unchecked[key] = unchecked.get(key, 0) + 1
            else:
                totals[key].append(value)
    rows = {key: (mean, count, left) for key, mean, count, left in tally.key_rows()}
    assert set(rows) == set(totals)
    for key, values in totals.items():
        mean, count, left = rows[key]
        assert (count, left) == (len(values), unchecked.get(key, 0))
        if values:
            assert mean == float(sum(map(Fraction, values)) / len(values))
    failed = sum(
        any(isinstance(r["metadata"], dict) and r["metadata"].get("pass") is False for r in rs)
        for rs in examples
    )
    assert tally.below_threshold == failed


def test_a_score_is_written_with_four_digits_a_tie_rounded_up() -> None:
    assert [score_text(v) for v in (0.78125, 0.5, 1.0, 0.0, 1 / 3, 0.99995, None)] == [
        "0.7813", "0.5", "1", "0", "0.3333", "1", "—",
    ]  # fmt: skip
    assert score_text(float("nan")) == "—"
