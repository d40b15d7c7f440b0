"""Trajectories as they come: every accepted shape reads to the same trajectory, and every bad
input is a TypeError or ValueError naming the message and the field."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_to_dict,
)
from openevals.trajectory.match import create_trajectory_match_evaluator as openevals_match

from matchevals.trajectory import create_trajectory_match_evaluator
from matchevals.trajectory._messages import read_trajectory
from tests.trajectory.helpers import assistant, langchain_call, openai_call, tool, user

WEATHER = {"city": "SF", "units": "C"}


def shape(value: Any, side: str = "outputs") -> list[tuple[str, list[tuple[str, Any]]]]:
    """Roles and calls (name, args) of a read trajectory."""
    read = read_trajectory(value, side)
    return [(m.role, [(c.name, c.args) for c in m.tool_calls]) for m in read]


EXPECTED = [
    ("user", []),
    ("assistant", [("get_weather", WEATHER), ("search", {"q": "SF"})]),
    ("tool", []),
    ("tool", []),
    ("assistant", []),
]


def test_openai_dicts_with_arguments_as_text_or_as_a_dict() -> None:
    as_text = [
        user(),
        assistant(openai_call("get_weather", WEATHER, "1"), openai_call("search", {"q": "SF"})),
        tool(call_id="1"),
        tool(),
        assistant(text="done"),
    ]
    as_dict = copy.deepcopy(as_text)
    for call in as_dict[1]["tool_calls"]:
        call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    spaced = copy.deepcopy(as_text)
    spaced[1]["tool_calls"][0]["function"]["arguments"] = '\n  {"units": "C",\t"city": "SF"} '
    assert shape(as_text) == shape(as_dict) == shape(spaced) == EXPECTED


def test_openai_empty_arguments_are_no_arguments_as_langchain_reads_them() -> None:
    for empty in ("", "  ", None):
        call = {"id": "1", "type": "function", "function": {"name": "now", "arguments": empty}}
        assert shape([assistant(call)]) == [("assistant", [("now", {})])]


def test_langchain_dicts_by_role_or_by_type() -> None:
    by_type = [
        {"type": "human", "content": "hi"},
        {
            "type": "ai",
            "content": "",
            "tool_calls": [
                langchain_call("get_weather", WEATHER),
                langchain_call("search", {"q": "SF"}),
            ],
        },
        {"type": "tool", "content": "r", "tool_call_id": "1"},
        {"type": "tool", "content": "r", "tool_call_id": "2"},
        {"type": "ai", "content": "done", "invalid_tool_calls": []},
    ]
    assert shape(by_type) == EXPECTED
    by_role = [
        dict(m, role={"human": "user", "ai": "assistant"}.get(m["type"], m["type"]))
        for m in by_type
    ]
    assert shape(by_role) == EXPECTED


def langchain_objects() -> list[Any]:
    return [
        HumanMessage("hi"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "get_weather", "args": WEATHER, "id": "1"},
                {"name": "search", "args": {"q": "SF"}, "id": "2"},
            ],
        ),
        ToolMessage("r", tool_call_id="1"),
        ToolMessage("r", tool_call_id="2"),
        AIMessage("done"),
    ]


def test_langchain_message_objects_and_their_serialized_envelopes() -> None:
    objects = langchain_objects()
    assert shape(objects) == EXPECTED
    assert shape([dumpd(message) for message in objects]) == EXPECTED
    assert shape(json.loads(json.dumps([dumpd(message) for message in objects]))) == EXPECTED


def test_langchain_messages_to_dict_form_is_read_with_its_calls() -> None:
    """``{"type": "ai", "data": {...}}`` keeps everything under ``data``: reading only the top
    level would see assistant messages without calls and score different calls as a match
    (openevals does: True below)."""
    objects = langchain_objects()
    stored = json.loads(json.dumps(messages_to_dict(objects)))
    assert shape(stored) == EXPECTED
    assert shape({"messages": stored}) == EXPECTED
    wrong = messages_to_dict(
        [HumanMessage("hi"), AIMessage("", tool_calls=[langchain_call("search", {"q": "y"})])]
    )
    right = messages_to_dict(
        [HumanMessage("hi"), AIMessage("", tool_calls=[langchain_call("search", {"q": "x"})])]
    )
    result = create_trajectory_match_evaluator()(outputs=wrong, reference_outputs=right)
    assert result["score"] is False
    assert result["comment"] == (
        "search args.q (outputs[1].tool_calls[0] vs reference_outputs[1].tool_calls[0]): "
        'expected "x", got "y"'
    )
    assert openevals_match()(outputs=wrong, reference_outputs=right)["score"] is True
    with pytest.raises(TypeError, match=r"^outputs\[0\]\.data is a string; a LangChain message"):
        read_trajectory([{"type": "ai", "data": "hello"}], "outputs")


def test_other_langchain_message_kinds() -> None:
    chunk = AIMessageChunk("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "1"}])
    developer = SystemMessage("be brief", additional_kwargs={"__openai_role__": "developer"})
    read = shape([SystemMessage("s"), developer, ChatMessage("x", role="assistant"), chunk])
    assert read == [
        ("system", []),
        ("developer", []),
        ("assistant", []),
        ("assistant", [("search", {"q": "x"})]),
    ]


def test_one_message_alone_and_a_dict_with_messages() -> None:
    message = assistant(openai_call("search", {"q": "x"}))
    assert shape(message) == shape([message]) == [("assistant", [("search", {"q": "x"})])]
    assert shape(AIMessage("hi")) == [("assistant", [])]
    state = {"messages": [message], "remaining_steps": 3, "summary": "…"}  # a LangGraph state
    assert shape(state) == shape([message])
    assert read_trajectory(state, "outputs")[0].at == "outputs.messages[0]"


def anthropic_run() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in SF, and search it?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": WEATHER},
                {"type": "tool_use", "id": "toolu_2", "name": "search", "input": {"q": "SF"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "results"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]


def test_anthropic_tool_use_and_tool_result_blocks() -> None:
    assert shape(anthropic_run()) == EXPECTED
    read = read_trajectory(anthropic_run(), "outputs")
    assert [m.at for m in read] == [
        "outputs[0]",
        "outputs[1]",
        "outputs[2].content[0]",
        "outputs[2].content[1]",
        "outputs[3]",
    ]
    assert read[1].tool_calls[0].at == "outputs[1].content[1]"


def test_an_anthropic_run_matches_its_openai_reference_strictly() -> None:
    reference = [
        user(),
        assistant(openai_call("get_weather", WEATHER, "1"), openai_call("search", {"q": "SF"})),
        tool(call_id="1"),
        tool(),
        assistant(text="done"),
    ]
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert evaluator(outputs=anthropic_run(), reference_outputs=reference)["score"] is True


def test_a_user_message_with_tool_results_and_text_keeps_its_text_after_the_results() -> None:
    message = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "ok"},
            {"type": "text", "text": "and now?"},
        ],
    }
    assert [(m.role, m.at) for m in read_trajectory([message], "outputs")] == [
        ("tool", "outputs[0].content[0]"),
        ("user", "outputs[0]"),
    ]


def test_blocks_repeating_tool_calls_are_merged_by_id_as_langchain_does() -> None:
    """ChatAnthropic's AIMessage carries each call twice: a tool_use block and tool_calls."""
    message = AIMessage(
        content=[
            {"type": "text", "text": "checking"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": WEATHER},
            {"type": "tool_use", "id": "toolu_9", "name": "search", "input": {"q": "SF"}},
        ],
        tool_calls=[{"name": "get_weather", "args": WEATHER, "id": "toolu_1"}],
    )
    assert shape([message]) == [("assistant", [("get_weather", WEATHER), ("search", {"q": "SF"})])]


def test_responses_function_call_and_langchain_tool_call_blocks() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "function_call", "call_id": "c1", "name": "search", "arguments": '{"q": "x"}'},
            {"type": "tool_call", "id": "c2", "name": "fetch", "args": {"url": "u"}},
            {"type": "reasoning", "summary": []},
        ],
    }
    assert shape([message]) == [("assistant", [("search", {"q": "x"}), ("fetch", {"url": "u"})])]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------

