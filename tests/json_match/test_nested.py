"""nested=True: leaf paths, nested lists, per-path list modes, globbed rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from matchevals.json_match import create_json_match_evaluator
from tests.json_match.helpers import both, scores

REFERENCE_INVOICE = {
    "number": "INV-7",
    "customer": {"name": "Ada", "address": {"city": "Paris", "zip": "75001"}},
    "lines": [
        {"sku": "A", "qty": 1, "price": 10.0},
        {"sku": "B", "qty": 2, "price": 5.0},
    ],
}
OUTPUT_INVOICE = {
    "number": "INV-7",
    "customer": {"name": "Ada", "address": {"city": "Paris", "zip": "75002"}},
    "lines": [
        {"sku": "B", "qty": 2, "price": 5.0},  # listed in another order
        {"sku": "A", "qty": 3, "price": 10.0},
    ],
}


async def test_openevals_scores_a_whole_nested_value_zero_nested_scores_its_leaves() -> None:
    assert scores(await both(OUTPUT_INVOICE, REFERENCE_INVOICE)) == {
        "customer": 0,
        "lines": 0,
        "number": 1,
    }
    results = await both(OUTPUT_INVOICE, REFERENCE_INVOICE, nested=True)
    assert scores(results) == {
        "customer.address.city": 1,
        "customer.address.zip": 0,
        "customer.name": 1,
        "lines[*].price": 1,
        "lines[*].qty": 0,
        "lines[*].sku": 1,
        "number": 1,
    }
    by_key = {result["key"]: result for result in results}
    assert by_key["json_match:customer.address.zip"]["comment"] == (
        'customer.address.zip: expected "75001", got "75002"'
    )
    # The line items are paired (B with B, A with A) before their leaves are compared.
    qty = by_key["json_match:lines[*].qty"]
    assert qty["comment"] == (
        "lines[*].qty (outputs.lines[1] vs reference_outputs.lines[0]): expected 1, got 3"
    )
    assert qty["metadata"]["list_alignments"] == [
        {
            "outputs": "outputs.lines",
            "reference_outputs": "reference_outputs.lines",
            "pairs": [[0, 1], [1, 0]],
        }
    ]
    assert qty["metadata"]["mismatches"] == [
        {
            "path": "lines[*].qty",
            "expected": 1,
            "actual": 3,
            "score": 0,
            "outputs": "outputs.lines[1]",
            "reference_outputs": "reference_outputs.lines[0]",
        }
    ]


async def test_aggregators_work_over_leaf_paths() -> None:
    # Paths: number 1, customer.name 1, city 1, zip 0, lines[*].sku 1, price 1, qty: one of
    # two line items wrong -> list_aggregator over its occurrences.
    average = await both(
        OUTPUT_INVOICE, REFERENCE_INVOICE, nested=True, aggregator="average", list_aggregator="all"
    )
    assert average[0]["score"] == 5 / 7
    average_average = await both(
        OUTPUT_INVOICE,
        REFERENCE_INVOICE,
        nested=True,
        aggregator="average",
        list_aggregator="average",
    )
    assert average_average[0]["score"] == (5 + 0.5) / 7
    per_path = await both(OUTPUT_INVOICE, REFERENCE_INVOICE, nested=True, list_aggregator="average")
    assert scores(per_path)["lines[*].qty"] == 0.5
    everything = await both(OUTPUT_INVOICE, REFERENCE_INVOICE, nested=True, aggregator="all")
    assert everything[0]["score"] == 0
    assert everything[0]["comment"] == (
        'customer.address.zip: expected "75001", got "75002"; '
        "lines[*].qty (outputs.lines[1] vs reference_outputs.lines[0]): expected 1, got 3"
    )


async def test_a_top_level_list_of_nested_documents() -> None:
    second = copy.deepcopy(REFERENCE_INVOICE)
    second["number"] = "INV-8"
    outputs = [copy.deepcopy(second), OUTPUT_INVOICE]
    references = [REFERENCE_INVOICE, second]
    results = await both(outputs, references, nested=True, list_aggregator="average")
    got = scores(results)
    # The documents pair by content (INV-7 with INV-7); qty is wrong in one of four line items.
    assert got["lines[*].qty"] == 0.75
    assert got["customer.address.zip"] == 0.5
    assert got["number"] == 1.0
    assert results[0]["metadata"]["alignment"] == [[0, 1], [1, 0]]
    (average,) = await both(
        outputs, references, nested=True, aggregator="average", list_aggregator="average"
    )
    # Document INV-8 scores 1; INV-7 scores (5 + 0.5) / 7 (see above).
    assert average["score"] == pytest.approx((1 + 5.5 / 7) / 2)


async def test_list_match_modes_by_path() -> None:
    outputs = {"lines": [{"sku": "A"}, {"sku": "B"}, {"sku": "C"}], "tags": ["x", "y"]}
    references = {"lines": [{"sku": "B"}, {"sku": "A"}], "tags": ["y", "x"]}
    assert scores(await both(outputs, references, nested=True)) == {"lines[*].sku": 0, "tags": 1}
    assert scores(
        await both(outputs, references, nested=True, list_match_modes={"lines": "superset"})
    ) == {"lines[*].sku": 1, "tags": 1}
    assert scores(
        await both(
            outputs,
            references,
            nested=True,
            list_match_modes={"lines": "superset", "tags": "ordered"},
            list_aggregator="average",
        )
    ) == {"lines[*].sku": 1.0, "tags": 0.0}
    # Globs select lists too.
    assert scores(
        await both(outputs, references, nested=True, list_match_modes={"*": "superset"})
    ) == {"lines[*].sku": 1, "tags": 1}


async def test_unmatched_nested_items_zero_each_of_their_leaves() -> None:
    outputs = {"lines": [{"sku": "A", "qty": 1}]}
    references = {"lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}]}
    results = await both(outputs, references, nested=True, list_aggregator="average")
    assert scores(results) == {"lines[*].qty": 0.5, "lines[*].sku": 0.5}
    assert results[0]["comment"] == "reference_outputs.lines[1] has no partner in outputs.lines"
    assert results[0]["metadata"]["mismatches"] == [
        {
            "path": "lines[*]",
            "expected": {"sku": "B", "qty": 2},
            "actual": None,
            "score": 0,
            "kind": "unmatched",
            "outputs": None,
            "reference_outputs": "reference_outputs.lines[1]",
        }
    ]


async def test_lists_inside_list_items_and_plain_value_lists() -> None:
    outputs = {"orders": [{"id": 1, "items": [{"sku": "A"}, {"sku": "B"}], "tags": ["a", "b"]}]}
    references = {"orders": [{"id": 1, "items": [{"sku": "B"}, {"sku": "C"}], "tags": ["b", "a"]}]}
    got = scores(await both(outputs, references, nested=True, list_aggregator="average"))
    assert got == {"orders[*].id": 1.0, "orders[*].items[*].sku": 0.5, "orders[*].tags": 1.0}


@pytest.mark.parametrize(
    ("outputs", "references", "expected"),
    [
        # an object against a string scores 0 once, where they meet
        ({"a": {"b": 1}}, {"a": "text"}, {"a": 0}),
        # a key on one side only expands into that side's leaves
        ({"a": {"b": 1, "c": {"d": 2}}}, {}, {"a.b": 0, "a.c.d": 0}),
        ({}, {"a": {"b": 1}}, {"a.b": 0}),
        # empty objects and lists are leaves
        ({"a": {}, "l": []}, {"a": {}, "l": []}, {"a": 1, "l": 1}),
        ({"a": {}}, {"a": {"b": 1}}, {"a.b": 0}),
        ({"a": {}}, {}, {"a": 0}),
        # a list on one side only scores 0 once, under its path
        ({"l": [{"x": 1}]}, {}, {"l": 0}),
        # nothing to score
        ({}, {}, {}),
    ],
)
async def test_shapes(outputs: Any, references: Any, expected: dict[str, Any]) -> None:
    assert scores(await both(outputs, references, nested=True)) == expected


async def test_globbed_excludes() -> None:
    outputs = {
        "user": {"name": "Ada", "internal_id": 1, "meta": {"internal_trace": "x"}},
        "items": [{"id": 9, "name": "pen"}],
        "internal_rev": 3,
    }
    references = {
        "user": {"name": "Ada", "internal_id": 2, "meta": {"internal_trace": "y"}},
        "items": [{"id": 1, "name": "pen"}],
        "internal_rev": 4,
    }
    assert scores(
        await both(outputs, references, nested=True, exclude_keys=["*.internal_*", "items[*].id"])
    ) == {
        "internal_rev": 0,
        "items[*].name": 1,
        "user.meta.internal_trace": 0,
        "user.name": 1,
    }
    assert scores(
        await both(outputs, references, nested=True, exclude_keys=["**.internal_*", "items[*].id"])
    ) == {"items[*].name": 1, "user.name": 1}
    # Excluding a path excludes everything below it.
    assert (
        scores(
            await both(
                outputs, references, nested=True, exclude_keys=["user", "items", "internal_*"]
            )
        )
        == {}
    )


async def test_globs_apply_to_top_level_keys_without_nested() -> None:
    outputs = {"name": "Ada", "debug_a": 1, "debug_b": 2}
    references = {"name": "Ada", "debug_a": 3}
    assert scores(await both(outputs, references, exclude_keys=["debug_*"])) == {"name": 1}


async def test_extra_keys_and_null_handling_in_nested_documents() -> None:
    outputs = {"a": {"x": 1, "note": "extra"}, "b": None}
    references = {"a": {"x": 1}, "c": None}
    assert scores(await both(outputs, references, nested=True)) == {
        "a.note": 0,
        "a.x": 1,
        "b": 0,
        "c": 0,
    }
    assert scores(await both(outputs, references, nested=True, extra_keys="ignore")) == {
        "a.x": 1,
        "c": 0,
    }
    assert scores(await both(outputs, references, nested=True, none_is_missing=True)) == {
        "a.note": 0,
        "a.x": 1,
    }


def test_errors_name_the_argument_and_the_path() -> None:
    class Opaque:
        __hash__ = None  # type: ignore[assignment]

    evaluator = create_json_match_evaluator(nested=True)
    with pytest.raises(TypeError, match=r"outputs\.lines\[1\]\.sku: a value of type Opaque"):
        evaluator(
            outputs={"lines": [{"sku": "A"}, {"sku": Opaque()}]},
            reference_outputs={"lines": [{"sku": "B"}, {"sku": "C"}]},
        )
    deep: Any = {}
    cursor = deep
    for _ in range(400):
        cursor["a"] = {}
        cursor = cursor["a"]
    with pytest.raises(ValueError, match="nested too deeply"):
        evaluator(outputs=deep, reference_outputs=deep)
    deep_list: Any = []
    cursor = deep_list
    for _ in range(3000):
        cursor.append([])
        cursor = cursor[0]
    for nested in (True, False):
        with pytest.raises(ValueError, match="nested too deeply"):
            create_json_match_evaluator(nested=nested)(
                outputs={"a": deep_list}, reference_outputs={"a": [deep_list]}
            )
    with pytest.raises(ValueError, match=r"list_match_modes.*nested=True"):
        create_json_match_evaluator(list_match_modes={"a": "ordered"})
    with pytest.raises(ValueError, match=r"list_match_modes\['a'\]"):
        create_json_match_evaluator(nested=True, list_match_modes={"a": "any"})
    with pytest.raises(TypeError, match="nested must be a bool"):
        create_json_match_evaluator(nested="yes")


@pytest.mark.parametrize("aggregator", [None, "average", "all"])
def test_nested_inputs_are_never_mutated(aggregator: str | None) -> None:
    outputs = [copy.deepcopy(OUTPUT_INVOICE), {"lines": [{"sku": None}], "x": [1, [2]]}]
    references = [copy.deepcopy(REFERENCE_INVOICE), {"lines": [], "x": [[2], 1]}]
    before = copy.deepcopy((outputs, references))
    create_json_match_evaluator(
        nested=True, aggregator=aggregator, none_is_missing=True, exclude_keys=["**.zip"]
    )(outputs=outputs, reference_outputs=references)
    assert (outputs, references) == before


def test_paths_with_nested_rules_and_comparators_stop_at_that_path() -> None:
    from matchevals.json_match import comparators

    evaluator = create_json_match_evaluator(
        nested=True, comparators={"tags": comparators.unordered()}, aggregator="average"
    )
    (result,) = evaluator(
        outputs={"tags": ["a", "c"], "n": 1}, reference_outputs={"tags": ["a", "b"], "n": 1}
    )
    assert result["score"] == (0.5 + 1) / 2
