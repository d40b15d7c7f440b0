"""The hot path for plain options gives exactly the results of the general path."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.json_match import create_json_match_evaluator
from matchevals.json_match._core import finish, prepare
from matchevals.json_match._fast import score_nested_objects, score_objects, scorer
from matchevals.json_match._fast import score_records as _score_records
from matchevals.json_match._options import JsonMatchOptions


def score_without_judge(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Any:
    return scorer(options)(outputs, reference_outputs)


KEYS = [f"k{i}" for i in range(40)] + ["a.b", "", "é"]
TRICKY_SCALARS = st.one_of(
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, math.nan, math.inf, 10**20, True, False, None]),
    st.sampled_from(["x", "y", "", "1", "true", "a" * 80, 'quote"d', "line\nbreak"]),
)
VALUES = st.recursive(
    TRICKY_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(KEYS[:4]), inner, max_size=3),
    ),
    max_leaves=5,
)


def twin(value: Any) -> Any:
    """A value equal as JSON but not as a Python object of the same type (1 -> 1.0, [] -> ())."""
    if type(value) is int:
        return float(value)
    if type(value) is float and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return tuple(twin(item) for item in value)
    if isinstance(value, tuple):
        return [twin(item) for item in value]
    if isinstance(value, dict):
        return {key: twin(item) for key, item in value.items()}
    return value


@st.composite
def similar_objects(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A reference and an output sharing most keys and values, so every case occurs."""
    reference = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=35))
    changes = st.sampled_from(["same", "same", "twin", "twin", "value", "drop"])
    output: dict[str, Any] = {}
    for key, value in reference.items():
        change = draw(changes)
        if change == "same":
            output[key] = value
        elif change == "twin":
            output[key] = twin(value)
        elif change == "value":
            output[key] = draw(VALUES)
    output.update(draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=3)))
    return output, reference


@settings(max_examples=400, deadline=None)
@given(pair=similar_objects(), aggregator=st.sampled_from([None, "average", "all"]))
def test_plain_objects_score_as_the_general_path_does(
    pair: tuple[dict[str, Any], dict[str, Any]], aggregator: str | None
) -> None:
    output, reference = pair
    options = JsonMatchOptions(aggregator=aggregator)  # type: ignore[arg-type]
    fast = score_objects(output, reference, aggregator)
    assert fast is not None, "string keys and JSON values never leave the hot path"
    general = finish(prepare(output, reference, options))
    assert repr(fast) == repr(general)  # same values, same types (1 vs 1.0), same key order


@pytest.mark.parametrize(
    ("output", "reference"),
    [
        ({"a": 1, "b": None}, {"a": 1, "c": None}),  # as many keys, not the same ones
        ({"a": 1, "b": 2}, {"c": 1, "d": 2}),
        ({"b": None}, {}),
        ({}, {"b": None}),
        ({"a": None}, {"a": None, "b": None}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1.0}),
    ],
)
@pytest.mark.parametrize("aggregator", [None, "average", "all"])
def test_key_sets_that_differ_score_as_the_general_path_does(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> None:
    options = JsonMatchOptions(aggregator=aggregator)  # type: ignore[arg-type]
    fast = score_objects(output, reference, aggregator)
    assert repr(fast) == repr(finish(prepare(output, reference, options)))


def test_each_call_returns_new_result_dicts() -> None:
    evaluator = create_json_match_evaluator()
    first = evaluator(outputs={"a": 1, "b": 1}, reference_outputs={"a": 1, "b": 2})
    first[0]["key"], first[0]["score"] = "changed", 0
    assert evaluator(outputs={"a": 1, "b": 1}, reference_outputs={"a": 1, "b": 2})[0] == {
        "key": "json_match:a",
        "score": 1,
        "comment": None,
        "metadata": None,
    }


def test_the_hot_path_is_taken_for_plain_objects_only() -> None:
    plain = JsonMatchOptions(aggregator="average")
    assert score_without_judge({"a": 1}, {"a": True}, plain)[0]["score"] == 0.0
    excluded = JsonMatchOptions.build(
        aggregator="average",
        list_aggregator="all",
        rubric=None,
        exclude_keys=["a"],
        use_reasoning=True,
        list_match_mode="same_elements",
        alignment="optimal",
    )
    assert not excluded.plain
    assert score_without_judge({"a": 1, "b": 2}, {"a": 3, "b": 2}, excluded)[0]["score"] == 1.0


@pytest.mark.parametrize("aggregator", [None, "average", "all"])
def test_non_string_keys_are_left_to_the_general_path(aggregator: str | None) -> None:
    output, reference = {1: "a", "b": 2}, {"1": "a", "b": 2}
    assert score_objects(output, reference, aggregator) is None  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"outputs has the key 1, a int"):
        score_without_judge(output, reference, JsonMatchOptions(aggregator=aggregator))  # type: ignore[arg-type]


def test_deep_values_are_left_to_the_general_path() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    assert score_objects({"a": deep}, {"a": [deep]}, "all") is None
    with pytest.raises(ValueError, match="nested too deeply"):
        score_without_judge({"a": deep}, {"a": [deep]}, JsonMatchOptions(aggregator="all"))