GOOD_CALL = openai_call("search", {"q": "x"})
BAD_INPUTS: list[tuple[Any, type[Exception], str]] = [
    (None, TypeError, "outputs is None; expected a list of messages (pass [] for an empty"),
    ("hello", TypeError, "outputs is a string; expected a list of messages"),
    (3, TypeError, "outputs is a number; expected a list of messages"),
    ({"output": []}, ValueError, "outputs is a dict without 'messages' or 'role' (keys: 'output')"),
    ({"messages": "x"}, TypeError, "outputs.messages is a string; expected a list of messages"),
    ([user(), 7], TypeError, "outputs[1] is a number; expected a message"),
    ([user(), "hi"], TypeError, "outputs[1] is a string; expected a message"),
    ([{"content": "x"}], ValueError, "outputs[0] has no 'role' (or 'type')"),
    ([{"role": "robot"}], ValueError, 'outputs[0].role is "robot"; expected one of ai, assistant'),
    ([{"role": 3}], ValueError, "outputs[0].role is 3; expected one of"),
    ([{"role": ["assistant"]}], ValueError, 'outputs[0].role is ["assistant"]; expected one of'),
    ([{"type": {"ai": 1}}], ValueError, 'outputs[0].type is {"ai": 1}; expected one of'),
    ([{"role": "assistant", "tool_calls": {"a": 1}}], TypeError,
     "outputs[0].tool_calls is an object; expected a list of tool calls"),
    ([assistant(GOOD_CALL, 5)], TypeError,
     "outputs[0].tool_calls[1] is a number; expected a tool call"),
    ([assistant({"id": "1"})], ValueError,
     "outputs[0].tool_calls[0] has neither 'function' (OpenAI) nor 'name' and 'args'"),
    ([assistant({"function": "search"})], TypeError,
     "outputs[0].tool_calls[0].function is a string; expected a dict"),
    ([assistant({"function": {"arguments": "{}"}})], TypeError,
     "outputs[0].tool_calls[0].function.name is null; expected the tool's name"),
    ([assistant({"function": {"name": "", "arguments": "{}"}})], ValueError,
     "outputs[0].tool_calls[0].function.name is an empty string"),
    ([assistant({"id": "1", "type": "function", "function": {"name": "now"}})], ValueError,
     "outputs[0].tool_calls[0].function has no 'arguments'; an OpenAI call has them"),
    ([assistant({"name": "search"})], ValueError,
     "outputs[0].tool_calls[0] has no 'args'; a LangChain tool call needs them"),
    ([assistant({"name": "search", "args": [1]})], TypeError,
     "outputs[0].tool_calls[0].args is a list; expected the arguments"),
    ([assistant({"name": "search", "args": ""})], ValueError,
     "outputs[0].tool_calls[0].args is an empty string; expected a JSON object"),
    ([user(), user(), user(),
      assistant(GOOD_CALL, {"function": {"name": "f", "arguments": '{"q": "x",}'}})],
     ValueError,
     "outputs[3].tool_calls[1].function.arguments is not valid JSON: Expecting property name "
     "enclosed in double quotes at line 1 column 11: '{\"q\": \"x\",⟨here⟩}'"),
    ([assistant({"function": {"name": "f", "arguments": "[1, 2]"}})], ValueError,
     "outputs[0].tool_calls[0].function.arguments is JSON a list; tool arguments are an object"),
    ([assistant({"function": {"name": "f", "arguments": 42}})], TypeError,
     "outputs[0].tool_calls[0].function.arguments is a number; expected the arguments"),
    ([{"role": "user", "content": "x", "tool_calls": [GOOD_CALL]}], ValueError,
     "outputs[0].tool_calls[0]: a user message makes no tool calls; only assistant ones do"),
    ([{"role": "tool", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
       "tool_calls": [GOOD_CALL]}], ValueError, "outputs[0].tool_calls[0]: a tool message makes"),
    ([{"role": "assistant", "content": "", "function_call": {"name": "f", "arguments": "{}"}}],
     ValueError, "outputs[0].function_call: legacy OpenAI function calls are not read"),
    ([AIMessage("", additional_kwargs={"function_call": {"name": "f", "arguments": "{}"}})],
     ValueError, "outputs[0].additional_kwargs.function_call: legacy OpenAI function calls"),
    ([{"role": "assistant", "content": "", "invalid_tool_calls": [
        {"name": "f", "args": "{bad", "id": "1", "error": "not JSON"}]}],
     ValueError, "outputs[0].invalid_tool_calls[0]: LangChain could not parse this tool call (f: "
     "not JSON)"),
    ([{"role": "assistant", "tool_calls": [GOOD_CALL], "content": [
        {"type": "tool_use", "name": "f", "input": {}}]}], ValueError,
     "outputs[0].content[0] is a tool_use block without 'id' next to tool_calls"),
    ([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}],
     ValueError, "outputs[0].content[0] is a tool_use block without 'input'"),
    ([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}],
     TypeError, "outputs[0].content[0].name is null; expected the tool's name"),
    ([{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}],
     ValueError, "outputs[0].content[0]: a user message makes no tool calls"),
    ([{"lc": 1, "type": "constructor", "id": ["langchain", "Document"], "kwargs": {}}],
     ValueError, "outputs[0] is a serialized LangChain object that is not a message"),
]  # fmt: skip

# A wrong-typed value where calls may be is refused, never read as "no calls", in every format.
_TOOL_USE = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
_AI_ENVELOPE = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages",
                "AIMessage"], "kwargs": {"content": ""}}  # fmt: skip
NOT_A_LIST = [({}, "an object"), (0, "a number"), ("", "a string"), (False, "a boolean")]
BAD_INPUTS += [
    (message, TypeError, f"outputs[{at}].tool_calls is {kind}; expected a list of tool calls")
    for value, kind in NOT_A_LIST
    for at, message in [
        (0, [{"role": "assistant", "content": "", "tool_calls": value}]),  # OpenAI
        (0, [{"type": "ai", "content": "", "tool_calls": value}]),  # LangChain dict
        (1, [user(), {"type": "ai", "data": {"content": "", "tool_calls": value}}]),
        (0, [{**_AI_ENVELOPE, "kwargs": {"content": "", "tool_calls": value}}]),
        (0, [{"role": "assistant", "content": [_TOOL_USE], "tool_calls": value}]),  # Anthropic
        (0, [{"role": "tool", "content": "x", "tool_call_id": "1", "tool_calls": value}]),
        (0, [{"role": "user", "content": "x", "tool_calls": value}]),
    ]
]
BAD_INPUTS += [
    (message, TypeError, f"outputs[0].invalid_tool_calls is {kind}; expected a list")
    for value, kind in NOT_A_LIST
    for message in [
        [{"role": "assistant", "content": "", "invalid_tool_calls": value}],
        [{"type": "ai", "content": "", "tool_calls": [], "invalid_tool_calls": value}],
        [{**_AI_ENVELOPE, "kwargs": {"content": "", "invalid_tool_calls": value}}],
    ]
]
BAD_INPUTS += [
    ([{"type": "ai", "content": "", "additional_kwargs": {"function_call": {"name": "f"}}}],
     ValueError, "outputs[0].additional_kwargs.function_call: legacy OpenAI function calls"),
    ([{"role": "assistant", "content": _TOOL_USE}], TypeError,
     "outputs[0].content is an object; expected text or a list of content blocks"),
    ([{"role": "user", "content": {"type": "tool_result", "tool_use_id": "t", "content": "x"}}],
     TypeError, "outputs[0].content is an object; expected text or a list of content blocks"),
    ([{"role": "assistant", "content": [SimpleNamespace(**_TOOL_USE)]}], TypeError,
     "outputs[0].content[0] is a value of type SimpleNamespace; expected a content block"),
    ([{"role": "assistant", "content": ["text", 0]}], TypeError,
     "outputs[0].content[1] is a number; expected a content block (a dict) or text"),
    ([{"role": "assistant", "content": [{**_TOOL_USE, "type": ["tool_use"]}]}], TypeError,
     "outputs[0].content[0].type is a list; expected a string"),
    ([{"role": "assistant", "content": [{**_TOOL_USE, "type": False}]}], TypeError,
     "outputs[0].content[0].type is a boolean; expected a string"),
]  # fmt: skip


@pytest.mark.parametrize(("outputs", "error", "message"), BAD_INPUTS)
def test_bad_input_is_refused_naming_the_message_and_field(
    outputs: Any, error: type[Exception], message: str
) -> None:
    before = copy.deepcopy(outputs)
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    with pytest.raises(error) as raised:
        evaluator(outputs=outputs, reference_outputs=[])
    assert str(raised.value).startswith(message), str(raised.value)
    with pytest.raises(error) as on_the_reference:
        evaluator(outputs=[], reference_outputs=outputs)
    expected = message.replace("outputs", "reference_outputs", 1)
    assert str(on_the_reference.value).startswith(expected), str(on_the_reference.value)
    assert outputs == before


def test_invalid_tool_calls_of_a_langchain_message_are_refused() -> None:
    message = AIMessage(
        "", invalid_tool_calls=[{"name": "f", "args": "{bad", "id": "1", "error": "bad JSON"}]
    )
    with pytest.raises(ValueError, match=r"outputs\[1\]\.invalid_tool_calls\[0\]: LangChain"):
        read_trajectory([HumanMessage("q"), message], "outputs")


def test_a_langchain_message_of_another_kind_is_refused() -> None:
    from langchain_core.messages import RemoveMessage

    with pytest.raises(ValueError, match=r"outputs\[0\] is a LangChain message of type 'remove'"):
        read_trajectory([RemoveMessage(id="1")], "outputs")


@pytest.mark.parametrize("calls", [2, 7])
def test_set_arguments_are_sorted_lists_however_many_calls_there_are(calls: int) -> None:
    # The value-conversion policy reads a set as a sorted list, on every pairing path.
    outputs = [assistant(*(langchain_call("f", {"when": {2, 1}, "n": n}) for n in range(calls)))]
    references = [assistant(*(langchain_call("f", {"when": [1, 2], "n": n}) for n in range(calls)))]
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert evaluator(outputs=outputs, reference_outputs=references)["score"] is True
    unsorted = [assistant(*(langchain_call("f", {"when": [2, 1], "n": n}) for n in range(calls)))]
    assert evaluator(outputs=outputs, reference_outputs=unsorted)["score"] is False


def test_arguments_without_a_json_form_are_refused_naming_the_call() -> None:
    outputs = [assistant(langchain_call("f", {"when": 1j}))]
    with pytest.raises(TypeError, match=r"^outputs\[0\]\.tool_calls\[0\]\.args\.when: a value"):
        create_trajectory_match_evaluator()(outputs=outputs, reference_outputs=outputs)


def _deep(levels: int) -> dict[str, Any]:
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        deep = {"a": deep}
    return deep


def test_deeply_nested_arguments() -> None:
    """Arguments too deep to convert are a short ValueError naming the call, whatever they are
    compared with; never a RecursionError."""
    evaluator = create_trajectory_match_evaluator()
    for reference in ({"a": 1}, _deep(5000)):
        with pytest.raises(ValueError, match=r"^outputs\[0\]\.tool_calls\[0\]\.args: nested too"):
            evaluator(
                outputs=[assistant(langchain_call("f", _deep(5000)))],
                reference_outputs=[assistant(langchain_call("f", reference))],
            )


# Corrupting one field of a valid trajectory, at random, always names that field.

