"""One reference for every run of a thread, and results explained with json_match's words."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import main
from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from matchevals.json_match import (
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from matchevals.testing import assert_graph_trajectory_match
from tests.graph_trajectory.helpers import ref, run

THREAD = [run(["plan"], ["act"]), run(["plan"], ["act"]), run(["plan"], ["wait"])]
REFERENCE = ref(["plan"], ["act"])


# One reference for every run ------------------------------------------------------------------


def test_one_reference_applies_to_every_run() -> None:
    result = graph_trajectory_match(outputs=THREAD, reference_outputs=REFERENCE)
    assert result["score"] is False
    assert [entry["match"] for entry in result["metadata"]["runs"]] == [True, True, False]
    assert result["comment"] == (
        "run 2, superstep 1 (unordered, reference_outputs.steps[1]): expected [act], got [wait]; "
        "missing act; extra wait"
    )
    passing = graph_trajectory_match(outputs=THREAD[:2], reference_outputs=REFERENCE)
    assert passing == {
        "key": "graph_trajectory_match",
        "score": True,
        "comment": "all 2 runs matched their references",
        "metadata": passing["metadata"],
    }
    assert len(passing["metadata"]["runs"]) == 2


@pytest.mark.parametrize("partial_credit", [False, True])
def test_a_shared_reference_scores_as_the_same_reference_repeated(partial_credit: bool) -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=partial_credit)
    shared = evaluator(outputs=THREAD, reference_outputs=REFERENCE)
    repeated = evaluator(outputs=THREAD, reference_outputs=[REFERENCE] * len(THREAD))
    assert shared["score"] == repeated["score"]
    for one, other in zip(shared["metadata"]["runs"], repeated["metadata"]["runs"], strict=True):
        assert one["verdicts"] == other["verdicts"]
        assert one.get("score") == other.get("score")
    # only the reference's path differs: there is one reference, not a list of them
    assert "reference_outputs.steps[1]" in shared["comment"]
    assert "reference_outputs[2].steps[1]" in repeated["comment"]


def test_a_shared_reference_works_async_and_with_tuples_and_is_not_mutated() -> None:
    thread, reference = copy.deepcopy(THREAD), copy.deepcopy(REFERENCE)
    result = asyncio.run(
        graph_trajectory_match_async(outputs=tuple(thread), reference_outputs=reference)
    )
    assert [entry["match"] for entry in result["metadata"]["runs"]] == [True, True, False]
    assert thread == THREAD and reference == REFERENCE


@pytest.mark.parametrize(
    ("outputs", "references", "message"),
    [
        (
            run(["a"]),
            [ref(["a"]), ref(["a"])],
            "outputs has 1 run but reference_outputs has 2 references",
        ),
        (
            [run(["a"])] * 3,
            [ref(["a"])],
            "outputs has 3 runs but reference_outputs has 1 reference",
        ),
        (
            [run(["a"])] * 2,
            [ref(["a"])] * 3,
            "outputs has 2 runs but reference_outputs has 3 references",
        ),
    ],
)
def test_a_count_mismatch_names_both_counts(
    outputs: Any, references: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        graph_trajectory_match(outputs=outputs, reference_outputs=references)
    assert str(raised.value) == (
        f"{message}; a list of references pairs with the runs one to one (pass a single "
        "reference, not a list, to apply it to every run)"
    )


def test_a_bad_shared_reference_is_named_once_by_its_own_path() -> None:
    with pytest.raises(ValueError, match=r"^reference_outputs\.steps\[0\]\.match_mode"):
        graph_trajectory_match(
            outputs=THREAD, reference_outputs={"steps": [{"steps": ["a"], "match_mode": "fuzzy"}]}
        )
    with pytest.raises(ValueError, match=r"^outputs\[1\] is None"):
        graph_trajectory_match(outputs=[THREAD[0], None], reference_outputs=REFERENCE)


def test_the_cli_scores_a_thread_per_line_against_one_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "threads.jsonl"
    runs.write_text("\n".join(json.dumps(line) for line in (THREAD, THREAD[:2])) + "\n")
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps(REFERENCE))
    status = main(["graph", str(runs), str(reference), "--format", "jsonl"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0  # no gate asked for
    assert [line["score"] for line in lines[:2]] == [0.0, 1.0]
    assert lines[0]["results"][0]["comment"].startswith("run 2, superstep 1")
    assert lines[2]["type"] == "summary" and lines[2]["invalid"] == 0


# eval_results explained -----------------------------------------------------------------------


def match_results(actual: Any, expected: Any) -> dict[str, Any]:
    return graph_trajectory_match(  # type: ignore[return-value]
        outputs=run(["a"], results=actual),
        reference_outputs=ref(["a"], results=expected),
        eval_results=True,
    )


def test_unequal_results_are_explained_path_by_path() -> None:
    result = match_results(
        {"answer": "Paris", "sources": [{"url": "a"}], "n": 1},
        {"answer": "Rome", "sources": [{"url": "b"}], "n": 1},
    )
    explanation = (
        'its results differ from the reference results: results.answer: expected "Rome", got '
        '"Paris"; results.sources[*].url (outputs.results.sources[0] vs '
        'reference_outputs.results.sources[0]): expected "b", got "a"'
    )
    assert result["comment"] == f"run 0 matched its reference steps but {explanation}"
    assert result["metadata"]["runs"][0]["results"] == {
        "match": False,
        "score": 0.0,
        "comment": explanation,
        "mismatches": [
            {"path": "results.answer", "expected": "Rome", "actual": "Paris", "score": 0},
            {
                "path": "results.sources[*].url",
                "expected": "b",
                "actual": "a",
                "score": 0,
                "outputs": "outputs.results.sources[0]",
                "reference_outputs": "reference_outputs.results.sources[0]",
            },
        ],
    }


@pytest.mark.parametrize(
    ("actual", "expected", "explained"),
    [
        ("x", "y", 'results: expected "y", got "x"'),
        ({"a": None}, {}, "results.a: not in reference_outputs, got null"),
        ({"a": True}, {"a": 1}, "results.a: expected 1, got true"),  # JSON: true is not 1
        (  # order matters, as it does for equality
            {"a": [1, 2]},
            {"a": [2, 1]},
            "results.a (outputs.results.a[0] vs reference_outputs.results.a[0]): expected 2, "
            "got 1; results.a (outputs.results.a[1] vs reference_outputs.results.a[1]): "
            "expected 1, got 2",
        ),
        (  # a set is compared as the sorted list it becomes (the value-conversion policy)
            {"a": {3, 1}},
            {"a": [3, 1]},
            "results.a (outputs.results.a[0] vs reference_outputs.results.a[0]): expected 3, "
            "got 1; results.a (outputs.results.a[1] vs reference_outputs.results.a[1]): "
            "expected 1, got 3",
        ),
    ],
)
def test_every_kind_of_difference_is_explained(actual: Any, expected: Any, explained: str) -> None:
    result = match_results(actual, expected)
    assert result["score"] is False
    assert result["comment"] == (
        f"run 0 matched its reference steps but its results differ from the reference results: "
        f"{explained}"
    )


def test_equal_results_carry_no_explanation() -> None:
    result = match_results({"answer": 1}, {"answer": 1.0})
    assert result["score"] is True
    assert result["metadata"]["runs"][0]["results"] == {
        "match": True,
        "score": 1.0,
        "comment": None,
    }


# results_evaluator: any json_match evaluator --------------------------------------------------

OUTPUTS = run(["a"], results={"answer": "Paris", "n": 1})
EXPECTED = ref(["a"], results={"answer": "Rome", "n": 1})


@pytest.mark.parametrize(
    ("options", "score"),
    [
        ({}, 0.5),  # one result per key, averaged
        ({"aggregator": "average"}, 0.5),
        ({"aggregator": "all"}, 0.0),
        ({"nested": True, "aggregator": "all"}, 0.0),
    ],
)
def test_any_json_match_evaluator_scores_and_explains_results(
    options: dict[str, Any], score: float
) -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=create_json_match_evaluator(**options)
    )
    result = evaluator(outputs=OUTPUTS, reference_outputs=EXPECTED)
    explanation = (
        f"its results scored {score:g} with results_evaluator, below the threshold 1: "
        'answer: expected "Rome", got "Paris"'
    )
    assert result["score"] is False
    assert result["comment"] == f"run 0 matched its reference steps but {explanation}"
    assert result["metadata"]["runs"][0]["results"] == {
        "match": False,
        "score": score,
        "comment": explanation,
        "mismatches": [{"path": "answer", "expected": "Rome", "actual": "Paris", "score": 0}],
    }


def test_a_json_match_evaluator_passing_the_threshold_leaves_no_comment() -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=create_json_match_evaluator(), threshold=0.5
    )
    result = evaluator(outputs=OUTPUTS, reference_outputs=EXPECTED)
    assert result["score"] is True
    assert result["metadata"]["runs"][0]["results"] == {
        "match": True,
        "score": 0.5,
        "comment": None,
    }


def test_an_async_json_match_evaluator_in_the_async_twin() -> None:
    evaluator = create_async_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=create_async_json_match_evaluator()
    )
    result = asyncio.run(evaluator(outputs=[OUTPUTS, OUTPUTS], reference_outputs=EXPECTED))
    assert result["score"] is False
    assert [entry["results"]["score"] for entry in result["metadata"]["runs"]] == [0.5, 0.5]
    assert result["comment"].endswith('below the threshold 1: answer: expected "Rome", got "Paris"')


def test_a_results_evaluator_without_comments_still_gives_its_score() -> None:
    def scores_half(**_: Any) -> dict[str, Any]:
        return {"key": "half", "score": 0.5}

    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=scores_half
    )
    result = evaluator(outputs=OUTPUTS, reference_outputs=EXPECTED)
    assert result["comment"] == (
        "run 0 matched its reference steps but its results scored 0.5 with results_evaluator, "
        "below the threshold 1"
    )
    assert "mismatches" not in result["metadata"]["runs"][0]["results"]


@pytest.mark.parametrize("threshold", [0.0, 0.5, 1.0])
def test_a_results_evaluator_answering_false_fails_every_threshold(threshold: float) -> None:
    """One boolean verdict passes only when True: its False is not a 0 that a threshold of 0
    lets through (a 0, or a mean of several results, is a number held against the threshold)."""

    def rejects(**_: Any) -> dict[str, Any]:
        return {"key": "verdict", "score": False}

    def scores_zero(**_: Any) -> dict[str, Any]:
        return {"key": "zero", "score": 0}

    options: dict[str, Any] = {"eval_results": True, "threshold": threshold}
    result = create_graph_trajectory_match_evaluator(**options, results_evaluator=rejects)(
        outputs=OUTPUTS, reference_outputs=EXPECTED
    )
    assert result["score"] is False
    assert result["comment"] == (
        "run 0 matched its reference steps but its results scored False with results_evaluator"
    )
    with pytest.raises(AssertionError, match="graph_trajectory_match = False"):
        assert_graph_trajectory_match(OUTPUTS, EXPECTED, **options, results_evaluator=rejects)
    zero = create_graph_trajectory_match_evaluator(**options, results_evaluator=scores_zero)(
        outputs=OUTPUTS, reference_outputs=EXPECTED
    )
    assert zero["score"] is (threshold == 0.0)
