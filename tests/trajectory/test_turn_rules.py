"""Reference-free rules on message trajectories: forbidden tools, call limits, a budget of
assistant turns, ordering; every message format; a brute-force oracle; LangSmith offline."""

from __future__ import annotations

import inspect
import pickle
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langsmith import aevaluate, evaluate
from langsmith.schemas import Example

from matchevals.trajectory import (
    create_async_trajectory_rules_evaluator,
    create_trajectory_rules_evaluator,
)
from tests.langsmith_offline import offline_aevaluate, offline_client
from tests.trajectory.helpers import assistant, langchain_call, openai_call, tool, user

pytestmark = pytest.mark.filterwarnings("ignore:.upload_runs. parameter is in beta")


def call(name: str) -> dict[str, Any]:
    return openai_call(name, {})


def by_key(results: list[Any]) -> dict[str, Any]:
    return {result["key"]: result for result in results}


# user, search; tool; search + book; tool; tool; answer
TRAJECTORY = [
    user(),
    assistant(call("search")),
    tool(),
    assistant(call("search"), call("book")),
    tool(),
    tool(),
    assistant(text="Booked."),
]


def test_all_rules_pass_with_their_comments() -> None:
    evaluator = create_trajectory_rules_evaluator(
        forbidden_tools=["drop_db"],
        max_calls={"search": 2},
        max_turns=3,
        before=[("plan", "book")],
    )
    results = evaluator(outputs=TRAJECTORY)
    assert results == [
        {
            "key": "trajectory_forbidden_tools",
            "score": True,
            "comment": "no forbidden tool (drop_db) was called",
            "metadata": {"violations": []},
        },
        {
            "key": "trajectory_max_calls",
            "score": True,
            "comment": "every tool stayed within its call limit",
            "metadata": {"violations": []},
        },
        {
            "key": "trajectory_max_turns",
            "score": True,
            "comment": "the trajectory stayed within 3 assistant turns",
            "metadata": {"violations": []},
        },
        {
            "key": "trajectory_before",
            "score": True,
            "comment": "every ordering held",
            "metadata": {"violations": []},
        },
    ]


def test_each_rule_fails_naming_the_first_violation_by_its_place() -> None:
    evaluator = create_trajectory_rules_evaluator(
        forbidden_tools=["book", "search"],
        max_calls={"search": 1},
        max_turns=2,
        before=[("book", "search"), ("search", "book")],
    )
    results = by_key(evaluator(outputs=TRAJECTORY))
    assert all(result["score"] is False for result in results.values())
    assert results["trajectory_forbidden_tools"]["metadata"]["violations"] == [
        "outputs[1].tool_calls[0] called the forbidden tool search",
        "outputs[3].tool_calls[0] called the forbidden tool search",
        "outputs[3].tool_calls[1] called the forbidden tool book",
    ]
    assert results["trajectory_forbidden_tools"]["comment"] == (
        "outputs[1].tool_calls[0] called the forbidden tool search"
    )
    assert results["trajectory_max_calls"]["comment"] == (
        "outputs[3].tool_calls[0] called search more than its limit of 1 (call 2)"
    )
    assert results["trajectory_max_turns"]["comment"] == (
        "outputs[6] is assistant turn 3, more than the budget of 2 (the trajectory has 3)"
    )
    assert results["trajectory_before"]["metadata"]["violations"] == [
        "outputs[1].tool_calls[0] called search but outputs[3].tool_calls[1] still called book "
        "(every book must be called in an earlier assistant turn than any search)",
        "outputs[3].tool_calls[1] called book but outputs[3].tool_calls[0] still called search "
        "(every search must be called in an earlier assistant turn than any book)",
    ]


def test_max_calls_at_the_limit_passes_one_past_fails() -> None:
    evaluator = create_trajectory_rules_evaluator(max_calls={"search": 2, "book": 0})
    assert evaluator(outputs=[assistant(call("search"), call("search"))])[0]["score"] is True
    [over] = evaluator(
        outputs=[assistant(call("search"), call("search")), assistant(call("search"))]
    )
    assert over["comment"] == (
        "outputs[1].tool_calls[0] called search more than its limit of 2 (call 3)"
    )
    [zero] = evaluator(outputs=[assistant(call("book"))])
    assert (
        zero["comment"] == "outputs[0].tool_calls[0] called book more than its limit of 0 (call 1)"
    )
    # one violation per tool: the call that first goes past its limit
    [many] = evaluator(outputs=[assistant(*[call("search")] * 4, call("book"), call("book"))])
    assert many["metadata"]["violations"] == [
        "outputs[0].tool_calls[2] called search more than its limit of 2 (call 3)",
        "outputs[0].tool_calls[4] called book more than its limit of 0 (call 1)",
    ]


