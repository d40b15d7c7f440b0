"""Factories: option checks, results evaluators (sync and async), names, pickling."""

from __future__ import annotations

import inspect
import pickle
from typing import Any

import pytest

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from tests.graph_trajectory.helpers import ref, run


def half_right(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """A results evaluator returning two results (module level, so it pickles)."""
    return [
        {"key": "a", "score": outputs["a"] == reference_outputs["a"]},
        {"key": "b", "score": outputs["b"] == reference_outputs["b"]},
    ]


async def async_half_right(**kwargs: Any) -> list[dict[str, Any]]:
    return half_right(**kwargs)


OUTPUTS = run(["a"], results={"a": 1, "b": 2})
REFERENCE = ref(["a"], results={"a": 1, "b": 3})


def test_factories_return_named_evaluators_of_the_right_kind() -> None:
    sync = create_graph_trajectory_match_evaluator()
    asynchronous = create_async_graph_trajectory_match_evaluator()
    rules = create_graph_trajectory_rules_evaluator(max_supersteps=2)
    async_rules = create_async_graph_trajectory_rules_evaluator(max_supersteps=2)
    assert sync.__name__ == asynchronous.__name__ == "graph_trajectory_match"  # type: ignore[attr-defined]
    assert rules.__name__ == async_rules.__name__ == "graph_trajectory_rules"  # type: ignore[attr-defined]
    assert not inspect.iscoroutinefunction(sync)
    assert not inspect.iscoroutinefunction(rules)
    assert inspect.iscoroutinefunction(asynchronous)
    assert inspect.iscoroutinefunction(async_rules)
    assert inspect.iscoroutinefunction(graph_trajectory_match_async)


def test_evaluators_pickle_and_still_work() -> None:
    evaluators = [
        create_graph_trajectory_match_evaluator(
            eval_results=True, results_evaluator=half_right, threshold=0.5
        ),
        create_graph_trajectory_match_evaluator(partial_credit=True),
        create_graph_trajectory_rules_evaluator(forbidden=["x"], max_visits={"a": 1}),
    ]
    for evaluator in evaluators:
        clone = pickle.loads(pickle.dumps(evaluator))
        assert clone.__name__ == evaluator.__name__  # type: ignore[attr-defined]
        assert clone(outputs=OUTPUTS, reference_outputs=REFERENCE) == evaluator(
            outputs=OUTPUTS, reference_outputs=REFERENCE
        )


def test_results_evaluator_scores_are_averaged_and_compared_to_the_threshold() -> None:
    strict = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=half_right
    )
    result = strict(outputs=OUTPUTS, reference_outputs=REFERENCE)
    assert result["score"] is False
    assert result["comment"] == (
        "run 0 matched its reference steps but its results scored 0.5 with results_evaluator, "
        "below the threshold 1"
    )
    lenient = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=half_right, threshold=0.5
    )
    passed = lenient(outputs=OUTPUTS, reference_outputs=REFERENCE)
    assert passed["score"] is True
    assert passed["metadata"]["runs"][0]["results"] == {
        "match": True,
        "score": 0.5,
        "comment": None,
    }


def test_results_evaluator_with_partial_credit() -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=half_right, partial_credit=True
    )
    # one superstep matched (1) and the results scored 0.5: (1 + 0.5) / 2
    assert evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)["score"] == pytest.approx(0.75)


def test_json_match_style_evaluator_as_results_evaluator() -> None:
    from openevals.json import create_json_match_evaluator

    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True,
        results_evaluator=create_json_match_evaluator(aggregator="average"),
        threshold=0.5,
    )
    assert evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)["score"] is True


async def test_async_factory_awaits_async_results_evaluators_and_calls_sync_ones() -> None:
    for results_evaluator in (half_right, async_half_right):
        evaluator = create_async_graph_trajectory_match_evaluator(
            eval_results=True, results_evaluator=results_evaluator, threshold=0.5
        )
        result = await evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)
        assert result["score"] is True
        assert result["metadata"]["runs"][0]["results"]["score"] == 0.5


def test_sync_factory_rejects_async_results_evaluators() -> None:
    with pytest.raises(TypeError, match="results_evaluator is async"):
        create_graph_trajectory_match_evaluator(
            eval_results=True, results_evaluator=async_half_right
        )

    class Sneaky:
        def __call__(self, **kwargs: Any) -> Any:
            return async_half_right(**kwargs)

    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=Sneaky()
    )
    with pytest.raises(TypeError, match="returned an awaitable"):
        evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"eval_results": "yes"}, TypeError, "eval_results is a str"),
        ({"partial_credit": 1}, TypeError, "partial_credit is an int"),
        ({"results_evaluator": half_right}, ValueError, "results_evaluator is only used"),
        ({"eval_results": True, "results_evaluator": 3}, TypeError, "results_evaluator is an int"),
        ({"partial_credit": True, "threshold": 1.5}, ValueError, "threshold is 1.5"),
        ({"partial_credit": True, "threshold": "0.5"}, TypeError, "threshold is a str"),
        ({"partial_credit": True, "threshold": True}, TypeError, "threshold is a bool"),
        ({"threshold": 0.5}, ValueError, "threshold applies to partial_credit"),
    ],
)
def test_bad_options(options: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        create_graph_trajectory_match_evaluator(**options)
    with pytest.raises(error, match=message):
        create_async_graph_trajectory_match_evaluator(**options)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"key": "x"}, "expected an evaluator result with a score"),
        ({"key": "x", "score": "high"}, "returned the score 'high' for run 0"),
        ([], "returned no results for run 0"),
    ],
)
def test_bad_results_evaluator_answers(answer: Any, message: str) -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True, results_evaluator=lambda **kwargs: answer
    )
    with pytest.raises((TypeError, ValueError), match=message):
        evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)


def test_results_wrapper_form_is_accepted() -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True,
        results_evaluator=lambda **kwargs: {"results": [{"key": "x", "score": 1.0}]},
    )
    assert evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)["score"] is True


def test_extra_keyword_arguments_are_ignored() -> None:
    result = graph_trajectory_match(outputs=OUTPUTS, reference_outputs=REFERENCE, inputs={"q": 1})
    assert result["score"] is True


def test_importing_the_package_does_not_import_langgraph() -> None:
    import subprocess
    import sys

    code = (
        "import sys, matchevals.graph_trajectory as g; "
        "assert not any(m == 'langgraph' or m.startswith('langgraph.') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('langgraph'))"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr


def test_langsmith_evaluation_result_objects_are_read_too() -> None:
    from langsmith.evaluation import EvaluationResult

    evaluator = create_graph_trajectory_match_evaluator(
        eval_results=True,
        results_evaluator=lambda **kwargs: EvaluationResult(key="x", score=0.25),
    )
    result = evaluator(outputs=OUTPUTS, reference_outputs=REFERENCE)
    assert result["metadata"]["runs"][0]["results"]["score"] == 0.25
    assert result["score"] is False
