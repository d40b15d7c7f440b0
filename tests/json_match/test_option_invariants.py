"""Invariants of the options json_match adds to openevals' (nested paths, list modes per path,
comparators, extra keys, null as missing, judge options), checked with hypothesis."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.json_match import (
    comparators,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from tests.json_match.strategies import (
    KEYS,
    OPTIONS,
    RECORD_LISTS,
    RECORDS,
    SCALARS,
    pairs_of_inputs,
)

NEW_OPTION_DEFAULTS = {
    "nested": False,
    "list_match_modes": None,
    "comparators": None,
    "extra_keys": "penalize",
    "none_is_missing": False,
    "judge_identical": False,
    "on_judge_error": "raise",
}

BUILT_INS = [
    comparators.exact(),
    comparators.numeric(abs_tol=0.5, parse_strings=True),
    comparators.text(),
    comparators.text(case=True, whitespace=True, unicode=None),
    comparators.unordered(),
    comparators.one_of(["x"]),
    comparators.regex(r"\d+"),
    comparators.similar(min_ratio=0.6),
]


def without_mismatches(results: list[Any]) -> list[Any]:
    """Results as they were with openevals' options alone: metadata without the mismatches."""
    shaped = []
    for result in results:
        metadata = result["metadata"]
        if metadata is not None and "mismatches" in metadata:
            alignment = metadata["alignment"]
            metadata = None if alignment is None else {"alignment": alignment}
        shaped.append({**result, "metadata": metadata})
    return shaped


GOLDEN = Path(__file__).parent / "data" / "plain_options_golden.json"


def test_with_no_new_option_results_equal_the_recorded_ones() -> None:
    """500 seeded random cases, with the results recorded before the other options existed."""
    cases = json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    for case in cases:
        outputs, references = case["outputs"], case["reference_outputs"]
        new = create_json_match_evaluator(**case["options"])(
            outputs=outputs, reference_outputs=references
        )
        assert without_mismatches(new) == case["results"], case
        for result in new:
            if result["score"] != 1:
                assert result["metadata"]["mismatches"], result


@settings(max_examples=200, deadline=None)
@given(inputs=pairs_of_inputs(), options=OPTIONS)
def test_explicit_defaults_of_the_new_options_change_nothing(
    inputs: tuple[Any, Any], options: dict[str, Any]
) -> None:
    outputs, references = inputs
    new = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    explicit = create_json_match_evaluator(**options, **NEW_OPTION_DEFAULTS)
    assert explicit(outputs=outputs, reference_outputs=references) == new


NESTED_VALUES = st.recursive(
    SCALARS | st.sampled_from(["X", " x", "10"]),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    ),
    max_leaves=8,
)
DOCUMENTS = st.dictionaries(st.sampled_from(KEYS), NESTED_VALUES, max_size=4)
NEW_OPTIONS = st.fixed_dictionaries(
    {
        "nested": st.booleans(),
        "extra_keys": st.sampled_from(["penalize", "ignore"]),
        "none_is_missing": st.booleans(),
        "comparators": st.sampled_from(
            [
                None,
                {"a": comparators.text()},
                {"**": comparators.similar(min_ratio=0.3)},
                {
                    "*": comparators.numeric(abs_tol=1, parse_strings=True),
                    "b": comparators.unordered(),
                },
                {"c[*]": comparators.text(), "[*]": comparators.text()},
            ]
        ),
        "exclude_keys": st.sampled_from([[], ["d"], ["*.b"], ["**.e_f"]]),
        "list_match_modes": st.sampled_from([None, {"c": "ordered"}, {"*": "superset"}]),
    }
)


@settings(max_examples=250, deadline=None)
@given(
    inputs=st.one_of(
        st.tuples(DOCUMENTS, DOCUMENTS),
        st.tuples(st.lists(DOCUMENTS, max_size=4), st.lists(DOCUMENTS, max_size=4)),
        st.tuples(st.lists(SCALARS, max_size=5), st.lists(SCALARS, max_size=5)),
    ),
    options=OPTIONS,
    new=NEW_OPTIONS,
)
def test_sync_equals_async_with_every_new_option(
    inputs: tuple[Any, Any], options: dict[str, Any], new: dict[str, Any]
) -> None:
    if not new["nested"]:
        new = {**new, "list_match_modes": None}
    outputs, references = inputs
    merged = {**options, **new}
    sync = create_json_match_evaluator(**merged)(outputs=outputs, reference_outputs=references)
    asynchronous = asyncio.run(
        create_async_json_match_evaluator(**merged)(outputs=outputs, reference_outputs=references)
    )
    assert sync == asynchronous
    for result in sync:
        assert 0 <= result["score"] <= 1
        assert (result["comment"] is None) == (result["score"] == 1), result
        if result["score"] != 1:
            assert result["metadata"]["mismatches"] or result["metadata"].get("mismatches_omitted")


