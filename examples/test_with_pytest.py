"""Evaluations as ordinary pytest tests: assertions that explain, and captured LangGraph runs.

Run: python -m pytest examples/test_with_pytest.py

* ``assert_json_match`` / ``assert_graph_trajectory_match`` pass silently or fail with the
  differing paths, or the trajectories side by side with the first divergence marked.
* With matchevals installed, its pytest plugin explains plain assertions on evaluator results
  (``assert result["score"]``) and provides the ``graph_runs`` fixture, which records every
  LangGraph invocation the test makes (the test is skipped without LangGraph).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from matchevals.graph_trajectory import ReferenceStep, Repeat
from matchevals.json_match import create_json_match_evaluator
from matchevals.testing import assert_graph_trajectory_match, assert_json_match


def extract_contact(text: str) -> dict[str, Any]:
    """The 'model' under test: a tiny rule-based contact extractor."""
    name, email, city = (part.strip() for part in text.split(","))
    return {"name": name.title(), "email": email.lower(), "address": {"city": city}}


def test_contact_extraction_matches_the_reference() -> None:
    output = extract_contact("ada lovelace, ADA@example.com, London")
    assert_json_match(
        output,
        {"name": "Ada Lovelace", "email": "ada@example.com", "address": {"city": "London"}},
    )


def test_a_batch_reaches_the_bar_on_average() -> None:
    outputs = [extract_contact(t) for t in ["bo, bo@x.io, Oslo", "cy, cy@x.io, Rome"]]
    references = [
        {"name": "Cy", "email": "cy@x.io", "address": {"city": "Rome"}},
        {"name": "Bo", "email": "bo@x.io", "address": {"city": "Bergen"}},  # one miss
    ]
    assert_json_match(
        outputs, references, threshold=0.8, aggregator="average", list_aggregator="average"
    )


def test_plain_asserts_on_results_are_explained_by_the_plugin() -> None:
    evaluator = create_json_match_evaluator(aggregator="all")
    result = evaluator(outputs={"city": "Oslo"}, reference_outputs={"city": "Oslo"})[0]
    assert result["score"]  # on failure the plugin prints: city  expected ...  actual ...


class State(TypedDict, total=False):
    steps_left: int
    log: Annotated[list[str], operator.add]


def build_agent() -> Any:
    """agent ↔ tools until ``steps_left`` runs out, with a ``memory`` node beside each tool call."""
    graph = pytest.importorskip("langgraph.graph")
    builder = graph.StateGraph(State)
    builder.add_node("agent", lambda s: {"steps_left": s["steps_left"] - 1, "log": ["agent"]})
    builder.add_node("tools", lambda s: {"log": ["tools"]})
    builder.add_node("memory", lambda s: {"log": ["memory"]})
    builder.add_edge(graph.START, "agent")
    builder.add_conditional_edges(
        "agent", lambda s: ["tools", "memory"] if s["steps_left"] > 0 else graph.END
    )
    builder.add_edge(["tools", "memory"], "agent")
    return builder.compile()


@pytest.mark.parametrize("rounds", [1, 3])
def test_agent_loops_through_tools_with_memory_beside_them(graph_runs: Any, rounds: int) -> None:
    build_agent().invoke({"steps_left": rounds + 1, "log": []})  # the last turn answers
    (run,) = graph_runs.trajectories
    loop = Repeat([["agent"], ReferenceStep(["tools", "memory"], "unordered")], min=1)
    assert_graph_trajectory_match(
        run, {"inputs": None, "results": None, "steps": [loop, ["agent"]]}
    )
