"""Evaluate a LangGraph agent with parallel nodes using ``langsmith.evaluate``, offline.

Run: python examples/langgraph_langsmith_eval.py        (needs: pip install "matchevals[langgraph]")

The agent fans out: ``plan`` starts a ``fact_check`` beside one ``research`` node per topic
(``Send``), and ``write`` joins them. The target is an unmodified ``graph.invoke``;
``capture_graph_runs`` records every run's supersteps, and a graph_trajectory evaluator checks
each superstep with its own mode. LangSmith runs everything locally: no API key, no upload.
"""

from __future__ import annotations

import operator
import uuid
from datetime import datetime, timezone
from typing import Annotated, Any, TypedDict

import langsmith
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from langsmith.schemas import Example

from matchevals.graph_trajectory import ReferenceStep, create_graph_trajectory_match_evaluator
from matchevals.graph_trajectory.langgraph import capture_graph_runs


class State(TypedDict, total=False):
    question: str
    topics: list[str]
    topic: str
    notes: Annotated[list[str], operator.add]


def plan(state: State) -> dict[str, Any]:
    return {"notes": [f"plan: {state['question']}"]}


def fan_out(state: State) -> list[Any]:
    researchers = [Send("research", {"topic": topic}) for topic in state["topics"]]
    if "skip-check" in state["question"]:  # a planted bug: some questions skip the fact check
        return researchers
    return ["fact_check", *researchers]


def build_agent() -> Any:
    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("fact_check", lambda state: {"notes": ["checked"]})
    builder.add_node("research", lambda state: {"notes": [f"found {state['topic']}"]})
    builder.add_node("write", lambda state: {"notes": ["answer"]})
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan_out, ["fact_check", "research"])
    builder.add_edge(["fact_check", "research"], "write")
    builder.add_edge("write", END)
    return builder.compile()


def reference(researchers: int) -> list[ReferenceStep]:
    return [
        ReferenceStep(["plan"], "exact"),
        ReferenceStep(["fact_check", *["research"] * researchers], "unordered"),
        ReferenceStep(["write"], "exact"),
    ]


CASES = [
    ("compare two cities", ["paris", "rome"]),
    ("one topic", ["tea"]),
    ("skip-check three topics", ["a", "b", "c"]),
]


def main() -> dict[str, Any]:
    agent = build_agent()
    client = langsmith.Client(
        api_key="offline", api_url="http://127.0.0.1:9", auto_batch_tracing=False
    )
    dataset = uuid.uuid4()
    data = [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset,
            inputs={"question": question, "topics": topics},
            outputs={"researchers": len(topics)},
            created_at=datetime.now(timezone.utc),
        )
        for question, topics in CASES
    ]

    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        with langsmith.tracing_context(enabled=False):  # keep LangChain's tracer offline
            return agent.invoke(inputs)  # type: ignore[no-any-return]

    match = create_graph_trajectory_match_evaluator(partial_credit=True, threshold=1.0)
    with capture_graph_runs() as captured:

        def supersteps(*, inputs: dict[str, Any], reference_outputs: dict[str, Any]) -> Any:
            run = next(r for r in captured.trajectories if r["inputs"] == inputs)
            expected = {
                "inputs": None,
                "results": None,
                "steps": reference(reference_outputs["researchers"]),
            }
            return match(outputs=run, reference_outputs=expected)

        rows = list(
            langsmith.evaluate(
                target,
                data=data,
                evaluators=[supersteps],
                client=client,
                upload_results=False,
                max_concurrency=2,
            )
        )
    scores = {}
    for row in sorted(rows, key=lambda r: r["example"].inputs["question"]):
        (result,) = row["evaluation_results"]["results"]
        question = row["example"].inputs["question"]
        scores[question] = result.score
        print(f"{question}: {result.key} = {result.score:.3g}")
        if result.score < 1:
            print(f"  why: {result.comment}")
    return scores


if __name__ == "__main__":
    main()
