"""A real LangGraph run's final state (a dict with ``messages`` and other keys) is a
trajectory; skipped without LangGraph."""

from __future__ import annotations

import operator
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool as make_tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict

from matchevals.trajectory import create_trajectory_match_evaluator
from tests.trajectory.helpers import assistant, openai_call, tool, user

WEATHER = {"city": "SF", "units": "C"}


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]
    turns: Annotated[int, operator.add]


@make_tool
def get_weather(city: str, units: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def test_the_state_of_a_real_langgraph_run() -> None:
    def agent(state: State) -> dict[str, Any]:
        if not any(isinstance(m, ToolMessage) for m in state["messages"]):
            call = {"name": "get_weather", "args": WEATHER, "id": "call_1"}
            return {"messages": [AIMessage("", tool_calls=[call])], "turns": 1}
        return {"messages": [AIMessage("It is sunny.")], "turns": 1}

    def route(state: State) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    builder = StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([get_weather]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", END])
    builder.add_edge("tools", "agent")
    state = builder.compile().invoke({"messages": [HumanMessage("Weather in SF?")], "turns": 0})
    reference = [
        user(),
        assistant(openai_call("get_weather", WEATHER)),
        tool(),
        assistant(text="sunny"),
    ]
    strict = create_trajectory_match_evaluator()
    assert strict(outputs=state, reference_outputs=reference)["score"] is True
    other = [user(), assistant(openai_call("get_weather", {"city": "LA", "units": "C"})), tool()]
    result = strict(outputs=state, reference_outputs=other)
    assert result["comment"].startswith("outputs has 4 messages, reference_outputs has 3; ")
    assert "get_weather args.city (outputs.messages[1].tool_calls[0] vs " in result["comment"]
