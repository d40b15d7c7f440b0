"""comparators={path: comparator}: built-ins, partial credit, pairing, errors."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from matchevals.json_match import (
    comparators,
    create_json_match_evaluator,
)
from tests.json_match.helpers import both, scores


async def test_a_person_record_with_numeric_tolerance_and_case_insensitive_names() -> None:
    output = {"name": "  ada LOVELACE ", "age": 36.4, "height_m": "1.651", "city": "London"}
    reference = {"name": "Ada Lovelace", "age": 36, "height_m": 1.65, "city": "Londres"}
    plain = scores(await both(output, reference))
    assert plain == {"age": 0, "city": 0, "height_m": 0, "name": 0}
    checked = await both(
        output,
        reference,
        comparators={
            "name": comparators.text(),
            "age": comparators.numeric(abs_tol=0.5),
            "height_m": comparators.numeric(rel_tol=0.01, parse_strings=True),
        },
    )
    assert scores(checked) == {"age": 1, "city": 0, "height_m": 1, "name": 1}
    strict_case = await both(output, reference, comparators={"name": comparators.text(case=True)})
    assert scores(strict_case)["name"] == 0


async def test_unordered_tag_lists() -> None:
    output = {"tags": ["b", "a", "c"]}
    reference = {"tags": ["a", "b", "d"]}
    assert scores(await both(output, reference)) == {"tags": 0}
    assert scores(await both(output, reference, comparators={"tags": comparators.unordered()})) == {
        "tags": 2 / 3
    }
    assert scores(
        await both(
            {"tags": ["b", "a"]}, {"tags": ["a", "b"]}, comparators={"*": comparators.unordered()}
        )
    ) == {"tags": 1}


def test_built_in_comparators() -> None:
    assert comparators.exact()(1, 1.0) is True
    assert comparators.exact()(True, 1) is False
    numeric = comparators.numeric(abs_tol=0.1)
    assert numeric(1.05, 1) and not numeric(1.2, 1) and not numeric(True, 1)
    assert not numeric("1", 1)
    assert comparators.numeric(parse_strings=True)(" 2.50 ", 2.5)
    assert not comparators.numeric(parse_strings=True)("1_0", 10)
    assert comparators.numeric(rel_tol=0.1)(105, 100)
    text = comparators.text()
    assert text("ＡＤＡ", "ada")  # NFKC folds full-width letters
    assert text("a \t b", " a b ")
    assert not text("ab", "a b")
    assert not comparators.text(whitespace=True)("a  b", "a b")
    assert not comparators.text(unicode=None)("ＡＤＡ", "ada")
    assert not text(1, "1")
    assert comparators.unordered()([1, 1, 2], [1, 2, 1]) == 1.0
    assert comparators.unordered()([1, 2], "12") == 0.0
    one_of = comparators.one_of(["US", "United States"])
    assert one_of("US", "USA") and not one_of("UK", "USA")
    assert comparators.regex(r"INV-\d+")("INV-42", "INV-1")
    assert not comparators.regex(r"INV-\d+")("INV-42x", "INV-1")
    similar = comparators.similar(min_ratio=0.8)
    assert similar("Pariss", "Paris") == pytest.approx(10 / 11)
    assert similar("Rome", "Paris") == 0.0
    assert similar("PARIS", "paris") == 1.0


@pytest.mark.parametrize(
    ("factory", "error"),
    [
        (lambda: comparators.numeric(abs_tol=-1), ValueError),
        (lambda: comparators.numeric(rel_tol="x"), TypeError),
        (lambda: comparators.text(unicode="NFX"), ValueError),
        (lambda: comparators.text(case="no"), TypeError),
        (lambda: comparators.regex("("), ValueError),
        (lambda: comparators.similar(min_ratio=2), ValueError),
        (lambda: comparators.one_of("US"), TypeError),
    ],
)
def test_bad_comparator_arguments(factory: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        factory()


def test_built_in_comparators_and_their_evaluators_pickle() -> None:
    built_ins = [
        comparators.exact(),
        comparators.numeric(abs_tol=0.1, parse_strings=True),
        comparators.text(case=True),
        comparators.unordered(),
        comparators.one_of(["a", "b"]),
        comparators.regex(r"\d+"),
        comparators.similar(min_ratio=0.5),
    ]
    for comparator in built_ins:
        copy = pickle.loads(pickle.dumps(comparator))
        assert copy == comparator
        assert copy("1", "1") == comparator("1", "1")
    evaluator = create_json_match_evaluator(
        nested=True,
        comparators={f"k{i}": c for i, c in enumerate(built_ins)},
        exclude_keys=["*.internal"],
    )
    revived = pickle.loads(pickle.dumps(evaluator))
    outputs = {"k1": "1.0", "k2": "A", "x": {"internal": 1}}
    references = {"k1": 1, "k2": "a", "x": {"internal": 2}}
    assert revived(outputs=outputs, reference_outputs=references) == evaluator(
        outputs=outputs, reference_outputs=references
    )


async def test_partial_credit_and_pairing_use_the_same_scores() -> None:
    # Without the comparator no pair shares a key; with it, each city pairs with its near twin.
    outputs = [{"city": "Pariss"}, {"city": "Lodnon"}]
    references = [{"city": "London"}, {"city": "Paris"}]
    options = {
        "comparators": {"city": comparators.similar(min_ratio=0.5)},
        "aggregator": "average",
        "list_aggregator": "average",
    }
    (result,) = await both(outputs, references, **options)
    assert result["metadata"]["alignment"] == [[0, 1], [1, 0]]
    expected = (10 / 11 + comparators.similar(min_ratio=0.5)("Lodnon", "London")) / 2
    assert result["score"] == pytest.approx(expected)
    assert (
        'city (outputs[0] vs reference_outputs[1]): expected "Paris", got "Pariss"'
        in (result["comment"])
    )
    assert "(partial credit 0.91)" in result["comment"]
    greedy = await both(outputs, references, alignment="greedy", **options)
    assert greedy[0]["metadata"]["alignment"] == [[0, 1], [1, 0]]


async def test_plain_value_lists_use_item_comparators() -> None:
    (result,) = await both(
        ["ADA", "bob"],
        ["bob", "ada"],
        comparators={"[*]": comparators.text()},
        aggregator="all",
    )
    assert result["score"] == 1
    nested = await both(
        {"names": ["ADA", "bob"]},
        {"names": ["bob", "ada", "eve"]},
        nested=True,
        comparators={"names[*]": comparators.text()},
        list_aggregator="average",
    )
    assert scores(nested) == {"names": 2 / 3}


def test_identical_items_pair_by_hashing_without_calling_the_comparator() -> None:
    calls: list[tuple[Any, Any]] = []

    def counting(output_value: Any, reference_value: Any) -> float:
        calls.append((output_value, reference_value))
        return 0.5

    records = [{"id": i, "name": f"n{i}"} for i in range(50)]
    evaluator = create_json_match_evaluator(
        comparators={"name": counting}, aggregator="average", list_aggregator="average"
    )
    assert evaluator(outputs=records[::-1], reference_outputs=records)[0]["score"] == 1.0
    assert calls == []
    changed = [*records[:-1], {"id": 49, "name": "other"}]
    assert evaluator(outputs=changed, reference_outputs=records)[0]["score"] < 1
    # Only the one item left over is compared (to pair it, then to score the pair).
    assert set(calls) == {("other", "n49")}


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (1.5, r"returned 1\.5 at outputs\.a vs reference_outputs\.a: outside \[0, 1\]"),
        (-0.1, "returned -0.1 .*outside"),
        (float("nan"), "returned nan .*outside"),
        ("yes", "returned 'yes' .*a str"),
        (None, "returned None .*a NoneType"),
    ],
)
def test_a_comparator_answer_outside_0_1_or_of_a_wrong_type_names_the_path(
    result: Any, message: str
) -> None:
    evaluator = create_json_match_evaluator(comparators={"a": lambda o, r: result})
    with pytest.raises(ValueError, match="comparator for 'a' " + message):
        evaluator(outputs={"a": 1}, reference_outputs={"a": 2})
    nested = create_json_match_evaluator(
        nested=True, comparators={"items[*].a": lambda o, r: result}
    )
    with pytest.raises(ValueError, match=r"at outputs\.items\[0\]\.a vs reference_outputs"):
        nested(outputs={"items": [{"a": 1}]}, reference_outputs={"items": [{"a": 2}]})
    listed = create_json_match_evaluator(comparators={"a": lambda o, r: result})
    with pytest.raises(ValueError, match=r"at outputs\[0\]\.a vs reference_outputs\[0\]\.a"):
        listed(outputs=[{"a": 1}], reference_outputs=[{"a": 2}])


def test_a_failing_comparator_names_the_path() -> None:
    def broken(output_value: Any, reference_value: Any) -> bool:
        raise KeyError("boom")

    evaluator = create_json_match_evaluator(nested=True, comparators={"a.b": broken})
    with pytest.raises(
        ValueError, match=r"comparator for 'a\.b' failed at outputs\.a\.b .*KeyError"
    ):
        evaluator(outputs={"a": {"b": 1}}, reference_outputs={"a": {"b": 2}})


def test_bad_comparators_argument() -> None:
    with pytest.raises(TypeError, match=r"comparators\['a'\] must be a callable"):
        create_json_match_evaluator(comparators={"a": 3})
    with pytest.raises(TypeError, match="comparators must be a dict"):
        create_json_match_evaluator(comparators=[comparators.exact()])


def test_numeric_compares_whole_numbers_exactly() -> None:
    numeric = comparators.numeric()
    assert numeric(2**53 + 1, 2**53) is False  # both round to the same float
    assert numeric(2**53 + 1, 2.0**53) is False
    assert numeric(2**53, 2.0**53) is True
    assert numeric(10**400, 10**400) is True  # beyond the float range: no OverflowError
    assert numeric(10**400 + 1, 10**400) is False
    assert comparators.numeric(abs_tol=1)(10**400 + 1, 10**400) is True
    assert comparators.numeric(rel_tol=1e-9)(10**400 + 10**390, 10**400) is True
    assert numeric(10**400, float("inf")) is False
    parsed = comparators.numeric(parse_strings=True)
    assert parsed("9007199254740993", 9007199254740992) is False  # whole-number text is exact
    assert parsed("0.1", 0.1) is True  # decimal text is a float, as JSON parsers read it


def test_numeric_floats_compare_as_math_isclose() -> None:
    assert comparators.numeric(abs_tol=0.5)(1.0, 1.5) is True
    assert comparators.numeric(abs_tol=0.5)(1, 1.5000001) is False
    assert comparators.numeric(rel_tol=0.01)(99.5, 100.0) is True


def test_numeric_in_an_evaluator_with_huge_integers() -> None:
    evaluator = create_json_match_evaluator(
        aggregator="all", comparators={"n": comparators.numeric()}
    )
    assert evaluator(outputs={"n": 10**400}, reference_outputs={"n": 10**400 + 1})[0]["score"] == 0
    assert evaluator(outputs={"n": 2**53 + 1}, reference_outputs={"n": 2**53})[0]["score"] == 0


@pytest.mark.parametrize(
    ("options", "error"),
    [({"abs_tol": float("inf")}, ValueError), ({"parse_strings": 1}, TypeError)],
)
def test_numeric_refuses_options_it_cannot_honour(options: dict[str, Any], error: type) -> None:
    with pytest.raises(error, match=r"numeric\("):
        comparators.numeric(**options)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: comparators.similar(normalize="yes"), r"similar\(normalize=\.\.\.\) must be"),
        (lambda: comparators.regex("a", flags="i"), r"regex\(flags=\.\.\.\) must be re flags"),
    ],
)
def test_comparator_options_are_checked_when_built(build: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        build()
