"""Invariants of json_match, checked with hypothesis."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from tests.json_match.strategies import OPTIONS, RECORD_LISTS, RECORDS, pairs_of_inputs

SET_MODES = ["same_elements", "subset", "superset"]
AGGREGATIONS = [(agg, lagg) for agg in (None, "average", "all") for lagg in ("average", "all")]


@settings(max_examples=150, deadline=None)
@given(outputs=RECORD_LISTS, data=st.data())
def test_a_shuffled_copy_scores_one_in_every_set_mode(outputs: list[Any], data: Any) -> None:
    references = data.draw(st.permutations(outputs))
    for mode in SET_MODES:
        for aggregator, list_aggregator in AGGREGATIONS:
            evaluator = create_json_match_evaluator(
                list_match_mode=mode, aggregator=aggregator, list_aggregator=list_aggregator
            )
            results = evaluator(outputs=outputs, reference_outputs=references)
            assert all(result["score"] == 1 for result in results), (mode, aggregator, results)


@settings(max_examples=200, deadline=None)
@given(inputs=pairs_of_inputs(), options=OPTIONS)
def test_sync_equals_async(inputs: tuple[Any, Any], options: dict[str, Any]) -> None:
    outputs, references = inputs
    sync = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    asynchronous = asyncio.run(
        create_async_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    )
    assert sync == asynchronous
    for result in sync:
        assert 0 <= result["score"] <= 1
        assert (result["comment"] is None) == (result["score"] == 1)


@settings(max_examples=200, deadline=None)
@given(outputs=RECORD_LISTS, references=RECORD_LISTS, mode=st.sampled_from(SET_MODES))
def test_optimal_pairing_never_scores_below_greedy(
    outputs: list[Any], references: list[Any], mode: str
) -> None:
    options = {"aggregator": "average", "list_aggregator": "average", "list_match_mode": mode}
    optimal = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    greedy = create_json_match_evaluator(alignment="greedy", **options)(
        outputs=outputs, reference_outputs=references
    )
    assert optimal[0]["score"] >= greedy[0]["score"] - 1e-9


def _brute_force_best(outputs: list[Any], references: list[Any], mode: str) -> float:
    """The best average item score over every one-to-one pairing (small lists only)."""

    def pair_score(o: dict[str, Any], r: dict[str, Any]) -> float:
        (result,) = create_json_match_evaluator(aggregator="average")(
            outputs=o, reference_outputs=r
        )
        return float(result["score"])

    drivers, partners = (references, outputs) if mode == "superset" else (outputs, references)
    counted = len(drivers) if mode != "same_elements" else max(len(outputs), len(references))
    if counted == 0:
        return 1.0
    best = 0.0
    for chosen in itertools.permutations(range(len(partners)), min(len(drivers), len(partners))):
        total = 0.0
        for driver_index, partner_index in enumerate(chosen):
            driver, partner = drivers[driver_index], partners[partner_index]
            total += pair_score(*((partner, driver) if mode == "superset" else (driver, partner)))
        if len(drivers) > len(partners):
            # which drivers stay unpaired matters: try the best subset through permutations of
            # drivers as well (cheap at these sizes)
            pass
        best = max(best, total)
    if len(drivers) > len(partners):
        best = 0.0
        for chosen_drivers in itertools.permutations(range(len(drivers)), len(partners)):
            total = sum(
                pair_score(
                    *(
                        (partners[p], drivers[d])
                        if mode == "superset"
                        else (drivers[d], partners[p])
                    )
                )
                for p, d in enumerate(chosen_drivers)
            )
            best = max(best, total)
    return best / counted


@settings(max_examples=80, deadline=None)
@given(
    outputs=st.lists(RECORDS, max_size=4),
    references=st.lists(RECORDS, max_size=4),
    mode=st.sampled_from(SET_MODES),
)
def test_optimal_pairing_equals_brute_force(
    outputs: list[Any], references: list[Any], mode: str
) -> None:
    (result,) = create_json_match_evaluator(
        aggregator="average", list_aggregator="average", list_match_mode=mode
    )(outputs=outputs, reference_outputs=references)
    assert result["score"] == pytest.approx(_brute_force_best(outputs, references, mode), abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(inputs=pairs_of_inputs(), options=OPTIONS)
def test_results_do_not_depend_on_dict_key_order(
    inputs: tuple[Any, Any], options: dict[str, Any]
) -> None:
    def reverse_keys(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: reverse_keys(value[key]) for key in reversed(list(value))}
        if isinstance(value, list):
            return [reverse_keys(item) for item in value]
        return value

    outputs, references = inputs
    evaluator = create_json_match_evaluator(**options)
    assert evaluator(outputs=outputs, reference_outputs=references) == evaluator(
        outputs=reverse_keys(outputs), reference_outputs=reverse_keys(references)
    )
