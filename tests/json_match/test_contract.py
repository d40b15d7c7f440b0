"""openevals' own contract and the seed article's demos, case by case."""

from __future__ import annotations

from typing import Any

import pytest
from openevals.json import create_json_match_evaluator as openevals_json_match

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator


def person(name: str, age: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "age": age, **extra}


def scores(results: list[Any]) -> dict[str, Any]:
    return {result["key"].removeprefix("json_match:"): result["score"] for result in results}


async def both(outputs: Any, references: Any, **options: Any) -> dict[str, Any]:
    """Scores from the sync and the async evaluator, asserted equal."""
    sync = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    asynchronous = await create_async_json_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )
    assert sync == asynchronous
    return scores(sync)


A1B2 = {"a": 1, "b": 2}

# (outputs, references, options, expected scores): the table of openevals' own tests.
CONTRACT = [
    (A1B2, A1B2, {}, {"a": 1, "b": 1}),
    (A1B2, {"a": 1, "b": 3}, {"aggregator": "average"}, {"average": 0.5}),
    (A1B2, {"a": 1, "b": 3}, {"aggregator": "all"}, {"all": 0}),
    (A1B2, {"a": 1, "b": 3}, {"aggregator": "average", "exclude_keys": ["b"]}, {"average": 1}),
    ([A1B2] * 2, [A1B2] * 2, {}, {"a": 1, "b": 1}),
    ([A1B2] * 2, [A1B2, {"a": 1, "b": 3}], {"list_aggregator": "average"}, {"a": 1, "b": 0.5}),
    (
        [A1B2] * 2,
        [A1B2, {"a": 1, "b": 3}],
        {"list_aggregator": "average", "aggregator": "all"},
        {"all": 0.5},
    ),
    ([A1B2] * 2, [A1B2, {"a": 2, "b": 2}], {"aggregator": "average"}, {"average": 0}),
    (
        [A1B2] * 2,
        [A1B2, {"a": 1, "b": 3}],
        {"list_aggregator": "average", "aggregator": "average"},
        {"average": 0.75},
    ),
    (
        [{"a": 1, "d": 2}, A1B2],
        [A1B2, {"a": 1, "b": 2, "c": 3}],
        {},
        {"a": 1, "b": 0, "c": 0, "d": 0},
    ),
    (
        [{"a": 1, "d": 2}, A1B2],
        [A1B2, {"a": 1, "b": 2, "c": 3}],
        {"list_aggregator": "average"},
        {"a": 1, "b": 0.5, "c": 0, "d": 0},
    ),
    (
        [{"a": 1, "d": 2}, A1B2],
        [A1B2, {"a": 1, "b": 2, "c": 3}],
        {"list_aggregator": "average", "aggregator": "average"},
        {"average": 0.5},
    ),
    (
        [{"a": 1, "b": 2, "d": 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3}],
        [{"a": 1, "b": 2, "d": 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3}],
        {"list_aggregator": "average", "aggregator": "average"},
        {"average": 5 / 6},
    ),
    (
        [{"a": 1}] * 2,
        [{"a": 1}] * 3,
        {"list_aggregator": "average", "aggregator": "average"},
        {"average": 2 / 3},
    ),
    (
        [{"a": 1}] * 3,
        [{"a": 1}] * 2,
        {"list_aggregator": "average", "aggregator": "average"},
        {"average": 2 / 3},
    ),
    (
        [{"a": 1, "d": 2, "e": 2}, {"b": 1}, {"c": 1}],
        [{"b": 1, "d": 2, "e": 2}, {"a": 1}, {"c": 1}],
        {"list_aggregator": "average", "aggregator": "average", "exclude_keys": ["d", "e"]},
        {"average": 1},
    ),
    (
        [{"id": {"value": 1}, "result": "a"}, {"id": {"value": 2}, "result": "b"}],
        [{"id": {"value": 2}, "result": "b"}, {"id": {"value": 1}, "result": "a"}],
        {"aggregator": "all"},
        {"all": 1},
    ),
    (
        [{"a": 1}, {"b": 1}, {"c": 1}],
        [{"b": 1}, {"a": 1}],
        {"list_match_mode": "superset", "list_aggregator": "average", "aggregator": "average"},
        {"average": 1},
    ),
    (
        [],
        [{"a": 1}],
        {"list_match_mode": "superset", "list_aggregator": "average", "aggregator": "average"},
        {"average": 0},
    ),
    (
        [{"a": 1}, {"b": 1}],
        [{"b": 1}, {"c": 1}, {"a": 1}],
        {"list_match_mode": "subset", "list_aggregator": "average", "aggregator": "average"},
        {"average": 1},
    ),
    (
        [{"a": 1}, {"b": 1}],
        [{"b": 1}, {"a": 1}],
        {"list_match_mode": "ordered", "list_aggregator": "average", "aggregator": "average"},
        {"average": 0},
    ),
    (
        [{"a": 1}, {"b": 1}, {"c": 1}],
        [{"a": 1}, {"b": 1}, {"d": 1}],
        {"list_match_mode": "ordered", "list_aggregator": "average", "aggregator": "average"},
        {"average": 2 / 3},
    ),
    (
        {"foo": [{"bar": 1, "baz": [True, None]}]},
        {"foo": [{"bar": 1, "baz": [True, None]}]},
        {"aggregator": "all"},
        {"all": 1},
    ),
    (
        {"foo": [{"bar": 1, "baz": [True, None]}]},
        {"foo": [{"bar": 2, "baz": [True, None]}]},
        {"aggregator": "all"},
        {"all": 0},
    ),
]

