"""matchevals evaluators inside the real LangSmith machinery, fully offline.

``tests/test_langsmith_adapter.py`` covers one json_match evaluator in ``evaluate``/``aevaluate``
and the feedback json_match logs; this file adds graph_trajectory evaluators on a LangGraph
target, several evaluators of both modules at once, ``max_concurrency`` > 1, and the feedback
the graph evaluators log inside LangSmith pytest tests (captured as in the adapter test, and
under the real marker). In every case what LangSmith collects equals direct calls.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langsmith import aevaluate, evaluate
from langsmith import testing as ls_testing
from langsmith.run_helpers import tracing_context
from langsmith.schemas import Example

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
)
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from tests.langsmith_offline import langsmith_test_case, offline_aevaluate, offline_client

pytestmark = pytest.mark.filterwarnings("ignore:.upload_runs. parameter is in beta")

langgraph = pytest.importorskip("langgraph")

from matchevals.cli._demo_graph import fan_out_graph  # noqa: E402 - needs langgraph
from matchevals.graph_trajectory.langgraph import record_graph_run  # noqa: E402

TOPICS = [["a", "b"], ["a"], ["a", "b", "c"], ["x", "y"], ["q"]]


def reference_for(topics: list[str]) -> dict[str, Any]:
    """plan, then the audit beside one researcher per topic (in any order), then write."""
    return {
        "inputs": None,
        "results": {"notes_written": len(topics) + 3},
        "steps": [
            {"steps": ["plan"], "match_mode": "exact"},
            {"steps": ["audit", *(["research"] * len(topics))], "match_mode": "unordered"},
            {"steps": ["write"], "match_mode": "exact"},
        ],
    }


def example(inputs: dict[str, Any], outputs: dict[str, Any]) -> Example:
    return Example(
        id=uuid.uuid4(),
        dataset_id=uuid.uuid4(),
        inputs=inputs,
        outputs=outputs,
        created_at=datetime.now(timezone.utc),
    )


GRAPH = fan_out_graph()


def graph_target(inputs: dict[str, Any]) -> dict[str, Any]:
    """Run the agent once; its outputs are its trajectory, with a summary as ``results``."""
    with tracing_context(enabled=False):  # evaluate() turns local tracing on
        result, trajectory = record_graph_run(GRAPH, {"topics": inputs["topics"]})
    summary = None if result is None else {"notes_written": len(result["notes"])}
    return {"inputs": trajectory["inputs"], "results": summary, "steps": trajectory["steps"]}


def graph_evaluators() -> list[Any]:
    return [
        create_graph_trajectory_match_evaluator(),
        create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.5),
        create_graph_trajectory_rules_evaluator(
            forbidden=["drop"], max_supersteps=3, before=[("plan", "write")]
        ),
        create_json_match_evaluator(aggregator="average"),  # on the whole run dict
    ]


Feedback = list[tuple[str, Any, Any]]


def collected(rows: list[Any]) -> dict[str, Feedback]:
    table = {}
    for row in rows:
        feedback = [(r.key, r.score, r.comment) for r in row["evaluation_results"]["results"]]
        table[repr(row["example"].inputs["topics"])] = sorted(feedback, key=repr)
    return table


def direct(evaluators: list[Any], target: Any, data: list[Example]) -> dict[str, Feedback]:
    table = {}
    for item in data:
        outputs = target(item.inputs)
        feedback = []
        for evaluator in evaluators:
            answer = evaluator(outputs=outputs, reference_outputs=item.outputs)
            for result in answer if isinstance(answer, list) else [answer]:
                feedback.append((result["key"], result["score"], result["comment"]))
        table[repr(item.inputs["topics"])] = sorted(feedback, key=repr)
    return table


def scores(feedback: Feedback) -> dict[str, Any]:
    return {key: score for key, score, _ in feedback}


def graph_data() -> list[Example]:
    return [example({"topics": topics}, reference_for(topics)) for topics in TOPICS]


def test_evaluate_a_langgraph_target_with_several_evaluators_concurrently() -> None:
    data, evaluators = graph_data(), graph_evaluators()
    rows = list(
        evaluate(
            graph_target,
            data=data,
            evaluators=evaluators,
            upload_results=False,
            client=offline_client(),
            max_concurrency=4,
        )
    )
    got = collected(rows)
    assert got == direct(evaluators, graph_target, data)
    strict = {
        topics: scores(feedback)["graph_trajectory_match"] for topics, feedback in got.items()
    }
    # the agent skips its audit with three topics or more: only that run fails
    assert strict == {repr(topics): len(topics) < 3 for topics in TOPICS}
    comments = {key: comment for key, _, comment in got[repr(["a", "b", "c"])]}
    assert comments["graph_trajectory_match"].startswith("run 0, superstep 1 (unordered")


@offline_aevaluate
async def test_aevaluate_a_langgraph_target_with_async_evaluators_concurrently() -> None:
    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        return graph_target(inputs)

    evaluators = [
        create_async_graph_trajectory_match_evaluator(
            eval_results=True,
            results_evaluator=create_async_json_match_evaluator(aggregator="all"),
        ),
        create_async_graph_trajectory_rules_evaluator(max_visits={"research": 2}),
    ]
    data = graph_data()
    results = await aevaluate(
        target,
        data=data,
        evaluators=evaluators,
        upload_results=False,
        client=offline_client(),
        max_concurrency=3,
    )
    got = collected([row async for row in results])
    sync_twins = [
        create_graph_trajectory_match_evaluator(
            eval_results=True, results_evaluator=create_json_match_evaluator(aggregator="all")
        ),
        create_graph_trajectory_rules_evaluator(max_visits={"research": 2}),
    ]
    assert got == direct(sync_twins, graph_target, data)
    assert scores(got[repr(["a", "b", "c"])])["graph_trajectory_max_visits"] is False
    assert scores(got[repr(["a", "b"])])["graph_trajectory_max_visits"] is True


def extract(inputs: dict[str, Any]) -> dict[str, Any]:
    """A structured-output 'model' that gets Bob's age wrong and does not know Cy's city."""
    name, age = inputs["text"].split()
    city = {"Ann": "Paris", "Bob": "Rome"}.get(name)
    return {"person": {"name": name, "age": int(age) + (name == "Bob")}, "city": city}


def people() -> list[Example]:
    rows = [("Ann", 30, "Paris", "a"), ("Bob", 40, "Rome", "b"), ("Cy", 5, "Oslo", "c")]
    return [
        example(
            {"text": f"{name} {age}", "topics": [topic]},
            {"person": {"name": name, "age": age}, "city": city},
        )
        for name, age, city, topic in rows
    ]


def test_structured_output_target_with_json_and_graph_evaluators_together() -> None:
    data = people()

    def keys_as_supersteps(*, outputs: dict[str, Any], **_: Any) -> dict[str, Any]:
        run = {"inputs": None, "results": None, "steps": [[key] for key in outputs]}
        return dict(graph_trajectory_match(outputs=run, reference_outputs=run))

    sync = [create_json_match_evaluator(), create_json_match_evaluator(aggregator="all")]
    rows = list(
        evaluate(
            extract,
            data=data,
            evaluators=[*sync, keys_as_supersteps],
            upload_results=False,
            client=offline_client(),
            max_concurrency=2,
        )
    )
    expected = direct([*sync, keys_as_supersteps], extract, data)
    assert collected(rows) == expected
    assert scores(expected[repr(["b"])]) == {
        "json_match:city": 1,
        "json_match:person": 0,
        "json_match:all": 0,
        "graph_trajectory_match": True,
    }


@offline_aevaluate
async def test_structured_output_target_with_async_json_evaluators() -> None:
    data = people()
    sync = [create_json_match_evaluator(), create_json_match_evaluator(aggregator="all")]

    async def async_extract(inputs: dict[str, Any]) -> dict[str, Any]:
        return extract(inputs)

    asynchronous = await aevaluate(
        async_extract,
        data=data,
        evaluators=[
            create_async_json_match_evaluator(),
            create_async_json_match_evaluator(aggregator="all"),
        ],
        upload_results=False,
        client=offline_client(),
        max_concurrency=3,
    )
    assert collected([row async for row in asynchronous]) == direct(sync, extract, data)


async def test_graph_evaluators_log_feedback_in_langsmith_pytest_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = {"inputs": None, "results": None, "steps": [["plan"], ["research"], ["write"]]}
    reference = reference_for(["a"])
    with langsmith_test_case(monkeypatch) as received:
        strict = create_graph_trajectory_match_evaluator()(outputs=run, reference_outputs=reference)
        partial = await create_async_graph_trajectory_match_evaluator(partial_credit=True)(
            outputs=run, reference_outputs=reference
        )
        rules = create_graph_trajectory_rules_evaluator(forbidden=["drop"], max_supersteps=2)(
            outputs=run
        )
        plain = graph_trajectory_match(outputs=run, reference_outputs=reference)
    expected = [
        {"key": r["key"], "score": r["score"], "comment": r["comment"]}
        for r in [strict, partial, *rules, plain]
    ]
    assert received == expected
    # the middle superstep meets half its reference (Jaccard 1/2): (1 + 1/2 + 1) / 3
    assert [f["score"] for f in received] == [False, pytest.approx(2.5 / 3), True, False, False]


@pytest.mark.langsmith
def test_under_the_real_langsmith_marker_offline_nothing_is_logged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``LANGSMITH_TEST_TRACKING=false`` (how the suite runs offline) the marker runs the
    test plainly: the evaluators score as usual and, like openevals', log nothing."""
    from openevals.json import create_json_match_evaluator as openevals_json_match

    received: list[dict[str, Any]] = []
    monkeypatch.setattr(ls_testing, "log_feedback", lambda **kwargs: received.append(kwargs))
    run = {"inputs": None, "results": None, "steps": [["plan"], ["audit", "research"], ["write"]]}
    result = create_graph_trajectory_match_evaluator()(
        outputs=run, reference_outputs=reference_for(["a"])
    )
    ours = create_json_match_evaluator()(outputs={"a": 1}, reference_outputs={"a": 2})
    theirs = openevals_json_match()(outputs={"a": 1}, reference_outputs={"a": 2})
    assert result["score"] is True
    assert [(r["key"], r["score"]) for r in ours] == [(r["key"], r["score"]) for r in theirs]
    assert received == []
