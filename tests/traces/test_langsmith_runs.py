"""LangSmith run trees made by real LangGraph agents under ``langsmith.evaluate`` offline."""

from __future__ import annotations

import uuid
from typing import Any

import langsmith
import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langsmith.schemas import Example

from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
from matchevals.graph_trajectory.langgraph import record_graph_run
from matchevals.traces import (
    TraceError,
    evaluate_run_trajectory,
    graph_runs_from_langsmith_run,
    trajectory_from_langsmith_run,
)
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.langsmith_offline import offline_aevaluate, tracing_client
from tests.scripted_chat import ScriptedChatModel

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def get_news(topic: str) -> str:
    """News on a topic."""
    return f"news on {topic}"


def _agent() -> Any:
    from langgraph.prebuilt import create_react_agent

    calls = [{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"},
             {"name": "get_news", "args": {"topic": "AI"}, "id": "c2"}]  # fmt: skip
    model = ScriptedChatModel(script=[AIMessage(content="", tool_calls=calls), AIMessage(content="done")])  # fmt: skip # noqa: E501
    return create_react_agent(model, [get_weather, get_news], prompt="Be brief.")


REFERENCE = {
    "trajectory": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [
            {"function": {"name": "get_news", "arguments": {"topic": "AI"}}},
            {"function": {"name": "get_weather", "arguments": {"city": "SF"}}}]},
        {"role": "tool", "content": ""},
        {"role": "tool", "content": ""},
        {"role": "assistant", "content": "done"},
    ],
    "graph": {"inputs": None, "results": None, "steps": [["agent"], ["tools", "tools"], ["agent"]]},
}  # fmt: skip


def _example() -> Example:
    return Example(id=uuid.uuid4(), inputs={"question": "hi"}, outputs=REFERENCE, dataset_id=uuid.uuid4())  # fmt: skip # noqa: E501


def _runs(evaluators: list[Any]) -> list[Any]:
    agent = _agent()

    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        state = agent.invoke({"messages": [{"role": "user", "content": inputs["question"]}]})
        return {"answer": state["messages"][-1].content}  # the trajectory is not returned

    results = langsmith.evaluate(
        target,
        data=[_example()],
        evaluators=evaluators,
        upload_results=False,
        client=tracing_client(),
    )
    return list(results)


def test_evaluate_scores_tool_calls_and_supersteps_from_the_run() -> None:
    strict = evaluate_run_trajectory(
        create_trajectory_match_evaluator(trajectory_match_mode="strict"),
        reference_key="trajectory",
    )
    graph = evaluate_run_trajectory(
        create_graph_trajectory_match_evaluator(), source="graph", reference_key="graph"
    )
    (row,) = _runs([strict, graph])
    scores = {r.key: r.score for r in row["evaluation_results"]["results"]}
    assert scores == {"trajectory_strict_match": True, "graph_trajectory_match": True}


def test_the_run_tree_reads_like_the_live_capture() -> None:
    seen: list[Any] = []

    def keep(run: Any, example: Any) -> dict[str, Any]:
        seen.append(run)
        return {"key": "kept", "score": 1}

    _runs([keep])
    messages = trajectory_from_langsmith_run(seen[0])
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m.get("tool_call_id") for m in messages[2:4]] == ["c1", "c2"]
    assert messages[2]["content"] == "sunny in SF"
    (run,) = graph_runs_from_langsmith_run(seen[0])
    _, live = record_graph_run(_agent(), {"messages": [{"role": "user", "content": "hi"}]})
    assert run["steps"] == live["steps"] == [["agent"], ["tools", "tools"], ["agent"]]
    assert run["inputs"] == live["inputs"]


@offline_aevaluate
async def test_aevaluate_takes_the_async_twin() -> None:
    agent = _agent()

    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        await agent.ainvoke({"messages": [{"role": "user", "content": inputs["question"]}]})
        return {}

    evaluator = evaluate_run_trajectory(
        create_async_trajectory_match_evaluator(trajectory_match_mode="superset"),
        reference_key="trajectory",
    )
    results = await langsmith.aevaluate(
        target,
        data=[_example()],
        evaluators=[evaluator],
        upload_results=False,
        client=tracing_client(),
    )
    rows = [row async for row in results]
    assert rows[0]["evaluation_results"]["results"][0].score is True


def test_run_dicts_refuse_what_they_cannot_read() -> None:
    llm = {
        "id": "r1",
        "name": "model",
        "run_type": "llm",
        "inputs": {"messages": [[{"type": "human", "content": "hi"}]]},
        "outputs": {
            "generations": [
                [
                    {"message": {"type": "ai", "content": "a"}},
                    {"message": {"type": "ai", "content": "b"}},
                ]
            ]
        },
    }
    with pytest.raises(TraceError, match=r"r1 \('model'\).*2 generations \(choices\)"):
        trajectory_from_langsmith_run({"id": "root", "run_type": "chain", "child_runs": [llm]})
    with pytest.raises(TraceError, match="no LangGraph run"):
        graph_runs_from_langsmith_run({"id": "root", "run_type": "chain", "child_runs": []})
    with pytest.raises(ValueError, match="reference_outputs has no key 'trajectory'"):
        evaluate_run_trajectory(lambda **kw: kw, reference_key="trajectory")(
            run={
                "id": "root",
                "run_type": "chain",
                "child_runs": [
                    {
                        **llm,
                        "outputs": {"generations": [[{"message": {"type": "ai", "content": "a"}}]]},
                    }
                ],
            },
            reference_outputs={},
        )