# The one contract row where openevals' greedy pairing is not the best pairing: greedy pairs
# {a:1,d:2} with the first reference (1/3) and leaves {a:1,b:2} with the second (2/3), while
# pairing each output with its closest reference gives 1/4 and 1 (openevals' score is kept by
# alignment="greedy").
OPTIMAL_DIFFERS = {11: {"average": (1 / 4 + 1) / 2}}


@pytest.mark.parametrize("alignment", ["greedy", "optimal"])
@pytest.mark.parametrize("row", range(len(CONTRACT)))
async def test_contract_table(row: int, alignment: str) -> None:
    outputs, references, options, expected = CONTRACT[row]
    if alignment == "optimal":
        expected = OPTIMAL_DIFFERS.get(row, expected)
    assert await both(outputs, references, alignment=alignment, **options) == expected


@pytest.mark.parametrize("row", range(len(CONTRACT)))
async def test_contract_table_with_compat_openevals(row: int) -> None:
    # openevals' own test values, with only compat="openevals" added: the same scores exactly
    outputs, references, options, expected = CONTRACT[row]
    pair = {"outputs": outputs, "reference_outputs": references}
    sync = create_json_match_evaluator(**options, compat="openevals")(**pair)
    asynchronous = await create_async_json_match_evaluator(**options, compat="openevals")(**pair)
    assert scores(sync) == scores(asynchronous) == expected
    assert sync == openevals_json_match(**options)(**pair)


async def test_results_are_always_a_list_of_full_result_dicts() -> None:
    results = create_json_match_evaluator(aggregator="average")(
        outputs=A1B2, reference_outputs=A1B2
    )
    assert results == [
        {"key": "json_match:average", "score": 1.0, "comment": None, "metadata": None}
    ]


async def test_seed_demo_aggregator() -> None:
    alice1 = person("Alice", 20, birth="1981-08-24")
    alice2 = person("Alice", 30, gender="female")
    assert await both(alice1, alice2) == {"age": 0, "birth": 0, "gender": 0, "name": 1}
    assert await both(alice1, alice2, aggregator="all") == {"all": 0}
    assert await both(alice1, alice2, aggregator="average") == {"average": 0.25}


@pytest.mark.parametrize(
    ("list_aggregator", "aggregator", "expected"),
    [
        ("all", None, {"age": 0, "name": 1}),
        ("all", "all", {"all": 0}),
        ("all", "average", {"average": 0}),
        ("average", None, {"age": 0.5, "name": 1.0}),
        ("average", "all", {"all": 0.5}),
        ("average", "average", {"average": 0.75}),
    ],
)
async def test_seed_demo_list_aggregator(
    list_aggregator: str, aggregator: str | None, expected: dict[str, Any]
) -> None:
    outputs = [person("Alice", 20), person("Bob", 20)]
    references = [person("Alice", 20), person("Bob", 30)]
    got = await both(outputs, references, list_aggregator=list_aggregator, aggregator=aggregator)
    assert got == expected
    # The seed prints these values; the types must print the same way (1 vs 1.0).
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


async def test_seed_demo_list_match_modes() -> None:
    alice, bob30, bob40 = person("Alice", 20), person("Bob", 30), person("Bob", 40)
    avg = {"list_aggregator": "average", "aggregator": "average"}
    all_avg = {"list_aggregator": "all", "aggregator": "average"}
    ordered = {"list_match_mode": "ordered"}
    superset = {"list_match_mode": "superset"}
    assert await both([bob30, alice], [alice, bob30], **avg, **ordered) == {"average": 0.0}
    assert await both([alice, bob30, bob40], [alice, bob30], **avg, **ordered) == {"average": 2 / 3}
    assert await both([alice, bob30, bob40], [alice, bob30], **all_avg, **ordered) == {"average": 0}
    assert await both([bob30, alice], [bob30], **avg, **superset) == {"average": 1.0}
    assert await both([bob30, alice], [bob30], **all_avg, **superset) == {"average": 1}
    assert await both([bob40, alice], [bob30], **avg, **superset) == {"average": 0.5}
    assert await both([bob40, alice], [bob30], **all_avg, **superset) == {"average": 0}


@pytest.mark.parametrize(
    ("mode", "greedy_expected"),
    [("same_elements", 0.5), ("subset", 0.5), ("superset", 0.75), ("ordered", 0.5)],
)
def test_greedy_shortfall_example_from_the_notes(mode: str, greedy_expected: float) -> None:
    """openevals pairs the two Ann records wrongly and scores 0.50; the best pairing gives 0.75."""
    ann = {"name": "Ann Lee", "company": "Acme", "city": "Paris"}
    outputs = [{**ann, "year": 2021}, {**ann, "year": 2020}]
    references = [
        {**ann, "year": 2020},
        {"name": "Bob Roy", "company": "Initech", "city": "Paris", "year": 2021},
    ]
    options = {"list_aggregator": "average", "aggregator": "average", "list_match_mode": mode}
    greedy = create_json_match_evaluator(alignment="greedy", **options)
    optimal = create_json_match_evaluator(**options)
    greedy_score = greedy(outputs=outputs, reference_outputs=references)[0]["score"]
    optimal_result = optimal(outputs=outputs, reference_outputs=references)[0]
    openevals_score = openevals_json_match(**options)(
        outputs=outputs, reference_outputs=references
    )[0]["score"]
    assert greedy_score == openevals_score == greedy_expected
    if mode == "ordered":
        assert optimal_result["score"] == 0.5
    else:
        assert optimal_result["score"] == 0.75
        pairs = [[0, 1], [1, 0]]  # superset lists pairs in reference order
        expected_pairs = sorted(pairs, key=lambda p: p[1]) if mode == "superset" else pairs
        assert optimal_result["metadata"]["alignment"] == expected_pairs