def test_max_turns_counts_every_assistant_message_final_answer_included() -> None:
    evaluator = create_trajectory_rules_evaluator(max_turns=2)
    at_limit = [user(), assistant(call("search")), tool(), assistant(text="done")]
    assert evaluator(outputs=at_limit)[0]["score"] is True
    [over] = evaluator(outputs=[*at_limit, user("more"), assistant(text="sure")])
    assert over["score"] is False
    assert over["comment"] == (
        "outputs[5] is assistant turn 3, more than the budget of 2 (the trajectory has 3)"
    )
    # user and tool messages are no turns; an empty trajectory has none
    assert evaluator(outputs=[user(), tool(), user()])[0]["score"] is True
    assert create_trajectory_rules_evaluator(max_turns=0)(outputs=[])[0]["score"] is True
    [none_allowed] = create_trajectory_rules_evaluator(max_turns=0)(outputs=[assistant()])
    assert none_allowed["comment"] == (
        "outputs[0] is assistant turn 1, more than the budget of 0 (the trajectory has 1)"
    )


def test_before_needs_strictly_earlier_turns() -> None:
    evaluator = create_trajectory_rules_evaluator(before=[("search", "book")])

    def score(*messages: dict[str, Any]) -> bool:
        return bool(evaluator(outputs=list(messages))[0]["score"])

    # calls of one assistant message are concurrent: the same turn violates it
    assert score(assistant(call("search"), call("book"))) is False
    assert score(assistant(call("book"), call("search"))) is False
    assert score(assistant(call("search")), tool(), assistant(call("book"))) is True
    assert (
        score(assistant(call("search")), assistant(call("book")), assistant(call("search")))
        is False
    )
    assert (
        score(assistant(call("search")), assistant(call("search")), assistant(call("book"))) is True
    )
    # true when either is never called
    assert score(assistant(call("book"))) is True
    assert score(assistant(call("search"))) is True
    assert score() is True


def test_a_tool_both_forbidden_and_limited_is_checked_by_both_rules() -> None:
    evaluator = create_trajectory_rules_evaluator(forbidden_tools=["x"], max_calls={"x": 1})
    results = evaluator(outputs=[assistant(call("x"))])
    assert [result["score"] for result in results] == [False, True]


def test_only_configured_rules_are_reported_and_feedback_key_renames_the_prefix() -> None:
    evaluator = create_trajectory_rules_evaluator(max_turns=1, feedback_key="agent")
    [result] = evaluator(outputs=[assistant()])
    assert result["key"] == "agent_max_turns"
    both = create_trajectory_rules_evaluator(forbidden_tools=["x"], before=[("a", "b")])
    assert [r["key"] for r in both(outputs=[])] == [
        "trajectory_forbidden_tools",
        "trajectory_before",
    ]


# --------------------------------------------------------------------------------------------
# Message formats
# --------------------------------------------------------------------------------------------

OPTIONS: dict[str, Any] = {
    "forbidden_tools": ["drop_db"],
    "max_calls": {"search": 1},
    "max_turns": 3,
    "before": [("search", "book")],
}
EXPECTED = {
    "trajectory_forbidden_tools": (True, "no forbidden tool (drop_db) was called"),
    "trajectory_max_calls": (
        False,
        "outputs{m}[3].{f}[0] called search more than its limit of 1 (call 2)",
    ),
    "trajectory_max_turns": (True, "the trajectory stayed within 3 assistant turns"),
    "trajectory_before": (
        False,
        "outputs{m}[3].{f}[1] called book but outputs{m}[3].{f}[0] still called "
        "search (every search must be called in an earlier assistant turn than any book)",
    ),
}


def langchain_objects() -> list[Any]:
    def ai(*names: str) -> AIMessage:
        calls = [{"name": name, "args": {}, "id": f"{name}{i}"} for i, name in enumerate(names)]
        return AIMessage("", tool_calls=calls)

    return [
        HumanMessage("hi"),
        ai("search"),
        ToolMessage("r", tool_call_id="search0"),
        ai("search", "book"),
        ToolMessage("r", tool_call_id="search0"),
        ToolMessage("r", tool_call_id="book1"),
        AIMessage("Booked."),
    ]


def anthropic_blocks() -> list[Any]:
    def ai(*names: str) -> dict[str, Any]:
        blocks = [{"type": "tool_use", "id": name, "name": name, "input": {}} for name in names]
        return {"role": "assistant", "content": blocks}

    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}
    return [user(), ai("search"), results, ai("search", "book"), results, results, assistant()]


FORMATS = {
    "openai": (TRAJECTORY, "", "tool_calls"),
    "langchain dicts": (
        [
            {"type": "human", "content": "hi"},
            {"type": "ai", "content": "", "tool_calls": [langchain_call("search", {"q": "x"})]},
            {"type": "tool", "content": "r", "tool_call_id": ""},
            {
                "type": "ai",
                "content": "",
                "tool_calls": [langchain_call("search", {}), langchain_call("book", {})],
            },
            {"type": "tool", "content": "r", "tool_call_id": ""},
            {"type": "tool", "content": "r", "tool_call_id": ""},
            {"type": "ai", "content": "Booked."},
        ],
        "",
        "tool_calls",
    ),
    "langchain objects": (langchain_objects(), "", "tool_calls"),
    "langgraph state": (
        {"messages": langchain_objects(), "answer": "Booked."},
        ".messages",
        "tool_calls",
    ),
    "anthropic content blocks": (anthropic_blocks(), "", "content"),
}


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_message_format_gives_the_same_results(name: str) -> None:
    outputs, base, field = FORMATS[name]
    results = by_key(create_trajectory_rules_evaluator(**OPTIONS)(outputs=outputs))
    expected = {
        key: (score, comment.format(m=base, f=field)) for key, (score, comment) in EXPECTED.items()
    }
    assert {key: (r["score"], r["comment"]) for key, r in results.items()} == expected


def test_anthropic_places_name_content_blocks() -> None:
    evaluator = create_trajectory_rules_evaluator(forbidden_tools=["book"])
    [result] = evaluator(outputs=anthropic_blocks())
    assert result["comment"] == "outputs[3].content[1] called the forbidden tool book"


def test_outputs_are_not_mutated() -> None:
    outputs = {"messages": [user(), assistant(call("search"), text="x")]}
    snapshot = pickle.dumps(outputs)
    create_trajectory_rules_evaluator(max_calls={"search": 0})(outputs=outputs)
    assert pickle.dumps(outputs) == snapshot


