"""graph_target / async_graph_target: langsmith.evaluate targets whose outputs are the run's
trajectory, so evaluators never look their run up by inputs (two examples may share them)."""

from __future__ import annotations

import operator
import uuid
from datetime import datetime, timezone
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langsmith import aevaluate, evaluate
from langsmith.schemas import Example

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    graph_trajectory_match,
)
from matchevals.graph_trajectory.langgraph import async_graph_target, graph_target
from tests.langsmith_offline import offline_aevaluate, offline_client


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    topic: str


def fan_out(checkpointer: Any = None) -> Any:
    builder = StateGraph(State)
    for name in ("plan", "left", "right", "write"):
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "left")
    builder.add_edge("plan", "right")
    builder.add_edge(["left", "right"], "write")
    return builder.compile(checkpointer=checkpointer, name="fan_out")


RIGHT = [["plan"], ["left", "right"], ["write"]]
WRONG = [["plan"], ["left"], ["right"], ["write"]]


def examples() -> list[Example]:
    """Two examples with the same inputs and different references."""
    dataset = uuid.uuid4()
    return [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset,
            inputs={"topic": "same"},
            outputs={"inputs": None, "results": None, "steps": steps},
            created_at=datetime.now(timezone.utc),
        )
        for steps in (RIGHT, WRONG)
    ]


def rows_by_reference(rows: Any) -> dict[str, tuple[Any, Any]]:
    table = {}
    for row in rows:
        steps = row["example"].outputs["steps"]
        (result,) = row["evaluation_results"]["results"]
        table["right" if steps == RIGHT else "wrong"] = (result.score, row["run"].outputs)
    return table


def test_each_example_is_scored_against_its_own_run_even_with_shared_inputs() -> None:
    target = graph_target(
        fan_out(), results=lambda state: {"notes": len(state["log"])}, trace=False
    )
    assert target.__name__ == "fan_out_target"
    rows = evaluate(
        target,
        data=examples(),
        evaluators=[graph_trajectory_match],
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    table = rows_by_reference(rows)
    expected_outputs = {"inputs": {"topic": "same"}, "results": {"notes": 4}, "steps": RIGHT}
    assert table == {"right": (True, expected_outputs), "wrong": (False, expected_outputs)}


def test_a_checkpointed_graph_runs_each_example_on_a_new_thread() -> None:
    graph = fan_out(InMemorySaver())
    target = graph_target(graph, trace=False)
    first, second = target({"topic": "same"}), target({"topic": "same"})
    assert first == second  # no state carried over from the first call
    assert first["results"] == {"topic": "same", "log": ["plan", "left", "right", "write"]}
    fixed = graph_target(graph, config={"configurable": {"thread_id": "t"}}, trace=False)
    fixed({"topic": "a"})
    assert len(fixed({"topic": "b"})["results"]["log"]) == 8  # the same thread, on purpose
    per_example = graph_target(
        graph, config=lambda inputs: {"configurable": {"thread_id": inputs["topic"]}}
    )
    assert per_example({"topic": "c"})["steps"] == RIGHT


@offline_aevaluate
async def test_the_async_target_in_aevaluate() -> None:
    rows = await aevaluate(
        async_graph_target(fan_out(), trace=False),
        data=examples(),
        evaluators=[create_async_graph_trajectory_match_evaluator()],
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    table = rows_by_reference([row async for row in rows])
    assert {name: score for name, (score, _) in table.items()} == {"right": True, "wrong": False}
    assert table["right"][1]["steps"] == RIGHT
