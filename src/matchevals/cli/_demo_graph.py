"""The LangGraph fan-out agent of ``matchevals demo`` (needs the ``langgraph`` extra).

plan → {audit, research × one per topic} → write. It has a planted bug: with three topics or
more, ``plan`` skips the audit, which the per-superstep reference catches.

(No ``from __future__ import annotations`` here: LangGraph reads the state's annotations.)
"""

import operator
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

__all__ = ["State", "fan_out_graph"]


class State(TypedDict, total=False):
    topics: list[str]
    topic: str
    notes: Annotated[list[str], operator.add]


def _plan(state: State) -> dict[str, Any]:
    return {"notes": [f"planned {len(state['topics'])} topics"]}


def _route(state: State) -> list[Any]:
    sends: list[Any] = [Send("research", {"topic": topic}) for topic in state["topics"]]
    return sends if len(state["topics"]) >= 3 else ["audit", *sends]


def fan_out_graph() -> Any:
    """The compiled graph.

    >>> fan_out_graph().invoke({"topics": ["a"]})["notes"][-1]
    'report written'
    """
    builder = StateGraph(State)
    builder.add_node("plan", _plan)
    builder.add_node("audit", lambda state: {"notes": ["audited"]})
    builder.add_node("research", lambda state: {"notes": [f"researched {state['topic']}"]})
    builder.add_node("write", lambda state: {"notes": ["report written"]})
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", _route, ["audit", "research"])
    builder.add_edge(["audit", "research"], "write")
    builder.add_edge("write", END)
    return builder.compile()
