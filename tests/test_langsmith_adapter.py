"""The LangSmith edge: traced runs when tracing is on, feedback in LangSmith pytest tests,
and the real ``langsmith.evaluate`` / ``aevaluate`` run fully offline."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langsmith import aevaluate, evaluate, traceable
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree
from langsmith.schemas import Example
from openevals.json import create_json_match_evaluator as openevals_json_match

import matchevals._langsmith as adapter
from matchevals.graph_trajectory import (
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.graph_trajectory.strict import graph_trajectory_strict_match
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.langsmith_offline import (
    langsmith_test_case,
    offline_aevaluate,
    offline_client,
    run_traced,
)

OUTPUTS = {"name": "Alice", "age": 20}
REFERENCES = {"name": "Alice", "age": 30}


def test_inside_a_trace_the_evaluator_is_a_traced_run() -> None:
    evaluator = create_json_match_evaluator()
    parent = run_traced(lambda: evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES))
    (child,) = parent.child_runs
    assert child.name == "json_match_evaluator"
    assert child.inputs == {"outputs": OUTPUTS, "reference_outputs": REFERENCES}
    assert child.outputs == {"output": evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)}
    assert child.metadata["__ls_framework"] == "matchevals"


def test_every_evaluator_traces_the_inputs_it_is_given() -> None:
    steps = {"steps": [["a"]]}
    calls = [{"role": "ai", "tool_calls": [{"name": "a", "args": {}}]}]
    cases = [
        (create_json_match_evaluator(), OUTPUTS, REFERENCES),
        (create_trajectory_match_evaluator(), calls, calls),
        (create_graph_trajectory_match_evaluator(), steps, steps),
        (graph_trajectory_strict_match, {"steps": [["a"]]}, {"steps": [["a"]]}),
    ]
    for evaluator, outputs, references in cases:
        parent = run_traced(
            lambda e=evaluator, o=outputs, r=references: e(
                outputs=o, reference_outputs=r, inputs={"question": "q"}
            )
        )
        (child,) = parent.child_runs
        assert child.inputs == {
            "outputs": outputs,
            "reference_outputs": references,
            "inputs": {"question": "q"},
        }, child.name
    rules = create_graph_trajectory_rules_evaluator(forbidden=["b"])
    (child,) = run_traced(lambda: rules(outputs=steps, inputs={"question": "q"})).child_runs
    assert child.inputs == {"outputs": steps, "inputs": {"question": "q"}}


async def test_inside_a_trace_the_async_evaluator_is_a_traced_run() -> None:
    evaluator = create_async_json_match_evaluator(aggregator="average")
    finished: list[RunTree] = []

    @traceable(name="parent")
    async def parent() -> Any:
        return await evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)

    with tracing_context(enabled="local", client=offline_client()):
        await parent(langsmith_extra={"on_end": finished.append})
    (child,) = finished[0].child_runs
    assert child.name == "json_match_evaluator"
    assert child.outputs is not None
    assert child.outputs["output"][0]["score"] == 0.5


def test_traceable_is_applied_once_per_evaluator_not_per_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    applied: list[str] = []
    real_traceable = adapter.traceable

    def counting_traceable(*args: Any, **kwargs: Any) -> Any:
        applied.append(kwargs.get("name", ""))
        return real_traceable(*args, **kwargs)

    monkeypatch.setattr(adapter, "traceable", counting_traceable)
    steps = {"steps": [["a"]]}
    calls = [{"role": "ai", "tool_calls": [{"name": "a", "args": {}}]}]
    for build, outputs, references in [
        (create_json_match_evaluator, OUTPUTS, REFERENCES),  # aggregator None: a result per key
        (create_trajectory_match_evaluator, calls, calls),
        (create_graph_trajectory_match_evaluator, steps, steps),
    ]:
        applied.clear()
        evaluator = build()
        built = len(applied)
        for _ in range(20):
            run_traced(
                lambda e=evaluator, o=outputs, r=references: e(outputs=o, reference_outputs=r)
            )
        assert len(applied) == built == 2, build  # a sync and an async wrapper, at creation


def test_with_tracing_off_no_run_is_created(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluator = create_json_match_evaluator()

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the traced wrapper must not run with tracing off")

    monkeypatch.setattr(adapter.EvaluatorRun, "traced", fail)
    with tracing_context(enabled=False):
        assert evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)[0]["score"] == 0


@pytest.mark.parametrize("aggregator", [None, "average"])
async def test_in_a_langsmith_pytest_test_results_are_logged_as_feedback(
    monkeypatch: pytest.MonkeyPatch, aggregator: str | None
) -> None:
    with langsmith_test_case(monkeypatch) as received:
        ours = create_json_match_evaluator(aggregator=aggregator)(
            outputs=OUTPUTS, reference_outputs=REFERENCES
        )
        ours_async = await create_async_json_match_evaluator(aggregator=aggregator)(
            outputs=OUTPUTS, reference_outputs=REFERENCES
        )
        theirs = openevals_json_match(aggregator=aggregator)(
            outputs=OUTPUTS, reference_outputs=REFERENCES
        )
    expected = [{"key": r["key"], "score": r["score"], "comment": r["comment"]} for r in ours]
    assert received == expected + expected
    assert ours == ours_async
    # openevals scores (and would log) the same keys and scores; it has no comments for them.
    theirs = theirs if isinstance(theirs, list) else [theirs]
    assert [(f["key"], f["score"]) for f in expected] == [(r["key"], r["score"]) for r in theirs]


def examples() -> list[Example]:
    records = [
        ({"text": "Alice is 20"}, {"name": "Alice", "age": 20}),
        ({"text": "Bob is 31"}, {"name": "Bob", "age": 30}),
        ({"text": "Carol"}, {"name": "Carol", "age": None}),
    ]
    dataset_id = uuid.uuid4()
    return [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset_id,
            inputs=inputs,
            outputs=outputs,
            created_at=datetime.now(timezone.utc),
        )
        for inputs, outputs in records
    ]


def extract(inputs: dict[str, Any]) -> dict[str, Any]:
    """A tiny structured-output 'model': name and age parsed from the text."""
    words = inputs["text"].split()
    age = int(words[-1]) if words[-1].isdigit() else None
    return {"name": words[0], "age": age}


def collected(results: Any) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for row in results:
        feedback = {r.key: r.score for r in row["evaluation_results"]["results"]}
        rows.append((row["example"].inputs["text"], feedback))
    return sorted(rows)


def direct(evaluators: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for example in examples():
        outputs = extract(example.inputs)
        feedback: dict[str, Any] = {}
        for evaluator in evaluators:
            for result in evaluator(outputs=outputs, reference_outputs=example.outputs):
                feedback[result["key"]] = result["score"]
        rows.append((example.inputs["text"], feedback))
    return sorted(rows)


def test_real_langsmith_evaluate_offline_collects_what_direct_calls_return() -> None:
    evaluators = [
        create_json_match_evaluator(),
        create_json_match_evaluator(aggregator="average"),
    ]
    results = evaluate(
        extract,
        data=examples(),
        evaluators=evaluators,
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    assert collected(results) == direct(evaluators)
    assert dict(collected(results))["Bob is 31"] == {
        "json_match:age": 0,
        "json_match:name": 1,
        "json_match:average": 0.5,
    }


@offline_aevaluate
async def test_real_langsmith_aevaluate_offline_collects_what_direct_calls_return() -> None:
    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        return extract(inputs)

    evaluators = [create_async_json_match_evaluator(aggregator="all")]
    results = await aevaluate(
        target,
        data=examples(),
        evaluators=evaluators,
        upload_results=False,
        client=offline_client(),
        max_concurrency=3,
    )
    rows = sorted(
        [
            (
                row["example"].inputs["text"],
                {r.key: r.score for r in row["evaluation_results"]["results"]},
            )
            async for row in results
        ]
    )
    assert rows == direct([create_json_match_evaluator(aggregator="all")])


async def test_traced_outside_a_langsmith_test_nothing_is_logged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With test tracking on but no ``@pytest.mark.langsmith`` test running, langsmith's real
    ``trace_feedback`` refuses; the adapter takes that as "not in a test" and only traces."""
    from langsmith import testing as ls_testing
    from langsmith.utils import get_env_var

    monkeypatch.setenv("LANGSMITH_TEST_TRACKING", "true")
    get_env_var.cache_clear()
    logged: list[Any] = []
    monkeypatch.setattr(ls_testing, "log_feedback", lambda **kwargs: logged.append(kwargs))
    try:
        with pytest.raises(ValueError, match="pytest test"), ls_testing.trace_feedback(name="p"):
            pass
        sync = create_json_match_evaluator()
        asynchronous = create_async_json_match_evaluator()
        parent = run_traced(lambda: sync(outputs=OUTPUTS, reference_outputs=REFERENCES))
        with tracing_context(enabled="local", client=offline_client()):
            results = await asynchronous(outputs=OUTPUTS, reference_outputs=REFERENCES)
    finally:
        monkeypatch.undo()
        get_env_var.cache_clear()
    assert [child.name for child in parent.child_runs] == ["json_match_evaluator"]
    assert results == sync(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert [r["score"] for r in results] == [0, 1]
    assert logged == []
