"""``compare_runs`` from Python: verdicts, what newly fails, the statistics and which test
decides, pass rates at a threshold, per-key deltas, trials, and bad input said clearly."""

from __future__ import annotations

from typing import Any

import pytest
from scipy import stats

from matchevals.compare import Trials, compare_runs
from tests.compare.helpers import ids, person, scored


def test_each_example_gets_its_verdict_and_what_newly_fails() -> None:
    base = [person("a"), person("b", "age"), person("c", "city"), person("d"), person("gone")]
    new = [person("b"), person("a", "age", "city"), person("c", "city"), person("d", "name"),
           person("fresh")]  # fmt: skip
    comparison = compare_runs(base, new, listed=10)
    assert comparison.counts == {"regressed": 2, "improved": 1, "unchanged": 1, "added": 1,
                                 "removed": 1}  # fmt: skip
    assert ids(comparison.regressions) == ["a", "d"]  # the biggest drop first
    biggest = comparison.regressions[0]
    assert (biggest.base_score, biggest.new_score) == (1.0, pytest.approx(1 / 3))
    assert biggest.newly_failing == {"json": ("age", "city")} and biggest.now_passing == {}
    assert comparison.regressions[1].newly_failing == {"json": ("name",)}
    (improved,) = comparison.improvements
    assert (improved.id, improved.now_passing, improved.newly_failing) == (
        "b",
        {"json": ("age",)},
        {},
    )
    assert [(c.id, c.verdict, c.new_score) for c in comparison.added] == [("fresh", "added", 1.0)]
    assert [(c.id, c.base_score) for c in comparison.removed] == [("gone", 1.0)]
    assert comparison.paired == 4 and comparison.invalid == 2
    assert comparison.verdict() == (False, ["2 examples could not be compared"])
    assert comparison.verdict(skip_invalid=True) == (True, [])


def test_the_means_and_the_paired_difference() -> None:
    base = [scored(i, s) for i, s in enumerate([1, 0.5, 1, 0.25, 0.75])]
    new = [scored(i, s) for i, s in enumerate([0.5, 0.5, 0.75, 0.0, 0.75])]
    comparison = compare_runs(base, new)
    assert comparison.base_mean == 0.7 and comparison.new_mean == 0.5
    difference = comparison.difference
    oracle = stats.ttest_rel([0.5, 0.5, 0.75, 0.0, 0.75], [1, 0.5, 1, 0.25, 0.75])
    assert difference.mean == pytest.approx(-0.2)
    assert (difference.low, difference.high) == pytest.approx(tuple(oracle.confidence_interval()))
    assert difference.p_value == pytest.approx(oracle.pvalue)
    assert comparison.significance.test == "t"  # partial scores: the paired t-test decides
    assert comparison.significance.p_value == difference.p_value
    assert comparison.significance.worse == (oracle.pvalue < 0.05)


def test_pass_fail_scores_are_judged_by_the_exact_mcnemar_test() -> None:
    base = [scored(i, 1) for i in range(30)]
    new = [scored(i, 0 if i < 9 else 1) for i in range(30)]  # 9 newly fail, none newly pass
    comparison = compare_runs(base, new)
    found = comparison.pass_fail
    assert (found.pass_to_fail, found.fail_to_pass, found.both_pass, found.both_fail) == (
        9,
        0,
        21,
        0,
    )
    assert (found.base_pass_rate, found.new_pass_rate) == (1.0, 0.7)
    assert found.p_value == stats.binomtest(9, 9, 0.5).pvalue
    assert comparison.significance.test == "mcnemar"
    assert comparison.significance.worse and not comparison.significance.better
    assert comparison.regression_reasons() == [
        "the new run is significantly worse (p = 0.00391 < alpha 0.05, exact McNemar test)"
    ]
    strict_only = compare_runs(base, [scored(i, 0 if i == 0 else 1) for i in range(30)])
    assert not strict_only.significance.worse
    assert strict_only.verdict(fail_on_regression=True) == (True, [])
    assert strict_only.verdict(strict=True) == (False, ["1 example regressed (--strict)"])


def test_alpha_decides_what_is_significant() -> None:
    base = [scored(i, 1) for i in range(20)]
    new = [scored(i, 0 if i < 5 else 1) for i in range(20)]  # p = 0.0625
    assert not compare_runs(base, new).significance.worse
    assert compare_runs(base, new, alpha=0.1).significance.worse


def test_the_pass_threshold() -> None:
    base = [scored(0, 0.9), scored(1, 0.7), scored(2, 1.0)]
    new = [scored(0, 0.75), scored(1, 0.85), scored(2, 0.8)]
    at_one = compare_runs(base, new).pass_fail
    assert (at_one.base_pass_rate, at_one.new_pass_rate) == (pytest.approx(1 / 3), 0.0)
    at_eight = compare_runs(base, new, pass_threshold=0.8).pass_fail
    assert (at_eight.pass_to_fail, at_eight.fail_to_pass, at_eight.both_pass) == (1, 1, 1)


