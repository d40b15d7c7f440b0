"""Every result below 1 explains itself: comment clauses and metadata mismatches."""

from __future__ import annotations

from typing import Any

from matchevals.json_match import comparators, create_json_match_evaluator


def evaluate(outputs: Any, references: Any, **options: Any) -> list[dict[str, Any]]:
    return create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)


def test_object_results_below_one_carry_mismatches_and_no_alignment() -> None:
    results = evaluate(
        {"name": "Alice", "age": 20, "birth": "1981-08-24"},
        {"name": "Alice", "age": 30, "gender": "female"},
    )
    assert {r["key"]: r["metadata"] for r in results} == {
        "json_match:age": {
            "mismatches": [{"path": "age", "expected": 30, "actual": 20, "score": 0}],
            "alignment": None,
        },
        "json_match:birth": {
            "mismatches": [
                {
                    "path": "birth",
                    "expected": None,
                    "actual": "1981-08-24",
                    "score": 0,
                    "kind": "extra",
                }
            ],
            "alignment": None,
        },
        "json_match:gender": {
            "mismatches": [
                {
                    "path": "gender",
                    "expected": "female",
                    "actual": None,
                    "score": 0,
                    "kind": "missing",
                }
            ],
            "alignment": None,
        },
        "json_match:name": None,  # a perfect score carries no explanation
    }


def test_list_results_name_both_items() -> None:
    (result,) = evaluate(
        [{"id": 1, "city": "Paris"}], [{"id": 1, "city": "Lyon"}], aggregator="average"
    )
    assert result["metadata"] == {
        "alignment": [[0, 0]],
        "mismatches": [
            {
                "path": "city",
                "expected": "Lyon",
                "actual": "Paris",
                "score": 0,
                "outputs": "outputs[0]",
                "reference_outputs": "reference_outputs[0]",
            }
        ],
    }


def test_long_explanations_are_truncated_and_counted() -> None:
    outputs = {"doc": {f"k{i:02}": "x" * 200 for i in range(40)}}
    references = {"doc": {f"k{i:02}": "y" for i in range(40)}}
    (result,) = evaluate(outputs, references, nested=True, aggregator="all")
    comment = result["comment"]
    assert comment.startswith('doc.k00: expected "y", got "xxxxxxxx')
    assert "…" in comment and comment.endswith("… and 35 more")
    assert len(comment) < 600
    assert len(result["metadata"]["mismatches"]) == 25
    assert result["metadata"]["mismatches_omitted"] == 15
    flat = evaluate(references["doc"], outputs["doc"], aggregator="all")[0]
    assert flat["comment"].endswith("… and 35 more")
    assert flat["metadata"]["mismatches_omitted"] == 15


def test_partial_credit_is_shown() -> None:
    (result,) = evaluate(
        {"city": "Pariss"},
        {"city": "Paris"},
        comparators={"city": comparators.similar()},
        aggregator="average",
    )
    assert result["comment"] == 'city: expected "Paris", got "Pariss" (partial credit 0.91)'
    assert result["metadata"]["mismatches"][0]["score"] == result["score"]


def test_plain_value_lists_explain_differing_and_unpaired_values() -> None:
    # Left-over values are still paired one to one (scoring 0), and the rest reported unpaired.
    results = evaluate({"tags": ["a", "b", "c"]}, {"tags": ["a", "d"]}, nested=True)
    assert results[0]["comment"] == (
        'tags (outputs.tags[1] vs reference_outputs.tags[1]): expected "d", got "b"; '
        'outputs.tags[2] ("c") has no partner in reference_outputs.tags'
    )
    results = evaluate(["a", "b"], ["a"], list_match_mode="subset")
    assert results[0]["comment"] == 'outputs[1] ("b") has no partner in reference_outputs'
    assert results[0]["metadata"]["mismatches"] == [
        {
            "path": "[]",
            "expected": None,
            "actual": "b",
            "score": 0,
            "kind": "unmatched_value",
            "outputs": "outputs[1]",
            "reference_outputs": None,
        }
    ]
