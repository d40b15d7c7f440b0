"""Any JSON, any options: every call returns well-formed results or a clear ValueError/TypeError.

Options are read from the factories' signatures when the tests run, so an option added later is
drawn too (from its ``Literal`` choices, as a bool, or at its default).
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from tests.robustness._support import (
    OBJECTS,
    SUPERSTEP,
    TOP_LEVEL,
    VALID_REFERENCE,
    VALID_RUN,
    check_error,
    check_graph_result,
    check_json_results,
    json_match_options,
    json_match_parameters,
    outcome,
    reference_values,
    run_value,
    run_values,
)

SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same(left: Any, right: Any) -> bool:
    """Equality that treats NaN as equal to itself (results may carry NaN values)."""
    return repr(left) == repr(right)


def test_the_option_strategy_covers_at_least_the_openevals_options() -> None:
    names = set(json_match_parameters())
    assert {
        "aggregator",
        "list_aggregator",
        "list_match_mode",
        "exclude_keys",
        "alignment",
    } <= names
    assert {"rubric", "judge", "model", "use_reasoning"} <= names


@SETTINGS
@given(options=json_match_options(), outputs=TOP_LEVEL, references=TOP_LEVEL)
def test_json_match_any_json_any_options(
    options: dict[str, Any], outputs: Any, references: Any
) -> None:
    kind, evaluator = outcome(lambda: create_json_match_evaluator(**options))
    if kind == "error":
        return  # an invalid combination of options, reported clearly by the factory
    before = copy.deepcopy((outputs, references))
    kind, results = outcome(lambda: evaluator(outputs=outputs, reference_outputs=references))
    event(f"json_match: {kind}")
    assert _same((outputs, references), before), "the evaluator mutated its inputs"
    async_evaluator = create_async_json_match_evaluator(**options)

    async def call() -> Any:
        return await async_evaluator(outputs=outputs, reference_outputs=references)

    async_kind, async_results = outcome(lambda: asyncio.run(call()))
    assert async_kind == kind, f"sync gave {kind}, async gave {async_kind}"
    if kind == "error":
        assert type(async_results) is type(results)
        assert str(async_results) == str(results)
        return
    scores = check_json_results(results)
    assert _same(async_results, results)
    if options.get("aggregator") is not None:
        assert len(scores) == 1


@SETTINGS
@given(options=json_match_options(), value=st.one_of(OBJECTS, st.lists(OBJECTS, max_size=4)))
def test_json_match_a_value_against_a_copy_of_itself_is_perfect(
    options: dict[str, Any], value: Any
) -> None:
    kind, evaluator = outcome(lambda: create_json_match_evaluator(**options))
    if kind == "error":
        return
    kind, results = outcome(
        lambda: evaluator(outputs=value, reference_outputs=copy.deepcopy(value))
    )
    if kind == "error":
        # The only input errors a list of objects may raise concern values that are not JSON
        # or keys that make an invalid path; neither is possible here for plain objects.
        check_error(results)
        pytest.fail(f"a JSON value against its own copy raised {results!r}")
    scores = check_json_results(results)
    assert all(score == 1.0 for score in scores), results


@SETTINGS
@given(
    partial=st.booleans(),
    eval_results=st.booleans(),
    threshold=st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0, 1.5, -1.0])),
    outputs=run_values(),
    references=reference_values(),
)
def test_graph_trajectory_any_runs_any_patterns(
    partial: bool, eval_results: bool, threshold: float | None, outputs: Any, references: Any
) -> None:
    factory_options = {
        "partial_credit": partial,
        "eval_results": eval_results,
        "threshold": threshold,
    }
    kind, evaluator = outcome(lambda: create_graph_trajectory_match_evaluator(**factory_options))
    if kind == "error":
        assert threshold is not None
        return
    before = copy.deepcopy((outputs, references))
    kind, result = outcome(lambda: evaluator(outputs=outputs, reference_outputs=references))
    event(f"graph_trajectory: {kind}")
    assert _same((outputs, references), before), "the evaluator mutated its inputs"
    async_evaluator = create_async_graph_trajectory_match_evaluator(**factory_options)
    async_kind, async_result = outcome(
        lambda: asyncio.run(async_evaluator(outputs=outputs, reference_outputs=references))
    )
    assert async_kind == kind
    if kind == "error":
        assert str(async_result) == str(result)
        return
    score = check_graph_result(result, partial=partial)
    assert _same(async_result, result)
    if partial:
        strict = create_graph_trajectory_match_evaluator(eval_results=eval_results)
        matched = strict(outputs=outputs, reference_outputs=references)["score"]
        assert (score == 1.0) is matched, (score, matched)


@SETTINGS
@given(
    steps=st.lists(SUPERSTEP, max_size=6),
    forbidden=st.lists(st.sampled_from(["a", "b", "*", ""]), max_size=2),
    limit=st.integers(0, 3),
    budget=st.one_of(st.none(), st.integers(0, 6)),
    before=st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), max_size=2),
)
def test_graph_rules_any_runs(
    steps: list[list[str]],
    forbidden: list[str],
    limit: int,
    budget: int | None,
    before: list[tuple[str, str]],
) -> None:
    evaluator = create_graph_trajectory_rules_evaluator(
        forbidden=forbidden, max_visits={"a": limit}, max_supersteps=budget, before=before
    )
    results = evaluator(outputs=run_value(steps))
    expected_keys = [
        *(["graph_trajectory_forbidden"] if forbidden else []),
        "graph_trajectory_max_visits",
        *(["graph_trajectory_max_supersteps"] if budget is not None else []),
        *(["graph_trajectory_before"] if before else []),
    ]
    assert [r["key"] for r in results] == expected_keys
    ran = [node for superstep in steps for node in superstep]
    for result in results:
        assert isinstance(result["score"], bool) and isinstance(result["comment"], str)
        if result["key"] == "graph_trajectory_forbidden":
            assert result["score"] is not any(node in forbidden for node in ran)
        if result["key"] == "graph_trajectory_max_visits":
            assert result["score"] is (ran.count("a") <= limit)
        if result["key"] == "graph_trajectory_max_supersteps":
            assert result["score"] is (budget is None or len(steps) <= budget)


@SETTINGS
@given(outputs=run_values())
def test_graph_rules_any_outputs(outputs: Any) -> None:
    evaluator = create_graph_trajectory_rules_evaluator(forbidden=["a"], max_supersteps=3)
    kind, results = outcome(lambda: evaluator(outputs=outputs))
    if kind == "ok":
        assert [r["key"] for r in results] == [
            "graph_trajectory_forbidden",
            "graph_trajectory_max_supersteps",
        ]
        assert all(isinstance(r["score"], bool) for r in results)


@SETTINGS
@given(
    partial=st.booleans(),
    outputs=st.one_of(VALID_RUN, st.lists(VALID_RUN, min_size=1, max_size=2)),
    data=st.data(),
)
def test_graph_trajectory_well_formed_patterns_always_give_a_result(
    partial: bool, outputs: Any, data: st.DataObject
) -> None:
    count = len(outputs) if isinstance(outputs, list) else None
    references = (
        data.draw(VALID_REFERENCE)
        if count is None
        else [data.draw(VALID_REFERENCE) for _ in range(count)]
    )
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=partial)
    result = evaluator(outputs=outputs, reference_outputs=references)
    score = check_graph_result(result, partial=partial)
    strict = create_graph_trajectory_match_evaluator()(
        outputs=outputs, reference_outputs=references
    )
    assert (score == 1.0) is strict["score"]
    if not strict["score"]:
        assert "run " in result["comment"]
