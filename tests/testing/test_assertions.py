"""matchevals.testing: silent passes; failures that show the difference as a person reads it."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.graph_trajectory import ReferenceStep, Repeat
from matchevals.testing import assert_graph_trajectory_match, assert_json_match
from tests.scripted_judge import ScriptedJudge


def failure(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(AssertionError) as raised:
        call(*args, **kwargs)  # type: ignore[operator]
    return str(raised.value)


def test_json_match_passes_silently_and_returns_the_results() -> None:
    results = assert_json_match({"a": 1, "b": [1]}, {"b": [1.0], "a": 1}, aggregator="all")
    assert results == [{"key": "json_match:all", "score": 1, "comment": None, "metadata": None}]


def test_json_match_failure_lists_each_differing_nested_path() -> None:
    message = failure(
        assert_json_match,
        {"name": "Ann", "address": {"city": "Paris", "zip": "75001"}, "tags": ["a", "b"]},
        {"name": "Ann", "address": {"city": "Paris", "zip": "75002"}, "tags": ["a", "c"], "x": 1},
    )
    lines = message.splitlines()
    assert lines[0] == (
        "json_match: 3 of 4 results below the threshold 1.0: "
        "json_match:address = 0, json_match:tags = 0, json_match:x = 0"
    )
    assert lines[1] == "differences (expected = reference_outputs, actual = outputs):"
    assert [line.split() for line in lines[2:]] == [
        ["path", "expected", "actual"],
        ["address.zip", '"75002"', '"75001"'],
        ["tags[1]", '"c"', '"b"'],
        ["x", "1", "<missing>"],
    ]


def test_json_match_failure_on_lists_names_the_paired_items_and_the_unmatched_ones() -> None:
    outputs = [{"name": "Ann", "city": "Paris"}, {"name": "Bob", "city": "Rome"}]
    references = [{"name": "Bob", "city": "Rome"}, {"name": "Ann", "city": "Lyon"}, {"name": "C"}]
    message = failure(assert_json_match, outputs, references, aggregator="average")
    assert message.splitlines()[2:] == [
        "  path            expected       actual",
        "  outputs[0] vs reference_outputs[1]:",
        '    city          "Lyon"         "Paris"',
        "  reference_outputs[2] has no partner in outputs:",
        '    (whole item)  {"name": "C"}  <missing>',
    ]


def test_json_match_threshold_applies_to_each_result() -> None:
    outputs = [{"a": 1}, {"a": 2}]
    references = [{"a": 1}, {"a": 3}]
    results = assert_json_match(outputs, references, threshold=0.5, list_aggregator="average")
    assert results[0]["score"] == 0.5
    message = failure(
        assert_json_match, outputs, references, threshold=0.6, list_aggregator="average"
    )
    assert message.startswith(
        "json_match: 1 of 1 results below the threshold 0.6: json_match:a = 0.5"
    )


def test_json_match_excluded_keys_are_not_shown_as_differences() -> None:
    message = failure(assert_json_match, {"a": 1, "b": 1}, {"a": 2, "b": 2}, exclude_keys=["b"])
    assert "b " not in message.split("differences")[1]
    assert "  a     2         1" in message


@pytest.mark.parametrize(
    ("threshold", "error"), [(1.5, ValueError), ("high", TypeError), (True, TypeError)]
)
def test_bad_threshold_is_a_clear_error(threshold: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="threshold"):
        assert_json_match({}, {}, threshold=threshold)  # type: ignore[arg-type]


def test_bad_options_and_inputs_raise_the_evaluators_errors() -> None:
    with pytest.raises(ValueError, match="aggregator"):
        assert_json_match({}, {}, aggregator="median")
    with pytest.raises(TypeError, match=r"reference_outputs\[0\] is a str"):
        assert_json_match([{"a": 1}], ["a"])


def test_graph_match_passes_silently_and_returns_the_result() -> None:
    run = {"inputs": None, "results": None, "steps": [["a"], ["c", "b"], ["d"]]}
    result = assert_graph_trajectory_match(run, {"steps": [["a"], ["b", "c"], ["d"]]})
    assert result["score"] is True


def test_graph_failure_shows_the_trajectories_side_by_side_with_the_divergence_marked() -> None:
    run = {"steps": [["a"], ["b"], ["d"]]}
    reference = {"steps": [["a"], ReferenceStep(["b", "c"], "exact"), ["d"], ["e"]]}
    message = failure(assert_graph_trajectory_match, run, reference)
    lines = message.splitlines()
    assert lines[0].startswith("graph_trajectory_match = False (threshold 1.0): run 0, superstep 1")
    assert lines[1:] == [
        "run 0:",
        "    superstep  expected      actual",
        "    0          [a]           [a]     ok",
        "  > 1          [b, c] exact  [b]     DIFF  <- first divergence",
        "    2          [d]           [d]     ok",
        "    3          [e]           —",
    ]


def test_graph_failure_with_a_pattern_shows_which_reference_step_each_superstep_met() -> None:
    run = {"steps": [["agent"], ["tools"], ["agent"], ["search"]]}
    reference = {"steps": [Repeat([["agent"], ["tools"]], min=1), ["agent"]]}
    message = failure(assert_graph_trajectory_match, run, reference)
    assert message.splitlines()[2:] == [
        "    superstep  expected  actual",
        "    0          [agent]   [agent]   ok",
        "    1          [tools]   [tools]   ok",
        "    2          [agent]   [agent]   ok",
        "  > 3          [tools]   [search]  DIFF  <- first divergence",
    ]


def test_graph_partial_credit_threshold_and_several_runs() -> None:
    runs = [{"steps": [["a"], ["b"]]}, {"steps": [["a"]]}]
    references = [{"steps": [["a"], ["c"]]}, {"steps": [["a"]]}]
    result = assert_graph_trajectory_match(runs, references, threshold=0.75, partial_credit=True)
    assert result["score"] == 0.75
    assert result["metadata"]["pass"] is True
    message = failure(
        assert_graph_trajectory_match, runs, references, threshold=0.8, partial_credit=True
    )
    assert message.splitlines()[0].startswith(
        "graph_trajectory_match_partial = 0.75 (threshold 0.8)"
    )
    assert "run 0:" in message
    assert "run 1:" not in message


def test_graph_results_mismatch_is_explained() -> None:
    run = {"inputs": None, "results": {"answer": 1}, "steps": [["a"]]}
    reference = {"inputs": None, "results": {"answer": 2}, "steps": [["a"]]}
    message = failure(assert_graph_trajectory_match, run, reference, eval_results=True)
    assert message.splitlines()[1:] == [
        "run 0:",
        "    results differ from the reference results:",
        "    path    expected  actual",
        "    answer  2         1",
    ]


def test_graph_bad_input_raises_the_matchers_error() -> None:
    with pytest.raises(TypeError, match=r"outputs.steps\[0\] is a str"):
        assert_graph_trajectory_match({"steps": ["a"]}, {"steps": [["a"]]})


def _reject_all(schema: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """A judge answering every rubric key with score False."""
    return {
        name: False if spec.get("type") == "boolean" else {"score": False, "reasoning": "no"}
        for name, spec in schema["properties"].items()
    }


@pytest.mark.parametrize("threshold", [0.0, 0.5, 1.0])
def test_a_false_json_match_result_fails_every_threshold(threshold: float) -> None:
    """A rubric key the judge rejects scores False: not a 0 that a threshold of 0 lets
    through. A 0 does pass a threshold of 0."""
    options: dict[str, Any] = {"rubric": {"tone": "Is it polite?"}}
    judged = {"tone": "go away"}, {"tone": "hello"}
    message = failure(
        assert_json_match, *judged, threshold=threshold, judge=ScriptedJudge(answer=_reject_all),
        **options,
    )  # fmt: skip
    assert message.splitlines()[0] == "json_match: 1 of 1 results False: json_match:tone = False"
    mixed = failure(
        assert_json_match, {"tone": "go away", "n": 1}, {"tone": "hello", "n": 2},
        threshold=threshold, judge=ScriptedJudge(answer=_reject_all), **options,
    )  # fmt: skip
    expected = (
        "json_match: 1 of 2 results False: json_match:tone = False"
        if threshold == 0.0  # n scores 0, which reaches a threshold of 0
        else f"json_match: 2 of 2 results below the threshold {threshold} or False: "
        "json_match:n = 0, json_match:tone = False"
    )
    assert mixed.splitlines()[0] == expected
    assert assert_json_match({"a": 0}, {"a": 1}, threshold=0.0)[0]["score"] == 0


@pytest.mark.parametrize("threshold", [0.0, 0.5])
def test_a_false_graph_match_fails_every_threshold(threshold: float) -> None:
    run, reference = {"steps": [["a"], ["b"]]}, {"steps": [["a"], ["c"]]}
    message = failure(assert_graph_trajectory_match, run, reference, threshold=threshold)
    assert message.startswith(f"graph_trajectory_match = False (threshold {threshold}): run 0")
    assert assert_graph_trajectory_match(run, run, threshold=threshold)["score"] is True
