"""Strict matching: modes, multisets, lengths, comments and metadata."""

from __future__ import annotations

import copy
import itertools

import pytest

from matchevals.graph_trajectory import ReferenceStep, graph_trajectory_match
from tests.graph_trajectory.helpers import ref, run

MODES = ["exact", "unordered", "subset", "superset"]
READINGS = {
    "three supersteps": [["foo"], ["bar"], ["baz"]],
    "bar with baz": [["foo"], ["bar", "baz"]],
    "foo with bar": [["foo", "bar"], ["baz"]],
}


def match(outputs: object, reference: object, **kwargs: object) -> dict[str, object]:
    return dict(graph_trajectory_match(outputs=outputs, reference_outputs=reference, **kwargs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("run_name", "ref_name"), list(itertools.product(READINGS, READINGS)))
def test_three_readings_of_foo_bar_baz(mode: str, run_name: str, ref_name: str) -> None:
    reference = ref(*(ReferenceStep(nodes, mode) for nodes in READINGS[ref_name]))  # type: ignore[arg-type]
    result = match(run(*READINGS[run_name]), reference)
    assert result["key"] == "graph_trajectory_match"
    assert result["score"] is (run_name == ref_name)


def test_bare_list_means_unordered_not_exact() -> None:
    assert match(run(["foo"], ["baz", "bar"]), ref(["foo"], ["bar", "baz"]))["score"] is True
    exact = match(
        run(["foo"], ["baz", "bar"]), ref(["foo"], ReferenceStep(["bar", "baz"], "exact"))
    )
    assert exact["score"] is False
    assert exact["comment"] == (
        "run 0, superstep 1 (exact, reference_outputs.steps[1]): expected [bar, baz], "
        "got [baz, bar]; same nodes in a different order"
    )


@pytest.mark.parametrize(
    ("mode", "actual", "expected", "verdict"),
    [
        ("exact", ["a", "b"], ["a", "b"], True),
        ("exact", ["b", "a"], ["a", "b"], False),
        ("exact", ["a"], ["a", "b"], False),
        ("unordered", ["b", "a"], ["a", "b"], True),
        ("unordered", ["a"], ["a", "b"], False),
        ("unordered", ["a", "b", "c"], ["a", "b"], False),
        ("subset", ["a"], ["a", "b"], True),
        ("subset", [], ["a", "b"], True),
        ("subset", ["a", "c"], ["a", "b"], False),
        ("superset", ["a", "b", "c"], ["a", "b"], True),
        ("superset", ["b", "a"], ["a", "b"], True),
        ("superset", ["a"], ["a", "b"], False),
    ],
)
def test_each_mode_on_one_superstep(
    mode: str, actual: list[str], expected: list[str], verdict: bool
) -> None:
    reference = ref(["start"], ReferenceStep(expected, mode))  # type: ignore[arg-type]
    assert match(run(["start"], actual), reference)["score"] is verdict


@pytest.mark.parametrize(
    ("mode", "actual", "expected", "verdict"),
    [
        # a Send fan-out ran worker three times: the count matters in every mode
        ("exact", ["worker"] * 3, ["worker"] * 3, True),
        ("exact", ["worker"] * 2, ["worker"] * 3, False),
        ("unordered", ["worker"] * 3, ["worker"] * 3, True),
        ("unordered", ["worker"] * 2, ["worker"] * 3, False),
        ("unordered", ["worker"] * 4, ["worker"] * 3, False),
        ("unordered", ["w", "x", "w"], ["x", "w", "w"], True),
        ("unordered", ["w", "x", "x"], ["x", "w", "w"], False),
        ("subset", ["worker"] * 2, ["worker"] * 3, True),
        ("subset", ["worker"] * 4, ["worker"] * 3, False),
        ("subset", ["worker", "worker"], ["worker", "other"], False),
        ("superset", ["worker"] * 4, ["worker"] * 3, True),
        ("superset", ["worker"] * 2, ["worker"] * 3, False),
        ("superset", ["worker", "other"], ["worker", "worker"], False),
    ],
)
def test_each_mode_on_multisets(
    mode: str, actual: list[str], expected: list[str], verdict: bool
) -> None:
    reference = ref(["plan"], ReferenceStep(expected, mode), ["reduce"])  # type: ignore[arg-type]
    assert match(run(["plan"], actual, ["reduce"]), reference)["score"] is verdict


def test_fan_out_comment_names_missing_worker() -> None:
    result = match(
        run(["plan"], ["worker", "worker"], ["reduce"]),
        ref(["plan"], ["worker", "worker", "worker"], ["reduce"]),
    )
    assert result["comment"] == (
        "run 0, superstep 1 (unordered, reference_outputs.steps[1]): "
        "expected [worker, worker, worker], got [worker, worker]; missing worker"
    )
    meta = result["metadata"]["runs"][0]  # type: ignore[index]
    assert meta["verdicts"] == ["match", "mismatch", "match"]
    assert meta["divergence"] == {
        "superstep": 1,
        "expected": [
            {
                "steps": ["worker", "worker", "worker"],
                "match_mode": "unordered",
                "reference": "reference_outputs.steps[1]",
            }
        ],
        "actual": ["worker", "worker"],
        "missing": ["worker"],
        "extra": [],
    }


def test_longer_run_does_not_match() -> None:
    result = match(run(["a"], ["b"], ["c"], ["d"]), ref(["a"], ["b"], ["c"]))
    assert result["score"] is False
    assert (
        result["comment"]
        == "run 0 had 4 supersteps where 3 were expected; superstep 3 [d] is extra"
    )
    meta = result["metadata"]["runs"][0]  # type: ignore[index]
    assert meta["verdicts"] == ["match", "match", "match", "extra"]
    assert meta["expected_supersteps"] == {"min": 3, "max": 3}


def test_shorter_run_does_not_match() -> None:
    result = match(run(["a"], ["b"]), ref(["a"], ["b"], ["c"]))
    assert result["score"] is False
    assert result["comment"] == (
        "run 0 had 2 supersteps where 3 were expected; superstep 2 should have been "
        "[c] (unordered, reference_outputs.steps[2])"
    )
    assert result["metadata"]["runs"][0]["verdicts"] == ["match", "match"]  # type: ignore[index]


def test_earlier_mismatch_is_named_before_the_length() -> None:
    result = match(run(["a"], ["x"], ["c"], ["d"]), ref(["a"], ["b"], ["c"]))
    assert result["comment"] == (
        "run 0, superstep 1 (unordered, reference_outputs.steps[1]): expected [b], got [x]; "
        "missing b; extra x; the run also had 4 supersteps where 3 were expected"
    )


def test_empty_run_and_empty_reference() -> None:
    assert match(run(), ref())["score"] is True
    assert match(run(["a"]), ref())["score"] is False
    assert match(run(), ref(["a"]))["score"] is False


def test_subset_and_superset_comments() -> None:
    subset = match(run(["a", "c", "d"]), ref(ReferenceStep(["a", "b"], "subset")))
    assert subset["comment"] == (
        "run 0, superstep 0 (subset, reference_outputs.steps[0]): expected [a, b], "
        "got [a, c, d]; extra c, d"
    )
    superset = match(run(["a"]), ref(ReferenceStep(["a", "b"], "superset")))
    assert superset["comment"] == (
        "run 0, superstep 0 (superset, reference_outputs.steps[0]): expected [a, b], "
        "got [a]; missing b"
    )


def test_list_of_runs_all_must_match_and_first_divergence_is_named() -> None:
    outputs = [run(["a"], ["b"]), run(["a"], ["c"]), run(["x"])]
    references = [ref(["a"], ["b"]), ref(["a"], ["b"]), ref(["a"])]
    result = match(outputs, references)
    assert result["score"] is False
    assert result["comment"] == (
        "run 1, superstep 1 (unordered, reference_outputs[1].steps[1]): expected [b], got [c]; "
        "missing b; extra c"
    )
    runs = result["metadata"]["runs"]  # type: ignore[index]
    assert [r["match"] for r in runs] == [True, False, False]
    assert [r["run"] for r in runs] == [0, 1, 2]
    ok = match(outputs[:1] * 2, references[:1] * 2)
    assert ok["score"] is True
    assert ok["comment"] == "all 2 runs matched their references"


def test_passing_comment_and_metadata() -> None:
    result = match(run(["a"], ["c", "b"]), ref(["a"], ["b", "c"]))
    assert result == {
        "key": "graph_trajectory_match",
        "score": True,
        "comment": "the run matched its reference",
        "metadata": {
            "runs": [
                {
                    "run": 0,
                    "match": True,
                    "steps_match": True,
                    "supersteps": 2,
                    "expected_supersteps": {"min": 2, "max": 2},
                    "verdicts": ["match", "match"],
                    "divergence": None,
                }
            ]
        },
    }


def test_eval_results_requires_equal_results() -> None:
    outputs = run(["a"], results={"answer": 1})
    assert match(outputs, ref(["a"], results={"answer": 1.0}), eval_results=True)["score"] is True
    different = match(outputs, ref(["a"], results={"answer": 2}), eval_results=True)
    assert different["score"] is False
    explanation = "its results differ from the reference results: results.answer: expected 2, got 1"
    assert different["comment"] == f"run 0 matched its reference steps but {explanation}"
    assert different["metadata"]["runs"][0]["results"] == {  # type: ignore[index]
        "match": False,
        "score": 0.0,
        "comment": explanation,
        "mismatches": [{"path": "results.answer", "expected": 2, "actual": 1, "score": 0}],
    }
    # JSON semantics: true is not 1
    assert (
        match(run(["a"], results={"x": True}), ref(["a"], results={"x": 1}), eval_results=True)[
            "score"
        ]
        is False
    )
    # without eval_results the results are ignored
    assert match(outputs, ref(["a"], results={"answer": 2}))["score"] is True


def test_inputs_are_not_mutated() -> None:
    outputs = [run(["b", "a"], ["x"]), run(["a"])]
    references = [
        ref(ReferenceStep(["a", "b"]), ["x"]),
        ref(["a"], ReferenceStep(["z"], optional=True)),
    ]
    before = copy.deepcopy((outputs, references))
    match(outputs, references)
    assert (outputs, references) == before


def test_tuples_are_accepted_as_run_supersteps() -> None:
    outputs = {"inputs": None, "results": None, "steps": (("a",), ("c", "b"))}
    assert match(outputs, ref(["a"], ["b", "c"]))["score"] is True
