"""Invariants of a comparison: a run compared with itself changes nothing and is not
significant; swapping the runs swaps improved and regressed (and added and removed, newly failing
and now passing) and negates the difference and its interval, with the same p-values; the order
of the new run's examples changes no statistic; and a saved run compares as its examples do."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchevals.compare import Comparison, _comparing, compare_runs
from matchevals.compare._builder import ComparisonBuilder
from matchevals.compare._pairing import Replan
from tests.compare.helpers import save_run

SCORES = st.sampled_from([0.0, 0.25, 0.5, 2 / 3, 1.0])
KEYS = st.sampled_from(["a", "b", "c"])


@st.composite
def runs(draw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two runs over partly the same ids, each example one or two results."""
    count = draw(st.integers(0, 25))
    base, new = [], []
    for ident in range(count):
        for run in (base, new):
            if draw(st.integers(0, 9)) == 0:
                continue  # this run lacks it
            results = []
            for key in sorted(set(draw(st.lists(KEYS, min_size=1, max_size=2)))):
                score = draw(SCORES)
                metadata = {"mismatches": [{"path": key}]} if score < 1 else None
                results.append({"key": key, "score": score, "metadata": metadata})
            run.append({"id": ident, "results": results})
    random.Random(draw(st.integers(0, 9))).shuffle(new)
    return base, new


def _compare(base: Any, new: Any) -> Comparison:
    return compare_runs(base, new, worst=1000, listed=1000)


@settings(max_examples=150, deadline=None)
@given(pair=runs())
def test_a_run_compared_with_itself_changes_nothing(pair: tuple[list[Any], list[Any]]) -> None:
    base, _ = pair
    comparison = _compare(base, base)
    assert comparison.counts == {"regressed": 0, "improved": 0, "unchanged": len(base),
                                 "added": 0, "removed": 0}  # fmt: skip
    assert not comparison.significance.significant
    assert comparison.verdict(strict=True) == (True, [])
    if base:
        assert comparison.difference.mean == 0.0
        assert comparison.base_mean == comparison.new_mean
    if len(base) >= 2:
        assert comparison.difference.p_value == 1.0
        assert comparison.difference.low == comparison.difference.high == 0.0
        assert comparison.pass_fail.p_value == 1.0
    assert all(row.delta == 0.0 for row in comparison.per_key)


def _changes(changes: Any) -> list[tuple[Any, ...]]:
    """What a list of changes says (not where each example was read)."""
    return [(c.id, c.verdict, c.base_score, c.new_score, c.newly_failing, c.now_passing)
            for c in changes]  # fmt: skip


def _by_id(changes: Any) -> dict[Any, Any]:
    return {change.id: change for change in changes}


@settings(max_examples=200, deadline=None)
@given(pair=runs())
def test_swapping_the_runs_mirrors_the_comparison(pair: tuple[list[Any], list[Any]]) -> None:
    base, new = pair
    forward, backward = _compare(base, new), _compare(new, base)
    swapped = {"regressed": "improved", "improved": "regressed", "added": "removed",
               "removed": "added", "unchanged": "unchanged"}  # fmt: skip
    assert {swapped[name]: count for name, count in forward.counts.items()} == backward.counts
    ahead, back = forward.difference, backward.difference
    if ahead.mean is not None:
        assert back.mean == -ahead.mean
    if ahead.low is not None:
        assert (back.low, back.high) == (-ahead.high, -ahead.low)
        assert back.p_value == ahead.p_value
    assert (forward.pass_fail.pass_to_fail, forward.pass_fail.fail_to_pass) == (
        backward.pass_fail.fail_to_pass,
        backward.pass_fail.pass_to_fail,
    )
    assert forward.pass_fail.p_value == backward.pass_fail.p_value
    assert forward.significance.worse == backward.significance.better
    assert forward.significance.p_value == backward.significance.p_value
    regressed, improved = _by_id(forward.regressions), _by_id(backward.improvements)
    assert regressed.keys() == improved.keys()
    for ident, change in regressed.items():
        assert change.newly_failing == improved[ident].now_passing
        assert change.now_passing == improved[ident].newly_failing
        assert change.delta == -improved[ident].delta
    assert {row.key: row.delta for row in forward.per_key} == {
        row.key: None if row.delta is None else -row.delta for row in backward.per_key
    }


@settings(max_examples=150, deadline=None)
@given(pair=runs(), seed=st.integers(0, 99))
def test_the_order_of_the_examples_changes_no_statistic(
    pair: tuple[list[Any], list[Any]], seed: int
) -> None:
    base, new = pair
    shuffled = list(new)
    random.Random(seed).shuffle(shuffled)
    first, second = _compare(base, new), _compare(base, shuffled)
    assert first.counts == second.counts
    assert (first.base_mean, first.new_mean) == (second.base_mean, second.new_mean)
    assert first.difference == second.difference  # exact sums: the same bits in any order
    assert first.pass_fail == second.pass_fail
    assert first.per_key == second.per_key
    assert sorted(c.delta for c in first.regressions) == sorted(c.delta for c in second.regressions)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pair=runs())
def test_a_saved_run_compares_as_its_examples_do(
    pair: tuple[list[Any], list[Any]], tmp_path: Path
) -> None:
    base, new = pair
    from_lists = _compare(base, new)
    from_files = _compare(save_run(tmp_path / "base.jsonl", base),
                          save_run(tmp_path / "new.jsonl", new))  # fmt: skip
    assert from_files.counts == from_lists.counts
    assert from_files.difference == from_lists.difference
    assert from_files.pass_fail == from_lists.pass_fail
    assert from_files.per_key == from_lists.per_key
    assert _changes(from_files.regressions) == _changes(from_lists.regressions)
    assert _changes(from_files.improvements) == _changes(from_lists.improvements)
    assert [c.id for c in from_files.added] == [c.id for c in from_lists.added]
    assert [c.id for c in from_files.removed] == [c.id for c in from_lists.removed]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pair=runs(), ordered=st.booleans(), duplicate=st.booleans())
def test_every_way_of_pairing_saved_runs_gives_the_same_comparison(
    pair: tuple[list[Any], list[Any]], ordered: bool, duplicate: bool, tmp_path: Path
) -> None:
    """Runs streamed together (keys in order), the base indexed and the new run streamed, and
    both indexed: the same comparison, whichever way had to give up."""
    base, new = pair
    if ordered:
        new = sorted(new, key=lambda example: example["id"])
    if duplicate and new:
        new = [*new, new[0]]
    files = (save_run(tmp_path / "base.jsonl", base), save_run(tmp_path / "new.jsonl", new))
    found = []
    for plan in _comparing._PLANS:
        try:
            found.append(
                _comparing._compare(
                    _comparing._side(files[0], "base"), _comparing._side(files[1], "new"),
                    ComparisonBuilder(worst=1000, listed=1000), plan, None,
                )
            )  # fmt: skip
        except Replan:
            assert plan is not _comparing._indexed
    merged_ran = len(found) == 3
    if ordered and not duplicate:
        assert merged_ran
    if duplicate and new:
        assert len(found) == 2  # a duplicate in the new run: not streamed together
    for comparison in found[1:]:
        assert comparison.counts == found[0].counts
        assert comparison.difference == found[0].difference
        assert comparison.per_key == found[0].per_key
        assert _changes(comparison.regressions) == _changes(found[0].regressions)
        assert _changes(comparison.improvements) == _changes(found[0].improvements)
        assert [c.id for c in comparison.added] == [c.id for c in found[0].added]
        assert [c.id for c in comparison.removed] == [c.id for c in found[0].removed]
        assert comparison.problems == found[0].problems
