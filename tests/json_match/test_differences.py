"""Where matchevals differs from openevals on purpose, and its explanations and errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator

AGGREGATORS = [None, "average", "all"]
MODES = ["same_elements", "subset", "superset", "ordered"]


def evaluate(outputs: Any, references: Any, **options: Any) -> list[dict[str, Any]]:
    return create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)


@pytest.mark.parametrize("list_aggregator", ["all", "average"])
@pytest.mark.parametrize("aggregator", AGGREGATORS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("outputs", "references", "options"),
    [
        ({}, {}, {}),
        ([], [], {}),
        ([{}], [{}], {}),
        ([{}, {}], [{}, {}], {}),
        ({"a": 1, "b": 2}, {"a": 2, "c": 3}, {"exclude_keys": ["a", "b", "c"]}),
        ([{"a": 1}, {"a": 2}], [{"a": 3}, {"a": 4}], {"exclude_keys": ["a"]}),
    ],
)
def test_nothing_to_score_is_a_perfect_match(
    outputs: Any,
    references: Any,
    options: dict[str, Any],
    aggregator: str | None,
    list_aggregator: str,
    mode: str,
) -> None:
    results = evaluate(
        outputs,
        references,
        aggregator=aggregator,
        list_aggregator=list_aggregator,
        list_match_mode=mode,
        **options,
    )
    if aggregator is None:
        assert results == []
    else:
        assert [(r["key"], r["score"]) for r in results] == [(f"json_match:{aggregator}", 1)]


def test_a_key_absent_from_both_items_of_a_pair_is_not_scored() -> None:
    # "b" appears at two indices, but the first pair has it on neither side.
    outputs = [{"a": 1}, {"a": 2, "b": 1}, {"a": 3, "b": 1}]
    references = [{"a": 1}, {"a": 2, "b": 1}, {"a": 3, "b": 1}]
    for aggregator in AGGREGATORS:
        for list_aggregator in ["all", "average"]:
            results = evaluate(
                outputs, references, aggregator=aggregator, list_aggregator=list_aggregator
            )
            assert all(result["score"] == 1 for result in results)


def test_values_compare_as_json() -> None:
    assert evaluate({"a": True}, {"a": 1}, aggregator="all")[0]["score"] == 0
    assert evaluate({"a": 1}, {"a": 1.0}, aggregator="all")[0]["score"] == 1
    assert evaluate({"a": "10"}, {"a": 10}, aggregator="all")[0]["score"] == 0
    assert (
        evaluate({"a": [1, {"b": False}]}, {"a": [1, {"b": 0}]}, aggregator="all")[0]["score"] == 0
    )
    assert (
        evaluate({"a": {"x": [1, 2.0]}}, {"a": {"x": [1.0, 2]}}, aggregator="all")[0]["score"] == 1
    )
    assert evaluate({"a": [1, 2]}, {"a": [2, 1]}, aggregator="all")[0]["score"] == 0
    assert evaluate({"a": float("nan")}, {"a": float("nan")}, aggregator="all")[0]["score"] == 1


def test_bool_and_int_items_are_not_paired_as_identical() -> None:
    results = evaluate([{"a": True}], [{"a": 1}], aggregator="all")
    assert results[0]["score"] == 0


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("aggregator", "mean"),
        ("list_aggregator", "any"),
        ("list_match_mode", "same_items"),
        ("alignment", "hungarian"),
    ],
)
def test_unknown_option_values_are_rejected_by_the_factory(argument: str, value: str) -> None:
    for factory in (create_json_match_evaluator, create_async_json_match_evaluator):
        with pytest.raises(ValueError, match=argument):
            factory(**{argument: value})


def test_bad_option_types_are_rejected_by_the_factory() -> None:
    with pytest.raises(TypeError, match="exclude_keys"):
        create_json_match_evaluator(exclude_keys="name")
    with pytest.raises(TypeError, match=r"exclude_keys\[1\]"):
        create_json_match_evaluator(exclude_keys=["a", 2])
    with pytest.raises(TypeError, match="rubric"):
        create_json_match_evaluator(rubric=["a"], model="openai:x")
    with pytest.raises(ValueError, match="judge"):
        create_json_match_evaluator(rubric={"a": "same"})
    with pytest.raises(ValueError, match="rubric"):
        create_json_match_evaluator(model="openai:gpt-4o")


@pytest.mark.parametrize(
    ("outputs", "references", "message"),
    [
        (5, {"a": 1}, "outputs is a number, expected an object or a list of objects"),
        ('"text"', {"a": 1}, "outputs is a string holding a JSON string, expected an object"),
        (None, {"a": 1}, "outputs is a null value, expected an object or a list of objects"),
        ({"a": 1}, None, "reference_outputs is a null value, expected an object"),
        ({"a": 1}, [{"a": 1}], "outputs is an object but reference_outputs is a list"),
        ([{"a": 1}], {"a": 1}, "outputs is a list but reference_outputs is an object"),
        (["a", {"b": 1}], ["a"], r"outputs\[1\] is an object, expected a plain value"),
        (
            [{"a": 1}],
            [{"a": 1}, {"a": 1}, {"a": 1}, "x"],
            r"reference_outputs\[3\] is a string, expected an object",
        ),
        ([{"a": 1}, 5], [{"a": 1}], r"outputs\[1\] is a number, expected an object"),
    ],
)
async def test_bad_inputs_get_a_type_error_naming_the_argument_and_item(
    outputs: Any, references: Any, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        evaluate(outputs, references)
    with pytest.raises(TypeError, match=message):
        await create_async_json_match_evaluator()(outputs=outputs, reference_outputs=references)


def test_every_failing_result_explains_itself() -> None:
    results = evaluate(
        {"name": "Alice", "age": 20, "birth": "1981-08-24"},
        {"name": "Alice", "age": 30, "gender": "female"},
    )
    assert {r["key"]: r["comment"] for r in results} == {
        "json_match:age": "age: expected 30, got 20",
        "json_match:birth": 'birth: not in reference_outputs, got "1981-08-24"',
        "json_match:gender": 'gender: missing from outputs, expected "female"',
        "json_match:name": None,
    }
    (average,) = evaluate({"a": 1, "b": "x"}, {"a": 2, "b": "x"}, aggregator="average")
    assert average["comment"] == "a: expected 2, got 1"


def test_list_comments_name_the_items_and_metadata_holds_the_pairing() -> None:
    outputs = [{"id": 1, "city": "Paris"}, {"id": 2, "city": "Rome"}, {"id": 3, "city": "Oslo"}]
    references = [{"id": 2, "city": "Rome"}, {"id": 1, "city": "Lyon"}]
    (result,) = evaluate(outputs, references, aggregator="average", list_aggregator="average")
    assert result["metadata"]["alignment"] == [[0, 1], [1, 0], [2, None]]
    assert result["comment"] == (
        'city (outputs[0] vs reference_outputs[1]): expected "Lyon", got "Paris"; '
        "outputs[2] has no partner in reference_outputs"
    )
    per_key = evaluate(outputs, references, list_match_mode="superset")
    assert {r["key"]: r["comment"] for r in per_key} == {
        "json_match:city": (
            'city (outputs[0] vs reference_outputs[1]): expected "Lyon", got "Paris"'
        ),
        "json_match:id": None,
    }
    missing = evaluate([{"a": 1}], [{"a": 1}, {"a": 2}], aggregator="all")
    assert missing[0]["comment"] == "reference_outputs[1] has no partner in outputs"


def test_long_comments_are_truncated() -> None:
    outputs = {f"k{i}": "x" * 200 for i in range(8)}
    references = {f"k{i}": "y" for i in range(8)}
    (result,) = evaluate(outputs, references, aggregator="all")
    assert result["comment"].endswith("… and 3 more")
    assert len(result["comment"]) < 600


def test_an_unmatched_empty_item_is_a_miss() -> None:
    assert evaluate([{}], [], aggregator="average")[0]["score"] == 0
    assert evaluate([{}], []) == [
        {
            "key": "json_match:<unmatched item>",
            "score": 0,
            "comment": "outputs[0] has no partner in reference_outputs",
            "metadata": {
                "alignment": [[0, None]],
                "mismatches": [
                    {
                        "path": None,
                        "expected": None,
                        "actual": {},
                        "score": 0,
                        "kind": "unmatched",
                        "outputs": "outputs[0]",
                        "reference_outputs": None,
                    }
                ],
            },
        }
    ]
    # Subset ignores extra references, superset extra outputs.
    assert evaluate([], [{}], list_match_mode="subset", aggregator="all")[0]["score"] == 1
    assert evaluate([{}], [], list_match_mode="superset", aggregator="all")[0]["score"] == 1


@pytest.mark.parametrize("aggregator", AGGREGATORS)
def test_inputs_are_never_mutated(aggregator: str | None) -> None:
    outputs = [{"a": 1, "b": [1, {"c": 2}]}, {"a": 2}, {}]
    references = [{"a": 2}, {"a": 1, "b": [1, {"c": 3}]}, {"d": None}]
    before = copy.deepcopy((outputs, references))
    evaluate(outputs, references, aggregator=aggregator, exclude_keys=["d"])
    assert (outputs, references) == before


def test_unhashable_non_json_values_get_a_type_error() -> None:
    class Opaque:
        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="Opaque"):
        evaluate([{"a": Opaque()}], [{"a": 1}, {"a": 2}])
    with pytest.raises(TypeError, match=r"outputs\[0\]\.a: a value of type Opaque has no JSON"):
        evaluate([{"a": Opaque()}], [{"a": 1}, {"a": 2}])


def test_evaluators_are_named_and_accept_extra_keywords() -> None:
    evaluator = create_json_match_evaluator()
    assert evaluator.__name__ == "json_match_evaluator"  # type: ignore[attr-defined]
    assert evaluator(outputs={"a": 1}, reference_outputs={"a": 1}, inputs={"q": 1}, run=None)
