"""matchevals.graph_trajectory.strict and .utils are agentevals 0.0.9's graph tools, by import.

The scenarios of agentevals' own graph tests (written here in our own words, with a scripted
chat model instead of a real LLM) run once against agentevals and once against matchevals with
only the import changed; then both extract the same real threads and must agree exactly.
"""

from __future__ import annotations

import importlib
import operator
import random
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from agentevals.graph_trajectory.strict import (
    graph_trajectory_strict_match as agentevals_strict,
)
from agentevals.graph_trajectory.utils import (
    aextract_langgraph_trajectory_from_thread as agentevals_aextract,
)
from agentevals.graph_trajectory.utils import (
    extract_langgraph_trajectory_from_thread as agentevals_extract,
)
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt

from matchevals.graph_trajectory.strict import (
    graph_trajectory_strict_match,
    graph_trajectory_strict_match_async,
)
from matchevals.graph_trajectory.utils import (
    aextract_langgraph_trajectory_from_thread,
    extract_langgraph_trajectory_from_thread,
)
from tests.capture.capture_graphs import SCENARIOS, Scenario
from tests.scripted_chat import ScriptedChatModel, tool_call

LIBRARIES = ["agentevals", "matchevals"]


def modules(library: str) -> tuple[Any, Any]:
    """(strict, utils) of one library: the only thing that differs between the two runs."""
    strict = importlib.import_module(f"{library}.graph_trajectory.strict")
    utils = importlib.import_module(f"{library}.graph_trajectory.utils")
    return strict, utils


# -- agentevals' utils scenario: a subgraph with a breakpoint beside a parallel node ---------


class Inner(TypedDict):
    text: Annotated[str, operator.add]
    seen: str


class Outer(TypedDict):
    text: Annotated[str, operator.add]


def paused_subgraph_thread(is_async: bool) -> Any:
    def first(state: Inner) -> dict[str, Any]:
        return {"text": "first", "seen": state["text"]}

    def second(state: Inner) -> dict[str, Any]:
        return {"text": " then second", "seen": state["text"]}

    inner = StateGraph(Inner)
    inner.add_node("first", first)
    inner.add_node("second", second)
    inner.add_edge("first", "second")
    inner.set_entry_point("first")
    inner.set_finish_point("second")
    outer = StateGraph(Outer)
    outer.add_node("inner", inner.compile(interrupt_before=["second"]))
    outer.add_node("side", lambda state: {"text": " beside"})
    outer.add_node("last", lambda state: {"text": " and last"})
    outer.add_edge("__start__", "inner")
    outer.add_edge("__start__", "side")
    outer.add_edge(["inner", "side"], "last")
    outer.set_finish_point("last")
    return outer.compile(checkpointer=InMemorySaver())


PAUSED_SUBGRAPH = {
    "inputs": [{"__start__": {"text": ""}}, {"__start__": {"text": ""}}],
    "outputs": {
        "inputs": [],
        "results": [
            {"text": "first then second", "seen": "first"},
            {"text": "first then second beside and last"},
        ],
        "steps": [
            ["__start__", "side", "inner", "inner:__start__", "inner:first", "inner:second"],
            ["last"],
        ],
    },
}
THREAD: Any = {"configurable": {"thread_id": "t1"}}


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_thread_with_a_paused_subgraph_extracts_as_agentevals_does(library: str) -> None:
    _, utils = modules(library)
    graph = paused_subgraph_thread(False)
    graph.invoke({"text": ""}, THREAD)
    assert graph.invoke(None, THREAD) == {"text": "first then second beside and last"}
    assert utils.extract_langgraph_trajectory_from_thread(graph, THREAD) == PAUSED_SUBGRAPH


@pytest.mark.parametrize("library", LIBRARIES)
async def test_a_thread_with_a_paused_subgraph_extracts_as_agentevals_does_async(
    library: str,
) -> None:
    _, utils = modules(library)
    graph = paused_subgraph_thread(True)
    await graph.ainvoke({"text": ""}, THREAD)
    await graph.ainvoke(None, THREAD)
    assert await utils.aextract_langgraph_trajectory_from_thread(graph, THREAD) == PAUSED_SUBGRAPH


# -- agentevals' strict scenario: a prebuilt agent whose tool interrupts, then a resume ------


def weather_agent() -> Any:
    @tool
    def lookup(city: str) -> str:
        """Look the weather up (asks a person instead)."""
        answer: str = interrupt(f"What is the weather in {city}?")
        return answer

    model = ScriptedChatModel(
        script=[tool_call("lookup", {"city": "Lyon"}), AIMessage("Lyon: cloudy, 12 degrees.")]
    )
    return create_react_agent(model, [lookup], checkpointer=InMemorySaver())


QUESTION = {"messages": [{"role": "user", "content": "How is the weather in Lyon?"}]}
AGENT_REFERENCE = {
    "results": [],
    "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]],
}


@pytest.mark.parametrize("library", LIBRARIES)
def test_strict_match_of_an_interrupted_agent_thread(library: str) -> None:
    strict, utils = modules(library)
    graph = weather_agent()
    graph.invoke(QUESTION, THREAD)
    graph.invoke(Command(resume="cloudy, 12 degrees"), THREAD)
    extracted = utils.extract_langgraph_trajectory_from_thread(graph, THREAD)
    assert extracted["inputs"][1] == "__resuming__"
    assert extracted["outputs"]["results"][1] == {
        "messages": [{"role": "assistant", "content": "Lyon: cloudy, 12 degrees."}]
    }
    result = strict.graph_trajectory_strict_match(
        outputs=extracted["outputs"], reference_outputs=AGENT_REFERENCE
    )
    assert result == {
        "key": "graph_trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


@pytest.mark.parametrize("library", LIBRARIES)
async def test_strict_match_of_an_interrupted_agent_thread_async(library: str) -> None:
    strict, utils = modules(library)
    graph = weather_agent()
    await graph.ainvoke(QUESTION, THREAD)
    await graph.ainvoke(Command(resume="cloudy, 12 degrees"), THREAD)
    extracted = await utils.aextract_langgraph_trajectory_from_thread(graph, THREAD)
    result = await strict.graph_trajectory_strict_match_async(
        outputs=extracted["outputs"], reference_outputs=AGENT_REFERENCE
    )
    assert (result["key"], result["score"]) == ("graph_trajectory_strict_match", True)
    wrong = {"results": [], "steps": [["__start__", "agent", "tools"], ["agent"]]}
    failing = await strict.graph_trajectory_strict_match_async(
        outputs=extracted["outputs"], reference_outputs=wrong
    )
    assert failing["score"] is False


# -- differential: the same real threads, both extractors ------------------------------------


def _call(graph: Any, value: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return graph.invoke(value, THREAD, **kwargs)
    except Exception:
        return None


async def _acall(graph: Any, value: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return await graph.ainvoke(value, THREAD, **kwargs)
    except Exception:
        return None


def _both(extract: Any, theirs: Any, graph: Any) -> tuple[Any, Any, list[str], list[str]]:
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = extract(graph, THREAD)
    with warnings.catch_warnings(record=True) as their_warned:
        warnings.simplefilter("always")
        expected = theirs(graph, THREAD)
    return (
        ours,
        expected,
        [str(w.message) for w in ours_warned],
        [str(w.message) for w in their_warned],
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_extraction_equals_agentevals_on_real_threads(scenario: Scenario) -> None:
    graph = scenario.build(InMemorySaver(), False)
    previous: Any = None
    for call in scenario.calls:
        previous = _call(graph, call.resolve(previous), call.kwargs)
    ours, theirs, our_warnings, their_warnings = _both(
        extract_langgraph_trajectory_from_thread, agentevals_extract, graph
    )
    assert ours == theirs
    assert our_warnings == their_warnings


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_async_extraction_equals_agentevals_on_real_threads(scenario: Scenario) -> None:
    graph = scenario.build(InMemorySaver(), True)
    previous: Any = None
    for call in scenario.calls:
        previous = await _acall(graph, call.resolve(previous), call.kwargs)
    ours = await aextract_langgraph_trajectory_from_thread(graph, THREAD)
    assert ours == await agentevals_aextract(graph, THREAD)


def test_an_empty_thread_extracts_as_agentevals_does() -> None:
    graph = SCENARIOS[0].build(InMemorySaver(), False)
    assert extract_langgraph_trajectory_from_thread(graph, THREAD) == agentevals_extract(
        graph, THREAD
    )


# -- strict match: agentevals' key and score on thousands of random flat trajectories --------

NAMES = ["__start__", "agent", "tools", "__interrupt__", "inner:x"]


def random_flat(rng: random.Random) -> dict[str, Any]:
    invocations = rng.randint(0, 3)
    return {
        "results": [],
        "steps": [
            [rng.choice(NAMES) for _ in range(rng.randint(0, 4))] for _ in range(invocations)
        ],
    }


def test_strict_match_gives_agentevals_key_and_score_on_random_trajectories() -> None:
    rng = random.Random(14)
    for _ in range(3000):
        outputs = random_flat(rng)
        reference = (
            random_flat(rng)
            if rng.random() < 0.5
            else {"results": [], "steps": [list(names) for names in outputs["steps"]]}
        )
        ours = graph_trajectory_strict_match(outputs=outputs, reference_outputs=reference)
        theirs = agentevals_strict(outputs=outputs, reference_outputs=reference)
        assert (ours["key"], ours["score"]) == (theirs["key"], theirs["score"]), (
            outputs,
            reference,
        )
        assert ours["metadata"] is None
        assert (ours["comment"] is None) == bool(ours["score"])


@pytest.mark.parametrize(
    ("outputs", "reference", "comment"),
    [
        ({"steps": [["a"]]}, {"steps": [["a"], ["b"]]}, "1 invocations, 2 expected"),
        (
            {"steps": [["a", "b"], ["c"]]},
            {"steps": [["a", "b"], ["d"]]},
            "invocation 1: expected [d], got [c]",
        ),
    ],
)
async def test_a_failing_strict_match_says_what_differs(
    outputs: Any, reference: Any, comment: str
) -> None:
    assert (
        graph_trajectory_strict_match(outputs=outputs, reference_outputs=reference)["comment"]
        == comment
    )
    result = await graph_trajectory_strict_match_async(outputs=outputs, reference_outputs=reference)
    assert result["comment"] == comment


@pytest.mark.parametrize(
    ("outputs", "error", "message"),
    [
        (None, ValueError, "outputs is None; strict trajectory match requires both"),
        ([["a"]], TypeError, "outputs is a list; expected an agentevals GraphTrajectory"),
        ({"results": []}, ValueError, 'outputs has no "steps"'),
        ({"steps": "ab"}, TypeError, "outputs.steps is a str"),
        ({"steps": [["a", 1]]}, TypeError, r"outputs.steps\[0\]\[1\] is an int"),
        (PAUSED_SUBGRAPH, TypeError, "outputs is a whole extracted thread"),
        (
            {"inputs": {"q": 1}, "results": {"a": 1}, "steps": [["a"], ["b"]]},
            TypeError,
            r"outputs looks like a matchevals run \(outputs.results is a dict",
        ),
    ],
)
def test_bad_strict_inputs_are_clear_errors(outputs: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        graph_trajectory_strict_match(outputs=outputs, reference_outputs={"steps": []})
