"""Trajectory evaluators inside LangSmith: a traced run when tracing is on, feedback in a
LangSmith pytest test, and the real ``langsmith.evaluate`` / ``aevaluate`` fully offline."""

from __future__ import annotations

import pickle
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langsmith import aevaluate, evaluate, traceable
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree
from langsmith.schemas import Example

from matchevals.json_match import comparators, create_json_match_evaluator
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.langsmith_offline import (
    langsmith_test_case,
    offline_aevaluate,
    offline_client,
    run_traced,
)
from tests.trajectory.helpers import assistant, openai_call, user
from tests.trajectory.helpers import tool as tool_result

pytestmark = pytest.mark.filterwarnings("ignore:.upload_runs. parameter is in beta")

OUTPUTS = [user(), assistant(openai_call("search", {"q": "x"})), tool_result()]
REFERENCES = [user(), assistant(openai_call("search", {"q": "y"})), tool_result()]


def test_inside_a_trace_the_evaluator_is_one_traced_run() -> None:
    evaluator = create_trajectory_match_evaluator(
        tool_args_match_overrides={"search": {"comparators": {"q": comparators.text()}}}
    )
    parent = run_traced(lambda: evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES))
    (child,) = parent.child_runs
    assert child.name == "trajectory_strict_match"
    assert child.metadata["__ls_framework"] == "matchevals"
    assert child.inputs == {"outputs": OUTPUTS, "reference_outputs": REFERENCES}
    # a dict result is the run's outputs as it is (as openevals' run records it)
    assert child.outputs == evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert child.child_runs == []  # the json_match matcher inside is not traced on its own


async def test_inside_a_trace_the_async_evaluator_is_one_traced_run() -> None:
    evaluator = create_async_trajectory_match_evaluator(trajectory_match_mode="superset")
    finished: list[RunTree] = []

    @traceable(name="parent")
    async def parent() -> Any:
        return await evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)

    with tracing_context(enabled="local", client=offline_client()):
        await parent(langsmith_extra={"on_end": finished.append})
    (child,) = finished[0].child_runs
    assert child.name == "trajectory_superset_match"
    assert child.outputs is not None and child.outputs["score"] is False


async def test_in_a_langsmith_pytest_test_the_result_is_logged_as_feedback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with langsmith_test_case(monkeypatch) as received:
        sync = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
            outputs=OUTPUTS, reference_outputs=REFERENCES
        )
        asynchronous = await create_async_trajectory_match_evaluator(
            trajectory_match_mode="unordered"
        )(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert sync == asynchronous
    feedback = {"key": "trajectory_unordered_match", "score": False, "comment": sync["comment"]}
    assert received == [feedback, feedback]


def test_evaluators_pickle_with_their_options() -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="unordered",
        tool_args_match_overrides={"search": ["q"], "fetch": {"exclude_keys": ["id"]}},
        score="f1",
    )
    copied = pickle.loads(pickle.dumps(evaluator))
    assert copied(outputs=OUTPUTS, reference_outputs=REFERENCES) == evaluator(
        outputs=OUTPUTS, reference_outputs=REFERENCES
    )


def examples() -> list[Example]:
    """Each example: a question, and the reference trajectory as LangSmith stores outputs."""
    dataset_id = uuid.uuid4()
    answer = assistant(text="It is sunny.")
    cases = [
        (
            "weather in SF",
            [user(), assistant(openai_call("weather", {"city": "SF"})), tool_result(), answer],
        ),
        (
            "weather in LA",
            [user(), assistant(openai_call("weather", {"city": "LA"})), tool_result(), answer],
        ),
        ("hello", [user(), assistant(text="hi")]),
    ]
    return [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset_id,
            inputs={"question": question},
            outputs={"messages": reference},
            created_at=datetime.now(timezone.utc),
        )
        for question, reference in cases
    ]


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def scripted_model(question: str) -> GenericFakeChatModel:
    """A real LangChain chat model answering from a script: it asks for SF's weather whenever
    the question mentions weather (so "weather in LA" is answered wrongly), then answers."""
    if "weather" not in question:
        return GenericFakeChatModel(messages=iter([AIMessage("hi")]))
    call = {"name": "weather", "args": {"city": "SF"}, "id": "call_1", "type": "tool_call"}
    return GenericFakeChatModel(
        messages=iter([AIMessage("", tool_calls=[call]), AIMessage("Sunny.")])
    )


def agent(inputs: dict[str, Any]) -> dict[str, Any]:
    """A minimal tool-calling loop: the model, then each tool it asks for, until it answers."""
    model = scripted_model(inputs["question"])
    tools = {"weather": weather}
    messages: list[Any] = [HumanMessage(inputs["question"])]
    with tracing_context(enabled=False):  # evaluate() traces locally; keep the model out of it
        while True:
            reply = model.invoke(messages)
            messages.append(reply)
            if not reply.tool_calls:
                return {"messages": messages}
            for call in reply.tool_calls:
                messages.append(tools[call["name"]].invoke(call))


def question_of(example: Example) -> str:
    return str((example.inputs or {})["question"])


def _rows(results: Any) -> dict[str, dict[str, Any]]:
    return {
        question_of(row["example"]): {r.key: r.score for r in row["evaluation_results"]["results"]}
        for row in results
    }


def test_real_langsmith_evaluate_offline_collects_what_direct_calls_return() -> None:
    evaluators = [
        create_trajectory_match_evaluator(),
        create_trajectory_match_evaluator(trajectory_match_mode="unordered", score="f1"),
    ]
    results = evaluate(
        agent,
        data=examples(),
        evaluators=evaluators,
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    expected = {
        question_of(example): {
            result["key"]: result["score"]
            for result in (
                evaluator(outputs=agent(example.inputs or {}), reference_outputs=example.outputs)
                for evaluator in evaluators
            )
        }
        for example in examples()
    }
    assert _rows(results) == expected
    assert expected["weather in LA"] == {
        "trajectory_strict_match": False,
        "trajectory_unordered_match_f1": 0.0,
    }
    assert expected["weather in SF"]["trajectory_strict_match"] is True


@offline_aevaluate
async def test_real_langsmith_aevaluate_offline() -> None:
    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        return agent(inputs)

    results = await aevaluate(
        target,
        data=examples(),
        evaluators=[create_async_trajectory_match_evaluator(trajectory_match_mode="superset")],
        upload_results=False,
        client=offline_client(),
        max_concurrency=3,
    )
    rows = {
        question_of(row["example"]): {r.key: r.score for r in row["evaluation_results"]["results"]}
        async for row in results
    }
    assert rows == {
        "weather in SF": {"trajectory_superset_match": True},
        "weather in LA": {"trajectory_superset_match": False},
        "hello": {"trajectory_superset_match": True},
    }


def test_a_json_match_evaluator_as_a_matcher_under_tracing() -> None:
    """A json_match evaluator passed per tool runs quietly inside our own traced run."""
    overrides = {"search": create_json_match_evaluator(aggregator="all")}
    evaluator = create_trajectory_match_evaluator(tool_args_match_overrides=overrides)
    parent = run_traced(lambda: evaluator(outputs=OUTPUTS, reference_outputs=OUTPUTS))
    (child,) = parent.child_runs
    assert child.child_runs == []
    assert child.outputs == {
        "key": "trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }
