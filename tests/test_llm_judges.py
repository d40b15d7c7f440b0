"""The LLM-as-judge evaluators against the peers' own, with a scripted judge (no model).

For the peers' inputs they return what the peers return, and the judge is shown the very same
prompt (sync and async); beyond them they read every trajectory format matchevals reads, and the
graph judge shows native runs superstep by superstep.
"""

from __future__ import annotations

import asyncio
import json
import random
import warnings
from typing import Any

import pytest
from agentevals.graph_trajectory.llm import (
    create_async_graph_trajectory_llm_as_judge as agentevals_async_graph_judge,
)
from agentevals.graph_trajectory.llm import (
    create_graph_trajectory_llm_as_judge as agentevals_graph_judge,
)
from agentevals.trajectory.llm import create_trajectory_llm_as_judge as agentevals_judge
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict
from openevals.trajectory.llm import (
    create_async_trajectory_llm_as_judge as openevals_async_judge,
)
from openevals.trajectory.llm import create_trajectory_llm_as_judge as openevals_judge

from matchevals.graph_trajectory.llm import (
    create_async_graph_trajectory_llm_as_judge,
    create_graph_trajectory_llm_as_judge,
)
from matchevals.testing import ScriptedJudge
from matchevals.trajectory import (
    create_async_trajectory_llm_as_judge,
    create_trajectory_llm_as_judge,
)


def graded(request: Any) -> tuple[Any, str]:
    """A verdict computed from what the judge is shown, so equal prompts give equal results."""
    score = (len(request.prompt) % 7) / 6
    return (score if request.schema["properties"]["score"]["type"] == "number" else score > 0.5,
            f"{len(request.prompt)} characters")  # fmt: skip


def random_trajectory(rng: random.Random) -> list[Any]:
    messages: list[Any] = [HumanMessage("What is the weather in SF?")]
    for index in range(rng.randint(0, 3)):
        args = {"city": rng.choice(["SF", "NYC"]), "days": rng.randint(1, 3)}
        if rng.random() < 0.5:
            messages.append(AIMessage("", tool_calls=[{"name": "weather", "args": args, "id": f"c{index}"}]))  # fmt: skip # noqa: E501
            messages.append(ToolMessage("sunny", tool_call_id=f"c{index}"))
        else:
            call = {"id": f"c{index}", "function": {"name": "weather", "arguments": json.dumps(args)}}  # fmt: skip # noqa: E501
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "content": "sunny", "tool_call_id": f"c{index}"})
    messages.append({"role": "assistant", "content": rng.choice(["It is sunny.", "Sunny!"])})
    return messages


@pytest.mark.parametrize("peer", [openevals_judge, agentevals_judge])
@pytest.mark.parametrize(
    "options",
    [{}, {"continuous": True}, {"use_reasoning": False}, {"feedback_key": "accuracy"},
     {"system": "Be strict."}, {"choices": [0.0, 0.5, 1.0], "continuous": True}],
)  # fmt: skip
def test_the_trajectory_judge_returns_what_the_peers_return(
    peer: Any, options: dict[str, Any]
) -> None:
    if "system" in options and peer is agentevals_judge:
        pytest.skip("agentevals' trajectory judge has no system parameter")
    rng = random.Random(5)
    for _ in range(25):
        outputs, references = random_trajectory(rng), random_trajectory(rng)
        with_reference = rng.random() < 0.7
        pair = {"outputs": outputs, **({"reference_outputs": references} if with_reference else {})}
        their_judge, our_judge = ScriptedJudge(graded), ScriptedJudge(graded)
        theirs = peer(judge=their_judge, **options)(**pair)
        ours = create_trajectory_llm_as_judge(judge=our_judge, **options)(**pair)
        assert ours == theirs
        assert our_judge.prompts == their_judge.prompts
        assert [call.schema for call in our_judge.calls] == [
            call.schema for call in their_judge.calls
        ]


def test_the_async_trajectory_judge_returns_what_openevals_returns() -> None:
    rng = random.Random(6)

    async def run_all() -> None:
        for _ in range(20):
            pair = {"outputs": random_trajectory(rng), "reference_outputs": random_trajectory(rng)}
            their_judge, our_judge = ScriptedJudge(graded), ScriptedJudge(graded)
            theirs = await openevals_async_judge(judge=their_judge)(**pair)
            ours = await create_async_trajectory_llm_as_judge(judge=our_judge)(**pair)
            assert ours == theirs and our_judge.prompts == their_judge.prompts

    asyncio.run(run_all())