def test_per_key_deltas_worst_first_supersteps_by_position() -> None:
    def graph(ident: int, verdicts: list[str], score: float) -> dict[str, Any]:
        metadata = {"runs": [{"verdicts": verdicts}]}
        return {"id": ident, "results": [{"key": "graph", "score": score, "metadata": metadata},
                                         {"key": "style", "score": 1.0}]}  # fmt: skip

    base = [graph(0, ["match", "match"], 1.0), graph(1, ["match", "mismatch"], 0.5)]
    new = [graph(0, ["match", "mismatch"], 0.5), graph(1, ["mismatch", "unchecked"], 0.0)]
    rows = {row.key: row for row in compare_runs(base, new).per_key}
    assert list(rows) == ["graph", "style", "superstep 0", "superstep 1"]
    assert (rows["graph"].base_mean, rows["graph"].new_mean, rows["graph"].delta) == (
        0.75,
        0.25,
        -0.5,
    )
    assert rows["style"].delta == 0.0
    assert (rows["superstep 0"].base_mean, rows["superstep 0"].new_mean) == (1.0, 0.5)
    assert (rows["superstep 1"].new_count, rows["superstep 1"].new_mean) == (
        1,
        0.0,
    )  # unchecked left out


def test_trials_in_python_give_pass_at_k_and_pass_hat_k() -> None:
    base = [scored(i, 1) for i in range(4)]
    trials = Trials(
        [scored(0, 1), scored(1, 1), scored(2, 0), scored(3, 1)],
        [scored(0, 1), scored(1, 0), scored(2, 0), scored(3, 1)],
        [scored(0, 1), scored(1, 1), scored(2, 0), scored(3, 0)],
    )
    comparison = compare_runs(base, trials)
    repeated = comparison.repeated["new"]
    assert comparison.repeated["base"] is None
    assert repeated is not None
    assert (repeated.examples, repeated.fewest_trials, repeated.most_trials) == (4, 3, 3)
    # passes per example: 3, 2, 0, 2 of 3
    assert repeated.pass_hat_k[1] == pytest.approx((3 + 2 + 0 + 2) / 3 / 4)
    assert repeated.pass_hat_k[3] == pytest.approx(0.25)
    assert repeated.pass_at_k[3] == pytest.approx(0.75)
    assert repeated.pass_hat_k[2] == pytest.approx((1 + 1 / 3 + 0 + 1 / 3) / 4)
    # an example's score is the mean of its trials
    assert {c.id: c.new_score for c in comparison.regressions} == pytest.approx(
        {1: 2 / 3, 2: 0.0, 3: 2 / 3}
    )
    assert all(c.new_trials == 3 and c.base_trials == 1 for c in comparison.regressions)


def test_examples_without_ids_pair_by_position() -> None:
    base = [{"key": "k", "score": 1}, {"key": "k", "score": 0}, {"key": "k", "score": 1}]
    new = [[{"key": "k", "score": 1}], {"key": "k", "score": 1}]
    comparison = compare_runs(base, new)
    assert comparison.paired_by == "position"
    assert ids(comparison.improvements) == [1] and ids(comparison.removed) == [2]


def test_duplicate_ids_in_one_run_are_listed() -> None:
    comparison = compare_runs([scored("a", 1), scored("a", 0)], [scored("a", 1)])
    assert [str(p) for p in comparison.problems] == ["base[1]: duplicate id 'a' (first at base[0])"]
    assert comparison.counts["unchanged"] == 1 and comparison.invalid == 1


@pytest.mark.parametrize(
    ("base", "new", "error", "message"),
    [
        ([scored("a", 1), {"key": "k", "score": 1}], [], ValueError,
         "base mixes examples with ids and without (base[1] has none)"),
        ([scored("a", 1)], [{"key": "k", "score": 1}], ValueError,
         "base was given with ids and new given without ids (by position): their examples "
         "cannot be paired"),
        ([{"key": "k", "score": 1.5}], [], ValueError,
         "base[0]['score'] is 1.5; scores are bools or numbers in [0, 1]"),
        ([{"id": "a", "results": [{"key": "k", "score": -1}]}], [], ValueError,
         "base[0]['results'][0]['score'] is -1"),
        ([{"id": {"x": 1}, "results": []}], [], TypeError,
         "base[0]['id'] is an object; an id is a string or a number"),
        ([7], [], TypeError, "base[0] is a number"),
        ({"key": "k", "score": 1}, [], TypeError, "base is dict; expected a list of examples"),
        (Trials("a.jsonl", []), [], TypeError, "base: Trials holds paths and lists of examples"),
    ],
)  # fmt: skip
def test_bad_input_is_a_clear_error(base: Any, new: Any, error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        compare_runs(base, new)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("pass_threshold", 0, "pass_threshold must be a number in (0, 1]; got 0"),
        ("pass_threshold", 1.5, "pass_threshold must be a number in (0, 1]"),
        ("alpha", 1, "alpha must be a number in (0, 1); got 1"),
        ("worst", -1, "worst must be a whole number >= 0; got -1"),
        ("listed", True, "listed must be a whole number >= 0; got True"),
    ],
)
def test_bad_options_are_refused(option: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        compare_runs([], [], **{option: value})
    assert message in str(raised.value)


def test_nothing_given_is_mutated() -> None:
    base = [person("a"), person("b", "age")]
    new = [person("a", "city"), person("b")]
    before = repr((base, new))
    compare_runs(base, new)
    assert repr((base, new)) == before


def test_worst_and_listed_bound_what_is_kept_not_what_is_counted() -> None:
    base = [scored(i, 1) for i in range(50)] + [scored(f"old-{i}", 1) for i in range(7)]
    new = [scored(i, (i % 10) / 10) for i in range(50)]
    comparison = compare_runs(base, new, worst=3, listed=2)
    assert comparison.counts["regressed"] == 50 and len(comparison.regressions) == 3
    assert [c.new_score for c in comparison.regressions] == [0.0] * 3
    assert ids(comparison.regressions) == [0, 10, 20]  # ties in input order
    assert comparison.counts["removed"] == 7 and ids(comparison.removed) == ["old-0", "old-1"]
    assert comparison.invalid == 7