# --------------------------------------------------------------------------------------------
# Bad options and bad outputs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({}, ValueError, "no rule given: pass forbidden_tools, max_calls, max_turns or before"),
        ({"forbidden_tools": "drop_db"}, TypeError,
         "forbidden_tools is a str, expected a collection of tool names"),
        ({"forbidden_tools": None}, TypeError, "forbidden_tools is None"),
        ({"forbidden_tools": [1]}, TypeError,
         r"forbidden_tools\[0\] is an int, expected a tool name"),
        ({"max_calls": ["search"]}, TypeError,
         "max_calls is a list, expected a dict of tool: limit"),
        ({"max_calls": {1: 2}}, TypeError, "max_calls key 1 is an int, expected a tool name"),
        ({"max_calls": {"a": -1}}, ValueError, r"max_calls\['a'\] is -1; it must be at least 0"),
        ({"max_calls": {"a": 1.0}}, TypeError, r"max_calls\['a'\] is a float, expected an int"),
        ({"max_calls": {"a": True}}, TypeError, r"max_calls\['a'\] is a bool, expected an int"),
        ({"max_turns": -1}, ValueError, "max_turns is -1; it must be at least 0"),
        ({"max_turns": True}, TypeError, "max_turns is a bool, expected an int"),
        ({"max_turns": "3"}, TypeError, "max_turns is a str, expected an int"),
        ({"before": "ab"}, TypeError, "before is a str, expected a collection of"),
        ({"before": [("a",)]}, TypeError,
         r"before\[0\] is \('a',\), expected a pair of tool names"),
        ({"before": [("a", "b", "c")]}, TypeError, r"before\[0\]"),
        ({"before": ["ab"]}, TypeError, r"before\[0\] is 'ab'"),
        ({"before": [("a", 1)]}, TypeError, r"before\[0\]"),
        ({"max_turns": 1, "feedback_key": ""}, ValueError, "feedback_key must be a non-empty"),
        ({"max_turns": 1, "feedback_key": None}, TypeError, "feedback_key must be a str"),
    ],
)  # fmt: skip
def test_bad_options_are_refused_when_the_evaluator_is_built(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    for factory in (create_trajectory_rules_evaluator, create_async_trajectory_rules_evaluator):
        with pytest.raises(error, match=message):
            factory(**options)


@pytest.mark.parametrize(
    ("outputs", "error", "message"),
    [
        (None, TypeError, r"outputs is None; expected a list of messages"),
        ("hi", TypeError, "outputs is a string; expected a list of messages"),
        ({"answer": 1}, ValueError, "outputs is a dict without 'messages' or 'role'"),
        ([{"role": "ai", "tool_calls": "x"}], TypeError, r"outputs\[0\]\.tool_calls"),
        (
            [{"role": "ai", "tool_calls": [{"function": {"name": "a", "arguments": "{"}}]}],
            ValueError,
            r"outputs\[0\]\.tool_calls\[0\]\.function\.arguments is not valid JSON",
        ),
        ([{"role": "user", "tool_calls": [call("a")]}], ValueError,
         "a user message makes no tool calls"),
        ([{"content": "x"}], ValueError, r"outputs\[0\] has no 'role'"),
    ],
)  # fmt: skip
def test_bad_outputs_are_named_as_the_match_evaluators_name_them(
    outputs: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        create_trajectory_rules_evaluator(max_turns=3)(outputs=outputs)


def test_deeply_nested_arguments_are_a_clear_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    outputs = [{"role": "ai", "tool_calls": [{"function": {"name": "a", "arguments": deep}}]}]
    with pytest.raises((ValueError, TypeError), match=r"outputs"):
        create_trajectory_rules_evaluator(max_turns=3)(outputs=outputs)


# --------------------------------------------------------------------------------------------
# The evaluator: keywords, async twin, pickling, LangSmith offline
# --------------------------------------------------------------------------------------------


def test_the_evaluator_takes_outputs_only_by_keyword() -> None:
    evaluator = create_trajectory_rules_evaluator(forbidden_tools=["x"])
    assert evaluator.__name__ == "trajectory_rules"  # type: ignore[attr-defined]
    assert str(inspect.signature(evaluator)) == "(*, outputs, **kwargs)"
    with pytest.raises(TypeError, match=r"call it as trajectory_rules\(outputs=\.\.\.\), not"):
        evaluator([])
    with pytest.raises(TypeError, match=r"^trajectory_rules needs outputs=\.\.\."):
        evaluator()
    # a reference, as a dataset gives one, is ignored
    assert evaluator(outputs=[], reference_outputs=[assistant(call("x"))])[0]["score"] is True
    assert create_trajectory_rules_evaluator.__module__ == "matchevals.trajectory"
    assert create_async_trajectory_rules_evaluator.__module__ == "matchevals.trajectory"


async def test_async_evaluator_equals_sync() -> None:
    asynchronous = create_async_trajectory_rules_evaluator(**OPTIONS, feedback_key="agent")
    assert inspect.iscoroutinefunction(asynchronous)
    sync = create_trajectory_rules_evaluator(**OPTIONS, feedback_key="agent")
    for outputs, _, _ in FORMATS.values():
        assert await asynchronous(outputs=outputs) == sync(outputs=outputs)


def test_evaluators_pickle_and_still_work() -> None:
    for evaluator in (
        create_trajectory_rules_evaluator(**OPTIONS),
        create_trajectory_rules_evaluator(max_turns=1, feedback_key="agent"),
    ):
        clone = pickle.loads(pickle.dumps(evaluator))
        assert clone.__name__ == evaluator.__name__  # type: ignore[attr-defined]
        assert clone(outputs=TRAJECTORY) == evaluator(outputs=TRAJECTORY)


CASES = {
    "books after searching": [user(), assistant(call("search")), tool(), assistant(call("book"))],
    "books while searching": [user(), assistant(call("search"), call("book")), tool(), tool()],
}


def examples() -> list[Example]:
    dataset_id = uuid.uuid4()
    return [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset_id,
            inputs={"case": case},
            outputs=None,
            created_at=datetime.now(timezone.utc),
        )
        for case in CASES
    ]


def target(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"messages": CASES[inputs["case"]]}


def test_real_langsmith_evaluate_offline() -> None:
    results = evaluate(
        target,
        data=examples(),
        evaluators=[create_trajectory_rules_evaluator(before=[("search", "book")], max_turns=2)],
        upload_results=False,
        client=offline_client(),
    )
    found = {
        (row["example"].inputs["case"], result.key): (result.score, result.comment)
        for row in results
        for result in row["evaluation_results"]["results"]
    }
    assert found == {
        ("books after searching", "trajectory_max_turns"): (
            True,
            "the trajectory stayed within 2 assistant turns",
        ),
        ("books after searching", "trajectory_before"): (True, "every ordering held"),
        ("books while searching", "trajectory_max_turns"): (
            True,
            "the trajectory stayed within 2 assistant turns",
        ),
        ("books while searching", "trajectory_before"): (
            False,
            "outputs.messages[1].tool_calls[1] called book but outputs.messages[1].tool_calls[0] "
            "still called search (every search must be called in an earlier assistant turn than "
            "any book)",
        ),
    }


@offline_aevaluate
async def test_real_langsmith_aevaluate_offline() -> None:
    async def atarget(inputs: dict[str, Any]) -> dict[str, Any]:
        return target(inputs)

    results = await aevaluate(
        atarget,
        data=examples(),
        evaluators=[create_async_trajectory_rules_evaluator(before=[("search", "book")])],
        upload_results=False,
        client=offline_client(),
        max_concurrency=2,
    )
    found = {
        (row["example"].inputs["case"], result.key): result.score
        async for row in results
        for result in row["evaluation_results"]["results"]
    }
    assert found == {
        ("books after searching", "trajectory_before"): True,
        ("books while searching", "trajectory_before"): False,
    }


# --------------------------------------------------------------------------------------------
# Oracle: each rule computed the obvious way on random small trajectories
# --------------------------------------------------------------------------------------------

TOOLS = ("a", "b", "c")
message = st.one_of(
    st.just(("user", ())),
    st.just(("tool", ())),
    st.tuples(st.just("assistant"), st.lists(st.sampled_from(TOOLS), max_size=3).map(tuple)),
)


def as_messages(plan: list[tuple[str, tuple[str, ...]]]) -> list[dict[str, Any]]:
    return [assistant(*map(call, names)) if role == "assistant" else {"role": role, "content": "x"}
            for role, names in plan]  # fmt: skip


def oracle(
    plan: list[tuple[str, tuple[str, ...]]],
    forbidden: list[str],
    max_calls: dict[str, int],
    max_turns: int | None,
    before: list[tuple[str, str]],
) -> dict[str, bool]:
    turns = [names for role, names in plan if role == "assistant"]
    calls = [name for names in turns for name in names]
    verdicts = {}
    if forbidden:
        verdicts["trajectory_forbidden_tools"] = not any(name in forbidden for name in calls)
    if max_calls:
        verdicts["trajectory_max_calls"] = all(calls.count(t) <= n for t, n in max_calls.items())
    if max_turns is not None:
        verdicts["trajectory_max_turns"] = len(turns) <= max_turns
    if before:
        verdicts["trajectory_before"] = all(
            i < j
            for a, b in before
            for i, turn_a in enumerate(turns)
            for j, turn_b in enumerate(turns)
            if a in turn_a and b in turn_b
        )
    return verdicts


@settings(max_examples=300, deadline=None)
@given(
    st.lists(message, max_size=7),
    st.lists(st.sampled_from(TOOLS), max_size=2),
    st.dictionaries(st.sampled_from(TOOLS), st.integers(0, 3), max_size=2),
    st.none() | st.integers(0, 4),
    st.lists(st.tuples(st.sampled_from(TOOLS), st.sampled_from(TOOLS)), max_size=2),
)
def test_every_rule_agrees_with_the_obvious_computation(
    plan: list[tuple[str, tuple[str, ...]]],
    forbidden: list[str],
    max_calls: dict[str, int],
    max_turns: int | None,
    before: list[tuple[str, str]],
) -> None:
    expected = oracle(plan, forbidden, max_calls, max_turns, before)
    if not expected:
        return
    evaluator = create_trajectory_rules_evaluator(
        forbidden_tools=forbidden, max_calls=max_calls, max_turns=max_turns, before=before
    )
    results = evaluator(outputs=as_messages(plan))
    assert {r["key"]: r["score"] for r in results} == expected
    for result in results:  # a failure names its first violation; a pass has none
        assert (result["metadata"]["violations"] == []) is result["score"]
        if not result["score"]:
            assert result["comment"] == result["metadata"]["violations"][0]
            assert result["comment"].startswith("outputs[")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
message_like = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "ai", "assistant", "tool", "bot", 3, None])},
    optional={
        "content": json_values,
        "tool_calls": st.none()
        | json_values
        | st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["a", "b", 1])}, optional={"args": json_values}
            ),
            max_size=2,
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(json_values | st.lists(message_like | json_values, max_size=4))
def test_any_outputs_give_results_or_a_clear_error(outputs: Any) -> None:
    evaluator = create_trajectory_rules_evaluator(
        forbidden_tools=["a"], max_calls={"b": 1}, max_turns=2, before=[("a", "b")]
    )
    snapshot = pickle.dumps(outputs)
    try:
        results = evaluator(outputs=outputs)
    except (TypeError, ValueError) as error:
        assert str(error).startswith("outputs")
    else:
        assert [type(r["score"]) for r in results] == [bool] * 4
    assert pickle.dumps(outputs) == snapshot
