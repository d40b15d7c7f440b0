"""End to end: a LangGraph fan-out agent as the target of the real ``langsmith.evaluate``, offline.

The target is an unmodified ``graph.invoke``; ``capture_graph_runs`` around ``evaluate`` records
each run (in LangSmith's worker threads too), and ``graph_trajectory_match`` scores it against a
reference with per-superstep modes.
"""

from __future__ import annotations

import uuid
from typing import Any

import langsmith
import pytest
from langgraph.graph import START, StateGraph
from langgraph.types import Send
from langsmith.schemas import Example

from matchevals.graph_trajectory import ReferenceStep, graph_trajectory_match
from matchevals.graph_trajectory.langgraph import capture_graph_runs
from tests.capture.capture_graphs import Item, add_nodes


class Plan(Item, total=False):
    topics: list[str]


def fan_out_agent() -> Any:
    """plan → {audit, research ×len(topics)} → write."""
    builder = StateGraph(Plan)
    add_nodes(builder, "plan audit write", False)
    builder.add_node("research", lambda s: {"log": [f"research:{s['item']}"]})
    builder.add_edge(START, "plan")

    def route(state: Plan) -> list[Any]:
        return ["audit", *(Send("research", {"item": i}) for i in range(len(state["topics"])))]

    builder.add_conditional_edges("plan", route, ["audit", "research"])
    builder.add_edge(["audit", "research"], "write")
    return builder.compile()


def reference(researchers: int) -> list[ReferenceStep]:
    return [
        ReferenceStep(["plan"], "exact"),
        # at least this many researchers, whatever else runs beside them
        ReferenceStep(["research"] * researchers, "superset"),
        ReferenceStep(["write"], "exact"),
    ]


@pytest.mark.filterwarnings("ignore:.upload_runs. parameter is in beta")
def test_langsmith_evaluate_offline_with_captured_trajectories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("LANGSMITH_TEST_TRACKING", "false")
    graph = fan_out_agent()
    client = langsmith.Client(
        api_key="offline", api_url="http://127.0.0.1:9", auto_batch_tracing=False
    )
    cases = [(["a", "b"], 2), (["a", "b", "c"], 2), (["a"], 2)]  # the last one falls short
    data = [
        Example(
            id=uuid.uuid4(),
            inputs={"topics": topics, "log": []},
            outputs={"researchers": expected},
            dataset_id=uuid.uuid4(),
        )
        for topics, expected in cases
    ]

    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        with langsmith.tracing_context(enabled=False):
            return graph.invoke(inputs)  # type: ignore[no-any-return]

    with capture_graph_runs() as captured:

        def trajectory_match(
            *, inputs: dict[str, Any], reference_outputs: dict[str, Any]
        ) -> dict[str, Any]:
            run = next(r for r in captured.trajectories if r["inputs"] == inputs)
            result = graph_trajectory_match(
                outputs=run,
                reference_outputs={
                    "inputs": None,
                    "results": None,
                    "steps": reference(reference_outputs["researchers"]),
                },
            )
            return dict(result)

        results = langsmith.evaluate(
            target,
            data=data,
            evaluators=[trajectory_match],
            client=client,
            upload_results=False,
            max_concurrency=2,
        )
        rows = list(results)

    assert len(captured.trajectories) == 3
    by_topics = {
        len(r["inputs"]["topics"]): r["steps"] for r in captured.trajectories if r["inputs"]
    }
    assert by_topics[3] == [["plan"], ["audit", "research", "research", "research"], ["write"]]
    assert by_topics[1] == [["plan"], ["audit", "research"], ["write"]]
    scores = {
        len(row["example"].inputs["topics"]): row["evaluation_results"]["results"][0].score
        for row in rows
    }
    assert scores == {2: True, 3: True, 1: False}