@settings(max_examples=150, deadline=None)
@given(
    value=st.one_of(DOCUMENTS, st.lists(DOCUMENTS, max_size=4), st.lists(SCALARS, max_size=4)),
    comparator=st.sampled_from(BUILT_INS),
    nested=st.booleans(),
    aggregator=st.sampled_from([None, "average", "all"]),
    mode=st.sampled_from(["same_elements", "subset", "superset", "ordered"]),
)
def test_a_value_compared_with_itself_scores_one_under_every_comparator(
    value: Any, comparator: Any, nested: bool, aggregator: str | None, mode: str
) -> None:
    evaluator = create_json_match_evaluator(
        nested=nested,
        comparators={"**": comparator, "[*]": comparator},
        aggregator=aggregator,
        list_match_mode=mode,
    )
    results = evaluator(outputs=value, reference_outputs=value)
    assert all(result["score"] == 1 for result in results), results


@given(
    number=st.integers(-(10**6), 10**6) | st.floats(allow_nan=True, allow_infinity=False),
    text=st.text(max_size=20),
    values=st.lists(SCALARS, max_size=5),
)
def test_symmetric_built_ins_accept_a_value_as_itself(
    number: float, text: str, values: list[Any]
) -> None:
    assert comparators.exact()(values, values)
    assert comparators.numeric()(number, number)
    assert comparators.numeric(parse_strings=True)(str(number), number)
    assert comparators.text()(text, text)
    assert comparators.text(case=True, whitespace=True, unicode=None)(text, text)
    assert comparators.unordered()(values, values) == 1
    assert comparators.similar(min_ratio=1.0)(text, text) == 1
    assert comparators.one_of([text])(text, "anything")


@settings(max_examples=150, deadline=None)
@given(
    inputs=st.one_of(
        st.tuples(
            st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=4),
            st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=4),
        ),
        st.tuples(
            st.lists(st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=3), max_size=4),
            st.lists(st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=3), max_size=4),
        ),
    ),
    options=OPTIONS,
)
def test_nested_equals_flat_on_flat_records(
    inputs: tuple[Any, Any], options: dict[str, Any]
) -> None:
    outputs, references = inputs
    flat = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    nested = create_json_match_evaluator(nested=True, **options)(
        outputs=outputs, reference_outputs=references
    )
    assert nested == flat


@settings(max_examples=100, deadline=None)
@given(outputs=RECORD_LISTS, data=st.data())
def test_a_shuffled_copy_scores_one_nested(outputs: list[Any], data: Any) -> None:
    references = data.draw(st.permutations(outputs))
    for mode in ("same_elements", "subset", "superset"):
        results = create_json_match_evaluator(nested=True, list_match_mode=mode, aggregator="all")(
            outputs=outputs, reference_outputs=references
        )
        assert results[0]["score"] == 1, (mode, results)


@settings(max_examples=100, deadline=None)
@given(record=RECORDS)
def test_json_strings_score_like_their_objects(record: dict[str, Any]) -> None:
    import json

    evaluator = create_json_match_evaluator(nested=True)
    assert evaluator(outputs=json.dumps(record), reference_outputs=record) == evaluator(
        outputs=record, reference_outputs=json.loads(json.dumps(record))
    )


def _scripted_answer(schema: dict[str, Any], _: Any) -> dict[str, Any]:
    """A deterministic judge: accepts fields whose answer name has an even length."""
    return {
        name: {"score": len(name) % 2 == 0, "reasoning": f"r-{name}"}
        for name in schema["properties"]
    }


@settings(max_examples=150, deadline=None)
@given(
    inputs=st.one_of(
        st.tuples(DOCUMENTS, DOCUMENTS),
        st.tuples(st.lists(DOCUMENTS, max_size=3), st.lists(DOCUMENTS, max_size=3)),
    ),
    options=OPTIONS,
    nested=st.booleans(),
    rubric=st.sampled_from([{"a": "same"}, {"*": "same"}, {"**.b": "same", "c[*].a": "same"}]),
    judge_identical=st.booleans(),
)
def test_sync_equals_async_with_a_judge_and_at_most_one_call(
    inputs: tuple[Any, Any],
    options: dict[str, Any],
    nested: bool,
    rubric: dict[str, str],
    judge_identical: bool,
) -> None:
    from tests.scripted_judge import ScriptedJudge

    outputs, references = inputs
    judges = [ScriptedJudge(answer=_scripted_answer), ScriptedJudge(answer=_scripted_answer)]
    settings_ = {**options, "nested": nested, "rubric": rubric, "judge_identical": judge_identical}
    sync = create_json_match_evaluator(judge=judges[0], **settings_)(
        outputs=outputs, reference_outputs=references
    )
    asynchronous = asyncio.run(
        create_async_json_match_evaluator(judge=judges[1], **settings_)(
            outputs=outputs, reference_outputs=references
        )
    )
    assert sync == asynchronous
    assert len(judges[0].calls) == len(judges[1].calls) <= 1
    for result in sync:
        assert 0 <= result["score"] <= 1