def test_the_trajectory_judge_reads_the_formats_the_peers_misread() -> None:
    call = {"name": "book_flight", "args": {"to": "Paris"}, "id": "c1"}
    as_dicts = messages_to_dict([HumanMessage("Fly me to Paris"), AIMessage("", tool_calls=[call])])
    tool_call_block = [{"role": "assistant", "content": [{"type": "tool_call", **call}]}]
    anthropic = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "c1", "name": "book_flight", "input": {"to": "Paris"}}]}]  # fmt: skip # noqa: E501
    responses = [{"role": "assistant", "content": [
        {"type": "function_call", "call_id": "c1", "name": "book_flight", "arguments": '{"to": "Paris"}'}]}]  # fmt: skip # noqa: E501
    for outputs in (as_dicts, tool_call_block, anthropic, responses, {"messages": anthropic}):
        judge = ScriptedJudge(True)
        create_trajectory_llm_as_judge(judge=judge, prompt="{outputs}")(outputs=outputs)
        assert (
            '<name>book_flight</name>\n<arguments>{"to": "Paris"}</arguments>' in judge.prompts[0]
        )
    theirs = ScriptedJudge(True)  # the peers drop the calls of messages_to_dict's form
    openevals_judge(judge=theirs, prompt="{outputs}")(outputs=as_dicts)
    assert "book_flight" not in theirs.prompts[0]


THREAD = {
    "inputs": [{"__start__": {"messages": ["hi"]}}, "__resuming__"],
    "outputs": {
        "inputs": [],
        "results": [{}, {"messages": ["done"]}],
        "steps": [["__start__", "agent", "tools", "__interrupt__"], ["agent"]],
    },
}
REFERENCE = {
    "inputs": ["hi", None],
    "results": [],
    "steps": [["__start__", "agent", "tools"], ["agent"]],
}


@pytest.mark.parametrize("reference", [None, REFERENCE])
@pytest.mark.parametrize("options", [{}, {"continuous": True}, {"feedback_key": "plan"}])
def test_the_graph_judge_returns_what_agentevals_returns(
    reference: Any, options: dict[str, Any]
) -> None:
    pair = {
        "inputs": THREAD["inputs"],
        "outputs": THREAD["outputs"],
        "reference_outputs": reference,
    }
    their_judge, our_judge = ScriptedJudge(graded), ScriptedJudge(graded)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = agentevals_graph_judge(judge=their_judge, **options)(**pair)
    ours = create_graph_trajectory_llm_as_judge(judge=our_judge, **options)(**pair)
    assert ours == theirs and our_judge.prompts == their_judge.prompts

    async def both() -> tuple[Any, Any]:
        their_async, our_async = ScriptedJudge(graded), ScriptedJudge(graded)
        theirs = await agentevals_async_graph_judge(judge=their_async, **options)(**pair)
        ours = await create_async_graph_trajectory_llm_as_judge(judge=our_async, **options)(**pair)
        assert our_async.prompts == their_async.prompts
        return theirs, ours

    theirs_async, ours_async = asyncio.run(both())
    assert ours_async == theirs_async


def test_the_graph_judge_shows_native_runs_superstep_by_superstep() -> None:
    from matchevals.graph_trajectory import ReferenceStep, Repeat

    runs = [
        {
            "inputs": {"q": "compare"},
            "results": {"answer": 1},
            "steps": [["plan"], ["search_a", "search_b"], ["write"]],
        },
        {
            "inputs": None,
            "results": None,
            "steps": [["plan"], ["search_a"], ["search_b"], ["write"]],
        },
    ]
    reference = {"inputs": None, "results": None, "steps": [
        ["plan"], ReferenceStep(["search_a", "search_b"]), Repeat([["write"]], min=1, max=2)]}  # fmt: skip # noqa: E501
    judge = ScriptedJudge((0.5, "parallel in run 0 only"))
    result = create_graph_trajectory_llm_as_judge(judge=judge, continuous=True)(
        outputs=runs, reference_outputs=reference
    )
    assert result == {
        "key": "graph_trajectory_accuracy",
        "score": 0.5,
        "comment": "parallel in run 0 only",
        "metadata": None,
    }
    prompt = judge.prompts[0]
    assert "superstep 1: search_a, search_b\nsuperstep 2: write" in prompt  # together
    assert "superstep 1: search_a\nsuperstep 2: search_b" in prompt  # one after the other
    assert "<reference_thread>" in prompt
    assert "superstep 1: search_a, search_b (unordered)" in prompt
    assert "superstep 2: repeated 1 to 2 times: write" in prompt


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"outputs": THREAD["outputs"]}, ValueError, "inputs is None"),
        ({"outputs": THREAD["outputs"], "inputs": {"x": 1}}, ValueError, "'inputs' key"),
        ({"outputs": [{"nodes": []}]}, TypeError, r"outputs\[0\] has no 'steps' list"),
        ({"outputs": "steps"}, TypeError, "outputs is str"),
    ],
)
def test_the_graph_judge_refuses_what_it_cannot_show(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    evaluator = create_graph_trajectory_llm_as_judge(judge=ScriptedJudge(True))
    with pytest.raises(error, match=message):
        evaluator(**kwargs)