CORRUPTIONS: list[tuple[str, Any, str]] = [
    ("role", "robot", "role"),
    ("role", None, ""),
    ("tool_calls", "oops", "tool_calls"),
    ("call", 3, "tool_calls[{call}]"),
    ("function", [], "tool_calls[{call}].function"),
    ("name", "", "tool_calls[{call}].function.name"),
    ("name", 9, "tool_calls[{call}].function.name"),
    ("arguments", "{", "tool_calls[{call}].function.arguments"),
    ("arguments", "7", "tool_calls[{call}].function.arguments"),
    ("arguments", 1.5, "tool_calls[{call}].function.arguments"),
]


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(0, 3),
    st.integers(0, 2),
    st.sampled_from(CORRUPTIONS),
    st.sampled_from(["outputs", "reference_outputs"]),
)
def test_any_single_corruption_is_named(
    messages: int, target: int, call: int, corruption: tuple[str, Any, str], side: str
) -> None:
    trajectory = [user()]
    for index in range(messages):
        trajectory.append(assistant(*(openai_call("f", {"i": index, "j": j}) for j in range(3))))
    target = 1 + target % messages
    message = trajectory[target]
    field, value, suffix = corruption
    if field == "role":
        message["role"] = value
    elif field == "tool_calls":
        message["tool_calls"] = value
    elif field == "call":
        message["tool_calls"][call] = value
    elif field == "function":
        message["tool_calls"][call]["function"] = value
    else:
        message["tool_calls"][call]["function"][field] = value
    other: list[Any] = [user(), assistant(openai_call("f", {"i": 0, "j": 0}))]
    arguments = {"outputs": trajectory, "reference_outputs": other}
    if side == "reference_outputs":
        arguments = {"outputs": other, "reference_outputs": trajectory}
    with pytest.raises((TypeError, ValueError)) as raised:
        create_trajectory_match_evaluator(trajectory_match_mode="unordered")(**arguments)
    where = f"{side}[{target}]" + ("." + suffix.format(call=call) if suffix else "")
    assert str(raised.value).startswith(where), (str(raised.value), where)


@pytest.mark.parametrize(("value", "kind"), NOT_A_LIST)
def test_a_message_object_with_calls_of_the_wrong_type_is_refused(value: Any, kind: str) -> None:
    """A message object read by its attributes (LangChain's own validate theirs)."""
    message = SimpleNamespace(type="ai", content="", tool_calls=value, invalid_tool_calls=[])
    with pytest.raises(TypeError, match=rf"^outputs\[1\]\.tool_calls is {kind}; expected a list"):
        read_trajectory([HumanMessage("q"), message], "outputs")
    invalid = SimpleNamespace(type="ai", content="", tool_calls=[], invalid_tool_calls=value)
    with pytest.raises(TypeError, match=rf"^outputs\[0\]\.invalid_tool_calls is {kind}"):
        read_trajectory([invalid], "outputs")


def test_empty_and_absent_calls_fields_are_no_calls() -> None:
    for fields in ({}, {"tool_calls": None}, {"tool_calls": []}, {"tool_calls": ()},
                   {"invalid_tool_calls": []}, {"invalid_tool_calls": None},
                   {"additional_kwargs": {}}, {"content": None}):  # fmt: skip
        message = {"role": "assistant", "content": "", **fields}
        assert shape([user(), message, {"type": "ai", "content": "", **fields}]) == [
            ("user", []),
            ("assistant", []),
            ("assistant", []),
        ]


def test_a_block_whose_id_is_a_number_is_not_the_call_whose_id_is_that_text() -> None:
    """Blocks repeating a tool_calls entry are merged by id: 1 is not "1" (as LangChain
    compares them), so the block's call is kept."""
    message = {
        "role": "assistant",
        "tool_calls": [langchain_call("search", {"q": "x"}, call_id="1")],
        "content": [{"type": "tool_use", "id": 1, "name": "fetch", "input": {"url": "u"}}],
    }
    assert shape([message]) == [("assistant", [("search", {"q": "x"}), ("fetch", {"url": "u"})])]
    message["content"][0]["id"] = "1"
    assert shape([message]) == [("assistant", [("search", {"q": "x"})])]
