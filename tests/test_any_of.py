"""Several acceptable references (``AnyOf``) for the json_match, trajectory and graph_trajectory
evaluators: the best alternative's result, marked in ``metadata["any_of"]``; its JSON form under
``any_of_key``; errors naming the alternative; the real ``langsmith.evaluate`` offline."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from uuid import uuid4

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langsmith import evaluate, traceable
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree
from langsmith.schemas import Example

import matchevals
from matchevals import AnyOf
from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from matchevals.graph_trajectory.strict import graph_trajectory_strict_match
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.langsmith_offline import offline_client, run_traced


def call(*names: str) -> list[dict[str, Any]]:
    """One AI message calling ``names`` (no arguments)."""
    return [{"role": "ai", "tool_calls": [{"name": name, "args": {}} for name in names]}]


def run(*steps: str) -> dict[str, Any]:
    """A graph run (or reference) of one node per superstep."""
    return {"steps": [[step] for step in steps]}


def without_any_of(result: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in (result["metadata"] or {}).items() if k != "any_of"}
    return {**result, "metadata": metadata or None}


# The class


def test_any_of_is_one_class_exported_from_the_root_and_each_package() -> None:
    import matchevals.graph_trajectory as graph
    import matchevals.json_match as json_match
    import matchevals.trajectory as trajectory

    assert json_match.AnyOf is trajectory.AnyOf is graph.AnyOf is matchevals.AnyOf
    assert AnyOf.__module__ == "matchevals"


def test_any_of_holds_a_tuple_is_frozen_and_pickles() -> None:
    given_list = [{"a": 1}, {"a": 2}]
    any_of = AnyOf(given_list)
    assert any_of.alternatives == ({"a": 1}, {"a": 2})
    given_list.append({"a": 3})
    assert len(any_of.alternatives) == 2  # later changes to the list do not reach it
    with pytest.raises(AttributeError):
        any_of.alternatives = ()  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(any_of)) == any_of
    assert AnyOf(iter([1, 2])) == AnyOf((1, 2))


@pytest.mark.parametrize(
    ("alternatives", "error", "message"),
    [
        ([], ValueError, "AnyOf([]) has no alternatives; pass at least one reference"),
        ({"a": 1}, TypeError, "AnyOf takes a list of references; got an object"),
        ("ab", TypeError, "AnyOf takes a list of references; got a string"),
        (3, TypeError, "AnyOf takes a list of references; got a number"),
        (
            [{"a": 1}, {"a": 2}, AnyOf([{"a": 3}])],
            TypeError,
            "AnyOf alternatives[2] is itself an AnyOf; list its references in the outer AnyOf",
        ),
    ],
)
def test_bad_any_of_is_refused_when_built(alternatives: Any, error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        AnyOf(alternatives)
    assert str(raised.value).startswith(message)


# json_match


def test_json_match_scores_the_best_alternative_and_names_it() -> None:
    evaluator = create_json_match_evaluator(aggregator="average")
    references = AnyOf([{"a": 2, "b": 2}, {"a": 1, "b": 3}, {"a": 1, "b": 2}])
    (result,) = evaluator(outputs={"a": 1, "b": 2}, reference_outputs=references)
    assert result == {
        "key": "json_match:average",
        "score": 1.0,
        "comment": None,
        "metadata": {"any_of": {"chosen": 2, "scores": [0.5, 0.5, 1.0]}},
    }


def test_json_match_without_a_match_explains_the_best_alternative() -> None:
    evaluator = create_json_match_evaluator(aggregator="average")
    references = AnyOf([{"a": 2, "b": 3}, {"a": 1, "b": 3}, {"a": 1, "b": 4}])
    (result,) = evaluator(outputs={"a": 1, "b": 2}, reference_outputs=references)
    assert result["score"] == 0.5
    assert result["comment"] == (
        "best of 3 alternatives, reference_outputs.alternatives[1]: b: expected 3, got 2"
    )
    assert result["metadata"] == {
        "mismatches": [{"path": "b", "expected": 3, "actual": 2, "score": 0}],
        "alignment": None,
        "any_of": {"chosen": 1, "scores": [0.0, 0.5, 0.5]},  # the first of the best
    }


def test_json_match_per_key_results_come_from_one_alternative() -> None:
    evaluator = create_json_match_evaluator()  # one result per key
    references = AnyOf([{"a": 1, "b": 3}, {"a": 9, "b": 2}, {"a": 1, "b": 2}])
    results = evaluator(outputs={"a": 1, "b": 2}, reference_outputs=references)
    assert [(r["key"], r["score"], r["comment"]) for r in results] == [
        ("json_match:a", 1, None),
        ("json_match:b", 1, None),
    ]
    # an alternative's score is the mean of its keys' scores
    assert all(r["metadata"]["any_of"] == {"chosen": 2, "scores": [0.5, 0.5, 1.0]} for r in results)


def test_json_match_async_gives_the_same_result() -> None:
    references = AnyOf([{"a": 2}, '{"a": 1}'])  # a JSON string is read like any reference
    sync = create_json_match_evaluator(aggregator="all")(outputs={"a": 1}, reference_outputs=references)  # fmt: skip # noqa: E501
    evaluator = create_async_json_match_evaluator(aggregator="all")
    asynchronous = asyncio.run(evaluator(outputs={"a": 1}, reference_outputs=references))
    assert asynchronous == sync
    assert sync[0]["score"] == 1 and sync[0]["metadata"]["any_of"] == {
        "chosen": 1,
        "scores": [0, 1],
    }


def test_json_match_alternatives_must_all_be_objects_or_all_lists() -> None:
    evaluator = create_json_match_evaluator()
    with pytest.raises(ValueError) as raised:
        evaluator(outputs={"a": 1}, reference_outputs=AnyOf([{"a": 1}, {"a": 2}, [{"a": 1}]]))
    assert str(raised.value) == (
        "reference_outputs.alternatives[2] is a list but reference_outputs.alternatives[0] is "
        "an object; every alternative must be of one kind"
    )
    with pytest.raises(TypeError, match=r"^reference_outputs\.alternatives\[1\] is a number, "):
        evaluator(outputs={"a": 1}, reference_outputs=AnyOf([{"a": 1}, 3]))
    with pytest.raises(ValueError, match=r"^reference_outputs\.alternatives\[1\] is a string that is not valid JSON"):  # fmt: skip # noqa: E501
        evaluator(outputs={"a": 1}, reference_outputs=AnyOf([{"a": 1}, "{bad"]))


def test_every_alternative_is_checked_even_when_an_earlier_one_matches() -> None:
    evaluator = create_trajectory_match_evaluator()
    with pytest.raises(ValueError, match=r"^reference_outputs\.alternatives\[1\] is a dict"):
        evaluator(outputs=call("a"), reference_outputs=AnyOf([call("a"), run("a")]))


# The JSON form


def test_the_json_form_is_read_only_under_any_of_key() -> None:
    reference = {"any_of": [{"a": 2}, {"a": 1}]}
    plain = create_json_match_evaluator(aggregator="all")
    (result,) = plain(outputs={"a": 1}, reference_outputs=reference)
    assert result["score"] == 0  # an ordinary reference: its key "any_of" is missing
    keyed = create_json_match_evaluator(aggregator="all", any_of_key="any_of")
    (result,) = keyed(outputs={"a": 1}, reference_outputs=reference)
    assert result["score"] == 1 and result["metadata"]["any_of"] == {"chosen": 1, "scores": [0, 1]}
    # a dict with other keys besides is an ordinary reference
    (result,) = keyed(outputs={"a": 1}, reference_outputs={"any_of": [{"a": 1}], "a": 1})
    assert "any_of" not in (result["metadata"] or {})


def test_the_json_form_names_its_alternatives_by_their_place() -> None:
    evaluator = create_json_match_evaluator(aggregator="all", any_of_key="choices")
    (result,) = evaluator(outputs={"a": 1}, reference_outputs={"choices": [{"a": 2}, {"a": 3}]})
    assert result["comment"] == (
        "best of 2 alternatives, reference_outputs.choices[0]: a: expected 2, got 1"
    )
    with pytest.raises(ValueError, match=r"^reference_outputs\.choices\[1\] is a list but "):
        evaluator(outputs={"a": 1}, reference_outputs={"choices": [{"a": 2}, [{"a": 3}]]})


@pytest.mark.parametrize(
    ("reference", "error", "message"),
    [
        ({"any_of": []}, ValueError, "reference_outputs.any_of is an empty list; expected at least one alternative reference"),  # noqa: E501
        ({"any_of": {"a": 1}}, TypeError, "reference_outputs.any_of is an object; expected a list of alternative references"),  # noqa: E501
        ({"any_of": "x"}, TypeError, "reference_outputs.any_of is a string; expected a list of alternative references"),  # noqa: E501
        ({"any_of": [{"a": 1}, {"any_of": [{"a": 2}]}]}, TypeError, "reference_outputs.any_of[1] holds alternatives itself; list every alternative in reference_outputs.any_of instead"),  # noqa: E501
    ],
)  # fmt: skip
def test_a_bad_json_form_is_refused_naming_its_place(
    reference: Any, error: type, message: str
) -> None:
    for evaluator in (
        create_json_match_evaluator(any_of_key="any_of"),
        create_trajectory_match_evaluator(any_of_key="any_of"),
        create_graph_trajectory_match_evaluator(any_of_key="any_of"),
    ):
        with pytest.raises(error) as raised:
            evaluator(outputs={"a": 1}, reference_outputs=reference)
        assert str(raised.value) == message


def test_an_alternative_in_the_json_form_inside_an_any_of_is_refused() -> None:
    evaluator = create_json_match_evaluator(any_of_key="any_of")
    references = AnyOf([{"a": 1}, {"any_of": [{"a": 2}]}])
    with pytest.raises(TypeError) as raised:
        evaluator(outputs={"a": 1}, reference_outputs=references)
    assert str(raised.value) == (
        "reference_outputs.alternatives[1] holds alternatives itself; list every alternative in "
        "reference_outputs.alternatives instead"
    )


@pytest.mark.parametrize(
    "factory",
    [
        create_json_match_evaluator,
        create_trajectory_match_evaluator,
        create_graph_trajectory_match_evaluator,
    ],
)
def test_any_of_key_must_be_a_non_empty_string(factory: Callable[..., Any]) -> None:
    for bad in ("", 3, ["any_of"]):
        with pytest.raises(TypeError, match=r"^any_of_key is .*; expected a non-empty string"):
            factory(any_of_key=bad)


def test_json_compat_takes_no_any_of_key() -> None:
    with pytest.raises(ValueError, match=r"drop any_of_key= or drop compat"):
        create_json_match_evaluator(compat="openevals", any_of_key="any_of")
    with pytest.raises(TypeError, match=r"takes one reference; AnyOf is not supported here"):
        create_json_match_evaluator(compat="openevals")(
            outputs={"a": 1}, reference_outputs=AnyOf([{"a": 1}])
        )


# trajectory


def test_trajectory_matches_when_any_alternative_does() -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    result = evaluator(outputs=call("b", "a"), reference_outputs=AnyOf([call("a"), call("a", "b")]))
    assert result == {
        "key": "trajectory_unordered_match",
        "score": True,
        "comment": None,
        "metadata": {"any_of": {"chosen": 1, "scores": [False, True]}},
    }


def test_trajectory_without_a_match_explains_the_first_alternative() -> None:
    evaluator = create_trajectory_match_evaluator()
    result = evaluator(outputs=call("a"), reference_outputs=AnyOf([call("b"), call("c")]))
    plain = evaluator(outputs=call("a"), reference_outputs=call("b"))
    assert result["score"] is False
    assert result["comment"] == (
        f"best of 2 alternatives, reference_outputs.alternatives[0]: {plain['comment']}"
    )
    assert result["metadata"] == {**plain["metadata"], "any_of": {"chosen": 0, "scores": [False, False]}}  # fmt: skip # noqa: E501


def test_trajectory_graded_picks_the_highest_score_sync_and_async() -> None:
    references = AnyOf([call("a", "x", "y"), call("a", "b", "x"), call("a", "b")])
    sync = create_trajectory_match_evaluator(trajectory_match_mode="unordered", score="f1")
    result = sync(outputs=call("a", "b", "c"), reference_outputs=references)
    assert result["score"] == pytest.approx(0.8)
    assert result["metadata"]["any_of"] == {
        "chosen": 2,
        "scores": [pytest.approx(1 / 3), pytest.approx(2 / 3), pytest.approx(0.8)],
    }
    evaluator = create_async_trajectory_match_evaluator(trajectory_match_mode="unordered", score="f1")  # fmt: skip # noqa: E501
    asynchronous = asyncio.run(evaluator(outputs=call("a", "b", "c"), reference_outputs=references))  # fmt: skip # noqa: E501
    assert asynchronous == result


def test_trajectory_reads_langgraph_states_in_the_json_form() -> None:
    evaluator = create_trajectory_match_evaluator(any_of_key="any_of")
    reference = {"any_of": [{"messages": call("b")}, {"messages": call("a")}]}
    result = evaluator(outputs={"messages": call("a")}, reference_outputs=reference)
    assert result["score"] is True and result["metadata"]["any_of"]["chosen"] == 1


# graph_trajectory


def test_graph_trajectory_match_one_shot_sync_and_async() -> None:
    references = AnyOf([run("a"), run("a", "b")])
    result = graph_trajectory_match(outputs=run("a", "b"), reference_outputs=references)
    assert result["score"] is True
    assert result["comment"] == "the run matched its reference"
    assert result["metadata"]["any_of"] == {"chosen": 1, "scores": [False, True]}
    coroutine = graph_trajectory_match_async(outputs=run("a", "b"), reference_outputs=references)
    assert asyncio.run(coroutine) == result


def test_graph_partial_credit_picks_the_highest_score_sync_and_async() -> None:
    references = AnyOf([run("x", "y"), run("a", "c"), run("a", "c", "b")])
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    result = evaluator(outputs=run("a", "b"), reference_outputs=references)
    plain = evaluator(outputs=run("a", "b"), reference_outputs=run("a", "c", "b"))
    assert result["score"] == plain["score"] == pytest.approx(2 / 3)
    assert result["comment"] == (
        f"best of 3 alternatives, reference_outputs.alternatives[2]: {plain['comment']}"
    )
    assert result["metadata"]["any_of"] == {"chosen": 2, "scores": [0.0, 0.5, pytest.approx(2 / 3)]}
    evaluator = create_async_graph_trajectory_match_evaluator(partial_credit=True)
    assert asyncio.run(evaluator(outputs=run("a", "b"), reference_outputs=references)) == result


def test_graph_alternatives_of_two_kinds_are_refused() -> None:
    evaluator = create_graph_trajectory_match_evaluator()
    with pytest.raises(ValueError) as raised:
        evaluator(outputs=[run("a"), run("b")], reference_outputs=AnyOf([run("a"), [run("a"), run("b")]]))  # fmt: skip # noqa: E501
    assert str(raised.value) == (
        "reference_outputs.alternatives[1] is a list of references but "
        "reference_outputs.alternatives[0] is one reference; every alternative must be of one kind"
    )
    with pytest.raises(ValueError, match=r'^reference_outputs\.alternatives\[1\]\[0\] has no "steps"'):  # fmt: skip # noqa: E501
        evaluator(outputs=run("a"), reference_outputs=AnyOf([run("a"), call("a")]))


def test_evaluators_without_a_reference_choice_refuse_any_of() -> None:
    with pytest.raises(TypeError, match=r"^graph_trajectory_strict_match takes one reference"):
        graph_trajectory_strict_match(outputs={"steps": [["a"]]}, reference_outputs=AnyOf([{"steps": [["a"]]}]))  # fmt: skip # noqa: E501
    rules = create_graph_trajectory_rules_evaluator(forbidden=["x"])
    assert rules(outputs=run("a"))[0]["score"] is True  # no reference, nothing to choose


# Properties: the best of the alternatives, each evaluated alone

_KEYS = st.sampled_from(["a", "b", "c"])
_OBJECTS = st.dictionaries(_KEYS, st.integers(0, 2), min_size=1, max_size=3)
_NAMES = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=4)
_AGGREGATED = create_json_match_evaluator(aggregator="average")
_PER_KEY = create_json_match_evaluator()
_F1 = create_trajectory_match_evaluator(trajectory_match_mode="unordered", score="f1")
_STRICT = create_trajectory_match_evaluator()
_PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)


def _score(result: Any) -> float:
    if isinstance(result, list):
        return sum(float(r["score"]) for r in result) / len(result) if result else 1.0
    return float(result["score"])


def _check_best_of(evaluator: Callable[..., Any], outputs: Any, alternatives: list[Any]) -> None:
    one_by_one = [evaluator(outputs=outputs, reference_outputs=a) for a in alternatives]
    scores = [_score(result) for result in one_by_one]
    result = evaluator(outputs=outputs, reference_outputs=AnyOf(alternatives))
    chosen = scores.index(max(scores))
    assert _score(result) == max(scores)
    first = result[0] if isinstance(result, list) else result
    assert first["metadata"]["any_of"]["chosen"] == chosen
    assert [float(s) for s in first["metadata"]["any_of"]["scores"]] == scores
    if len(alternatives) == 1:  # one alternative: the plain evaluation, marked
        plain = one_by_one[0]
        unmarked = [without_any_of(r) for r in result] if isinstance(result, list) else without_any_of(result)  # fmt: skip # noqa: E501
        assert unmarked == plain


@settings(max_examples=60, deadline=None)
@given(_OBJECTS, st.lists(_OBJECTS, min_size=1, max_size=4))
def test_json_match_any_of_is_the_best_alternative(outputs: Any, alternatives: list[Any]) -> None:
    _check_best_of(_AGGREGATED, outputs, alternatives)
    _check_best_of(_PER_KEY, outputs, alternatives)


@settings(max_examples=60, deadline=None)
@given(_NAMES, st.lists(_NAMES, min_size=1, max_size=4))
def test_trajectory_any_of_is_the_best_alternative(outputs: Any, alternatives: Any) -> None:
    _check_best_of(_F1, call(*outputs), [call(*names) for names in alternatives])
    _check_best_of(_STRICT, call(*outputs), [call(*names) for names in alternatives])


@settings(max_examples=60, deadline=None)
@given(_NAMES.filter(bool), st.lists(_NAMES.filter(bool), min_size=1, max_size=4))
def test_graph_any_of_is_the_best_alternative(outputs: Any, alternatives: Any) -> None:
    _check_best_of(_PARTIAL, run(*outputs), [run(*steps) for steps in alternatives])


# Under the real langsmith.evaluate, offline: datasets hold the JSON form


def test_langsmith_evaluate_scores_the_json_form_of_a_dataset() -> None:
    cases = {
        "short answer": ({"city": "Paris"}, 1),
        "long answer": ({"city": "Paris, France"}, 1),
        "wrong answer": ({"city": "Lyon"}, 0),
    }
    data = [
        Example(
            id=uuid4(),
            inputs={"case": case},
            outputs={"any_of": [{"city": "Paris"}, {"city": "Paris, France"}]},
            dataset_id=uuid4(),
            created_at=datetime.now(timezone.utc),
        )
        for case in cases
    ]
    evaluator = create_json_match_evaluator(aggregator="all", any_of_key="any_of")
    results = evaluate(
        lambda inputs: cases[inputs["case"]][0], data=data, evaluators=[evaluator],
        upload_results=False, client=offline_client(),
    )  # fmt: skip
    found = {
        row["example"].inputs["case"]: [
            (r.key, r.score) for r in row["evaluation_results"]["results"]
        ]
        for row in results
    }
    assert found == {case: [("json_match:all", score)] for case, (_, score) in cases.items()}


# Traced: one run per evaluation, whichever alternative wins


def test_inside_a_trace_an_any_of_evaluation_is_one_traced_run() -> None:
    evaluator = create_trajectory_match_evaluator()
    references = AnyOf([call("b"), call("a")])
    parent = run_traced(lambda: evaluator(outputs=call("a"), reference_outputs=references))
    (child,) = parent.child_runs
    assert child.name == "trajectory_strict_match"
    assert child.outputs is not None
    assert child.outputs["score"] is True
    assert child.outputs["metadata"] == {"any_of": {"chosen": 1, "scores": [False, True]}}


async def test_inside_a_trace_an_async_any_of_evaluation_is_one_traced_run() -> None:
    evaluator = create_async_json_match_evaluator(aggregator="all")
    finished: list[RunTree] = []

    @traceable(name="parent")
    async def parent() -> Any:
        return await evaluator(outputs={"a": 1}, reference_outputs=AnyOf([{"a": 2}, {"a": 1}]))

    with tracing_context(enabled="local", client=offline_client()):
        (result,) = await parent(langsmith_extra={"on_end": finished.append})
    (child,) = finished[0].child_runs
    assert child.name == "json_match_evaluator"
    assert result["metadata"]["any_of"] == {"chosen": 1, "scores": [0, 1]}
    assert child.outputs == {"output": [result]}