@st.composite
def similar_lists(draw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Lists of records where most outputs resemble a reference, in any order, some unmatched."""
    pairs = draw(st.lists(similar_objects(), max_size=6))
    outputs = [output for output, _ in pairs]
    references = [reference for _, reference in pairs]
    outputs += draw(st.lists(st.dictionaries(st.sampled_from(KEYS[:3]), VALUES), max_size=2))
    references += draw(st.lists(st.dictionaries(st.sampled_from(KEYS[:3]), VALUES), max_size=2))
    return draw(st.permutations(outputs)), references


@settings(max_examples=300, deadline=None)
@given(
    lists=similar_lists(),
    aggregator=st.sampled_from(["average", "all"]),
    list_aggregator=st.sampled_from(["average", "all"]),
    mode=st.sampled_from(["same_elements", "subset", "superset", "ordered"]),
    alignment=st.sampled_from(["optimal", "greedy"]),
)
def test_plain_records_score_as_the_general_path_does(
    lists: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    aggregator: str,
    list_aggregator: str,
    mode: str,
    alignment: str,
) -> None:
    outputs, references = lists
    options = JsonMatchOptions(
        aggregator=aggregator,  # type: ignore[arg-type]
        list_aggregator=list_aggregator,  # type: ignore[arg-type]
        list_match_mode=mode,  # type: ignore[arg-type]
        alignment=alignment,  # type: ignore[arg-type]
    )
    fast = _score_records(outputs, references, options)
    assert fast is not None
    assert repr([fast]) == repr(finish(prepare(outputs, references, options)))


NESTED_KEYS = ["a", "b", "c.d", "", "e"]
NESTED_LEAVES = st.one_of(
    TRICKY_SCALARS, st.just({}), st.just([]), st.lists(TRICKY_SCALARS, min_size=1, max_size=2)
)
DOCUMENTS = st.recursive(
    NESTED_LEAVES,
    lambda inner: st.dictionaries(st.sampled_from(NESTED_KEYS), inner, min_size=1, max_size=4),
    max_leaves=12,
).filter(lambda value: isinstance(value, dict))


@st.composite
def similar_documents(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two documents of mostly the same shape: leaves changed, dropped, twinned, reshaped."""
    reference = draw(DOCUMENTS)

    def vary(value: Any) -> Any:
        change = draw(st.sampled_from(["same", "same", "same", "twin", "value", "reshape"]))
        if isinstance(value, dict) and change != "reshape":
            varied = {}
            for key, item in value.items():
                if draw(st.integers(0, 5)) > 0:
                    varied[key] = vary(item)
            return varied
        if change == "twin":
            return twin(value)
        if change == "value":
            return draw(NESTED_LEAVES)
        if change == "reshape":
            return draw(DOCUMENTS | NESTED_LEAVES)
        return value

    output = vary(reference)
    return (output if isinstance(output, dict) else {"a": output}), reference


@settings(max_examples=400, deadline=None)
@given(pair=similar_documents(), aggregator=st.sampled_from([None, "average", "all"]))
def test_plain_nested_documents_score_as_the_general_walk_does(
    pair: tuple[dict[str, Any], dict[str, Any]], aggregator: str | None
) -> None:
    output, reference = pair
    options = JsonMatchOptions(aggregator=aggregator, nested=True)  # type: ignore[arg-type]
    fast = score_nested_objects(output, reference, aggregator)
    general = finish(prepare(output, reference, options))
    if fast is None:  # only documents with lists to pair leave the hot path
        assert "[" in repr((output, reference))
    else:
        assert repr(fast) == repr(general)


def test_nested_documents_without_lists_take_the_hot_path() -> None:
    output = {"a": {"b": 1, "c": {"d": "x"}}, "e": {}, "f": []}
    reference = {"a": {"b": 1.0, "c": {"d": "y", "g": True}}, "e": {}, "f": []}
    results = score_nested_objects(output, reference, None)
    assert results is not None
    assert [(r["key"], r["score"]) for r in results] == [
        ("json_match:a.b", 1),
        ("json_match:a.c.d", 0),
        ("json_match:a.c.g", 0),
        ("json_match:e", 1),
        ("json_match:f", 1),
    ]
    assert score_nested_objects({"a": [1]}, {"a": [2]}, None) is None  # a list to pair


def _outcome(score: Any, outputs: Any, references: Any) -> str:
    try:
        return repr(score(outputs, references))
    except (TypeError, ValueError) as error:
        return f"{type(error).__name__}: {error}"


INPUTS = st.one_of(
    similar_objects(),
    st.tuples(VALUES, VALUES),
    st.tuples(
        st.lists(st.dictionaries(st.sampled_from(KEYS[:4]), VALUES, max_size=3), max_size=4),
        st.lists(st.dictionaries(st.sampled_from(KEYS[:4]), VALUES, max_size=3), max_size=4),
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    pair=INPUTS,
    aggregator=st.sampled_from([None, "average", "all"]),
    list_aggregator=st.sampled_from(["average", "all"]),
    nested=st.booleans(),
)
def test_the_evaluators_scorer_equals_itself_with_the_fast_path_switched_off(
    pair: tuple[Any, Any], aggregator: str | None, list_aggregator: str, nested: bool
) -> None:
    # What an evaluator built with plain options runs (the fast path, handing some inputs back
    # to the general path) against the general path alone, on any input: same results, or the
    # same error.
    options = JsonMatchOptions(
        aggregator=aggregator,  # type: ignore[arg-type]
        list_aggregator=list_aggregator,  # type: ignore[arg-type]
        nested=nested,
    )
    outputs, references = pair
    fast = _outcome(scorer(options), outputs, references)
    assert fast == _outcome(scorer(options, fast=False), outputs, references)
