"""``trajectory_match_mode="pattern"``: turn patterns (``TurnStep``, ``Repeat``, ``"*"``) and
their JSON form against the output's assistant turns; explanations, metadata, errors naming
the path, options refused, ``AnyOf`` and the real ``langsmith.evaluate`` offline."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Any
from uuid import uuid4

import pytest
from langsmith import evaluate
from langsmith.schemas import Example

import matchevals.graph_trajectory
import matchevals.trajectory
from matchevals import AnyOf
from matchevals.trajectory import (
    Repeat,
    TurnStep,
    _pattern_verdict,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.langsmith_offline import offline_client

PATTERN = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
PARTIAL = create_trajectory_match_evaluator(trajectory_match_mode="pattern", partial_credit=True)


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"{name}-{len(args)}"}


def ai(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "ai", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(text: str = "ok") -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": "x"}


SEARCH_LOOP = [
    {"role": "user", "content": "find it"},
    ai(call("search", q="a")),
    tool(),
    ai(call("search", q="b")),
    tool(),
    ai(text="found it"),
]
LOOP_PATTERN = [Repeat([TurnStep([{"name": "search"}])], min=1, max=3), TurnStep([], "exact")]


# What a pattern accepts


def test_a_search_loop_then_a_final_answer() -> None:
    result = PATTERN(outputs=SEARCH_LOOP, reference_outputs=LOOP_PATTERN)
    assert result["key"] == "trajectory_pattern_match"
    assert result["score"] is True and result["comment"] is None
    assert result["metadata"]["turns"] == [
        {
            "turn": 0,
            "outputs": "outputs[1]",
            "calls": ['search({"q": "a"})'],
            "verdict": "match",
            "reference": "reference_outputs[0].steps[0]",
        },
        {
            "turn": 1,
            "outputs": "outputs[3]",
            "calls": ['search({"q": "b"})'],
            "verdict": "match",
            "reference": "reference_outputs[0].steps[0]",
        },
        {
            "turn": 2,
            "outputs": "outputs[5]",
            "calls": [],
            "verdict": "match",
            "reference": "reference_outputs[1]",
        },
    ]
    assert result["metadata"]["expected_turns"] == {"min": 2, "max": 4}


def test_repeat_max_bounds_the_loop() -> None:
    long_loop = SEARCH_LOOP[:-1] + [ai(call("search", q=q)) for q in "cd"] + [ai(text="done")]
    result = PATTERN(outputs=long_loop, reference_outputs=LOOP_PATTERN)
    assert result["score"] is False
    assert result["comment"] == (
        "outputs left the reference pattern at turn 3, outputs[6] (exact, reference_outputs[1]): "
        'expected [], got [search({"q": "d"})]; extra search({"q": "d"})'
    )


def test_user_tool_and_system_messages_are_not_turns() -> None:
    outputs = [{"role": "system", "content": "s"}, *SEARCH_LOOP, {"role": "user", "content": "x"}]
    assert PATTERN(outputs=outputs, reference_outputs=LOOP_PATTERN)["score"] is True
    assert PATTERN(outputs=[{"role": "user", "content": "hi"}], reference_outputs=[])["score"]


@pytest.mark.parametrize(
    ("mode", "outputs", "expected"),
    [
        ("exact", [call("a"), call("b")], True),
        ("exact", [call("b"), call("a")], False),
        ("unordered", [call("b"), call("a")], True),
        ("unordered", [call("a")], False),
        ("subset", [call("a")], True),
        ("subset", [call("a"), call("c")], False),
        ("superset", [call("b"), call("c"), call("a")], True),
        ("superset", [call("a")], False),
    ],
)
def test_the_four_turn_modes(mode: str, outputs: list[dict[str, Any]], expected: bool) -> None:
    pattern = [TurnStep([{"name": "a"}, {"name": "b"}], mode)]  # type: ignore[arg-type]
    assert PATTERN(outputs=[ai(*outputs)], reference_outputs=pattern)["score"] is expected


def test_calls_in_a_turn_are_paired_by_a_maximum_matching_not_greedily() -> None:
    # greedy pairing gives search(q=x) to the first expected call (any args) and then finds
    # nothing for search(q=y); a maximum matching pairs them the other way round
    pattern = [TurnStep([{"name": "search"}, {"name": "search", "args": {"q": "x"}}])]
    outputs = [ai(call("search", q="x"), call("search", q="y"))]
    assert PATTERN(outputs=outputs, reference_outputs=pattern)["score"] is True


def test_wildcard_tools_and_wildcard_turns() -> None:
    outputs = [ai(call("plan")), ai(call("anything", x=1), call("search", q="a")), ai(text="ok")]
    pattern = ["*", TurnStep([{"name": "*"}, {"name": "search", "args": {"q": "a"}}]), "*"]
    assert PATTERN(outputs=outputs, reference_outputs=pattern)["score"] is True
    assert PATTERN(outputs=outputs[:2], reference_outputs=pattern)["score"] is False


def test_optional_turns_may_be_absent() -> None:
    pattern = [
        TurnStep([{"name": "plan"}], optional=True),
        TurnStep([{"name": "search"}]),
        TurnStep([], "exact"),
    ]
    assert PATTERN(outputs=[ai(call("search")), ai(text="x")], reference_outputs=pattern)["score"]
    with_plan = [ai(call("plan")), ai(call("search")), ai(text="x")]
    assert PATTERN(outputs=with_plan, reference_outputs=pattern)["score"] is True


def test_arguments_follow_the_tool_argument_rules() -> None:
    pattern = [TurnStep([{"name": "search", "args": {"q": "a"}}])]
    outputs = [ai(call("search", q="a", lang="en"))]
    assert PATTERN(outputs=outputs, reference_outputs=pattern)["score"] is False
    superset = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", tool_args_match_mode="superset"
    )
    assert superset(outputs=outputs, reference_outputs=pattern)["score"] is True
    by_tool = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", tool_args_match_overrides={"search": ["q"]}
    )
    assert by_tool(outputs=outputs, reference_outputs=pattern)["score"] is True


@dataclass
class Booking:
    day: date
    price: Decimal


@pytest.mark.parametrize(
    ("python", "json_text"),
    [
        ({"day": date(2026, 5, 1)}, '{"day": "2026-05-01"}'),
        ({"price": Decimal("12.50")}, '{"price": "12.50"}'),
        (
            {"booking": Booking(date(2026, 5, 1), Decimal("3"))},
            '{"booking": {"day": "2026-05-01", "price": "3"}}',
        ),
        ({"ids": (1, 2)}, '{"ids": [1, 2]}'),
    ],
)  # fmt: skip
def test_python_arguments_in_a_pattern_are_read_as_in_a_message(
    python: dict[str, Any], json_text: str
) -> None:
    """A turn step's arguments go through the value conversion a message's arguments do, so a
    pattern scores as the same calls given as reference messages would."""
    outputs = [ai({"name": "book", "args": json_text, "id": "1"})]
    messages = [ai({"name": "book", "args": python, "id": "1"})]
    strict = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert strict(outputs=outputs, reference_outputs=messages)["score"] is True
    pattern = [TurnStep([{"name": "book", "args": python}])]
    assert PATTERN(outputs=outputs, reference_outputs=pattern)["score"] is True
    as_json = {"turns": [{"calls": [{"name": "book", "args": python}]}]}
    assert PATTERN(outputs=outputs, reference_outputs=as_json)["score"] is True


def test_pattern_arguments_that_are_no_json_object_are_refused_naming_the_place() -> None:
    with pytest.raises(
        TypeError, match=r"^TurnStep.calls\[0\].args is a list, expected a JSON object"
    ):
        TurnStep([{"name": "book", "args": [1]}])
    with pytest.raises(TypeError, match=r"reference_outputs.turns\[0\].calls\[0\].args.when"):
        PATTERN(
            outputs=[ai()],
            reference_outputs={"turns": [{"calls": [{"name": "b", "args": {"when": object()}}]}]},
        )


def test_every_message_format_the_readers_accept() -> None:
    openai = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "a"}'},
                }
            ],
        },
        {"role": "tool", "content": "r", "tool_call_id": "1"},
        {"role": "assistant", "content": "done"},
    ]
    anthropic = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "1", "name": "search", "input": {"q": "a"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "r"}]},
        {"role": "assistant", "content": "done"},
    ]
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    langchain = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "a"}, "id": "1"}]),
        ToolMessage("r", tool_call_id="1"),
        AIMessage("done"),
    ]
    pattern = [TurnStep([{"name": "search", "args": {"q": "a"}}]), TurnStep([], "exact")]
    for outputs in (openai, anthropic, {"messages": openai}, langchain):
        assert PATTERN(outputs=outputs, reference_outputs=pattern)["score"] is True


# The JSON form


def test_the_json_form_reads_like_the_classes() -> None:
    pattern = {
        "turns": [
            {"repeat": [{"calls": [{"name": "search"}]}], "min": 1, "max": 3},
            {"calls": [], "match_mode": "exact", "optional": False},
        ]
    }
    result = PATTERN(outputs=SEARCH_LOOP, reference_outputs=json.loads(json.dumps(pattern)))
    assert result["score"] is True
    assert [t["reference"] for t in result["metadata"]["turns"]] == [
        "reference_outputs.turns[0].repeat[0]",
        "reference_outputs.turns[0].repeat[0]",
        "reference_outputs.turns[1]",
    ]
    assert PATTERN(outputs=SEARCH_LOOP, reference_outputs={"turns": ["*", "*", "*"]})["score"]


@pytest.mark.parametrize(
    ("pattern", "error", "message"),
    [
        (
            {"turns": ["*", "*", {"calls": [{"name": 3}]}]},
            TypeError,
            r"^reference_outputs\.turns\[2\]\.calls\[0\]\.name is a number, expected a tool name",
        ),
        (
            {"turns": [{"calls": [], "match_mode": "exactly"}]},
            ValueError,
            r"^reference_outputs\.turns\[0\]\.match_mode is 'exactly'; expected one of exact, subset, superset, unordered",  # noqa: E501
        ),
        (
            {"turns": [{"calls": [{"name": "a", "args": "q=1"}]}]},
            TypeError,
            r"^reference_outputs\.turns\[0\]\.calls\[0\]\.args is a string",
        ),
        (
            {"turns": [{"calls": [], "optional": "yes"}]},
            TypeError,
            r"^reference_outputs\.turns\[0\]\.optional is a string",
        ),
        (
            {"turns": [{"calls": [], "mode": "exact"}]},
            ValueError,
            r"^reference_outputs\.turns\[0\] has unknown keys \['mode'\]",
        ),
        (
            {"turns": ["*", {"repeat": []}]},
            ValueError,
            r"^reference_outputs\.turns\[1\]\.repeat is empty",
        ),
        (
            {"turns": [{"repeat": [{"repeat": ["*"]}]}]},
            ValueError,
            r"^reference_outputs\.turns\[0\]\.repeat\[0\] is a Repeat inside a Repeat",
        ),
        (
            {"turns": [{"repeat": ["*"], "min": 3, "max": 2}]},
            ValueError,
            r"^reference_outputs\.turns\[0\]\.max is 2",
        ),
        (
            {"turns": [{"repeat": [{"calls": [{"name": "a", "extra": 1}]}]}]},
            ValueError,
            r"^reference_outputs\.turns\[0\]\.repeat\[0\]\.calls\[0\] has unknown keys \['extra'\]",
        ),
        (
            {"turns": ["search"]},
            TypeError,
            r"^reference_outputs\.turns\[0\] is the string 'search' \(only \"\*\" stands for a turn\)",  # noqa: E501
        ),
        (
            {"turns": "*"},
            TypeError,
            r"^reference_outputs\.turns is a string, expected a list of turn patterns",
        ),
        ({"steps": []}, ValueError, r"^reference_outputs has no \"turns\""),
        (
            [TurnStep([]), {"role": "ai", "content": "x"}],
            TypeError,
            r"^reference_outputs\[1\] is a message, not a turn pattern",
        ),
    ],
)
def test_bad_patterns_are_refused_naming_the_place(pattern: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        PATTERN(outputs=SEARCH_LOOP, reference_outputs=pattern)


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: TurnStep([{"name": "a"}], "exactly"),
            ValueError,
            r"^TurnStep\.mode is 'exactly'",
        ),
        (lambda: TurnStep("search"), TypeError, r"^TurnStep\.calls is a string"),
        (
            lambda: TurnStep([{"name": "*", "args": {}}]),
            ValueError,
            r'^TurnStep\.calls\[0\] names any tool \("\*"\) and gives args',
        ),
        (lambda: TurnStep([{"args": {}}]), TypeError, r"^TurnStep\.calls\[0\]\.name is null"),
        (
            lambda: Repeat([Repeat([TurnStep([])])]),
            ValueError,
            r"^Repeat\.steps\[0\] is a Repeat inside a Repeat",
        ),
        (lambda: Repeat([]), ValueError, r"^Repeat\.steps is empty"),
        (lambda: Repeat(["*"], min=2, max=1), ValueError, r"^Repeat\.max is 1"),
    ],
)
def test_bad_turn_steps_and_repeats_are_refused_when_built(
    build: Any, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        build()


def test_repeat_is_one_class_for_graphs_and_turns() -> None:
    assert matchevals.trajectory.Repeat is matchevals.graph_trajectory.Repeat
    assert Repeat.__module__ == "matchevals.graph_trajectory"
    assert TurnStep.__module__ == "matchevals.trajectory"


def test_the_graph_package_loads_only_when_patterns_are_used() -> None:
    code = (
        "import sys, matchevals.trajectory as t\n"
        "before = 'matchevals.graph_trajectory' in sys.modules\n"
        "t.create_trajectory_match_evaluator()(outputs=[], reference_outputs=[])\n"
        "plain = 'matchevals.graph_trajectory' in sys.modules\n"
        "t.Repeat\n"
        "print(before, plain, 'matchevals.graph_trajectory' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.split() == ["False", "False", "True"]


# Explanations


def test_a_divergent_turn_is_named_with_what_was_expected_missing_and_extra() -> None:
    pattern = [
        TurnStep([{"name": "search"}]),
        TurnStep([{"name": "fetch", "args": {"url": "u"}}, {"name": "log"}]),
    ]
    outputs = [ai(call("search")), tool(), ai(call("log"), call("delete", all=True))]
    result = PATTERN(outputs=outputs, reference_outputs=pattern)
    assert result["comment"] == (
        "outputs left the reference pattern at turn 1, outputs[2] (unordered, "
        'reference_outputs[1]): expected [fetch({"url": "u"}), log(any args)], got [log({}), '
        'delete({"all": true})]; missing fetch({"url": "u"}); extra delete({"all": true})'
    )
    assert result["metadata"]["divergence"] == {
        "turn": 1,
        "outputs": "outputs[2]",
        "expected": [
            {
                "calls": ['fetch({"url": "u"})', "log(any args)"],
                "match_mode": "unordered",
                "reference": "reference_outputs[1]",
            }
        ],
        "actual": ["log({})", 'delete({"all": true})'],
        "missing": ['fetch({"url": "u"})'],
        "extra": ['delete({"all": true})'],
    }
    assert [t["verdict"] for t in result["metadata"]["turns"]] == ["match", "mismatch"]


def test_comments_for_a_run_ending_early_going_past_the_end_and_alternatives() -> None:
    pattern = [TurnStep([{"name": "a"}]), TurnStep([{"name": "b"}], "exact")]
    short = PATTERN(outputs=[ai(call("a"))], reference_outputs=pattern)
    assert short["comment"] == (
        "outputs ended after 1 turn, before the reference pattern was complete: turn 1 should "
        "have been [b(any args)] (exact, reference_outputs[1])"
    )
    long = PATTERN(outputs=[ai(call("a")), ai(call("b")), ai(text="x")], reference_outputs=pattern)
    assert long["comment"] == (
        "outputs went past the end of the reference pattern: turn 2, outputs[2] [] is extra"
    )
    choice = [TurnStep([{"name": "a"}], optional=True), TurnStep([{"name": "b"}])]
    either = PATTERN(outputs=[ai(call("c"))], reference_outputs=choice)
    assert either["comment"] == (
        "outputs left the reference pattern at turn 0, outputs[0]: expected [a(any args)] "
        "(unordered, reference_outputs[0]) or [b(any args)] (unordered, reference_outputs[1]), "
        "got [c({})]"
    )
    order = PATTERN(
        outputs=[ai(call("b"), call("a"))],
        reference_outputs=[TurnStep([{"name": "a"}, {"name": "b"}], "exact")],
    )
    assert order["comment"].endswith("; same calls in a different order")


# Partial credit


def test_partial_credit_is_the_best_alignment() -> None:
    pattern = [TurnStep([{"name": "search"}]), TurnStep([{"name": "fetch"}]), TurnStep([], "exact")]  # fmt: skip # noqa: E501
    outputs = [ai(call("search")), ai(call("fetch"), call("log")), ai(text="done")]
    result = PARTIAL(outputs=outputs, reference_outputs=pattern)
    assert result["key"] == "trajectory_pattern_match_partial"
    assert result["score"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert result["metadata"]["partial_alignment"] == [
        {"turn": 0, "outputs": "outputs[0]", "reference": "reference_outputs[0]", "score": 1.0},
        {"turn": 1, "outputs": "outputs[1]", "reference": "reference_outputs[1]", "score": 0.5},
        {"turn": 2, "outputs": "outputs[2]", "reference": "reference_outputs[2]", "score": 1.0},
    ]
    assert PARTIAL(outputs=SEARCH_LOOP, reference_outputs=LOOP_PATTERN)["score"] == 1.0


def test_partial_credit_past_the_limit_is_refused() -> None:
    outputs = [ai(call("a")) for _ in range(2_000)]
    pattern = [TurnStep([{"name": "b"}]) for _ in range(300)]
    with pytest.raises(
        ValueError,
        match=r"partial credit would align 2000 turns with a turn pattern of about 301 positions "
        r"\(602,000 cells, more than 500,000\); use strict matching for trajectories this long",
    ):
        PARTIAL(outputs=outputs, reference_outputs=pattern)


# Selection and options


def test_a_pattern_given_to_another_mode_and_messages_given_to_pattern_are_refused() -> None:
    for reference in (LOOP_PATTERN, {"turns": ["*"]}, ["*"]):
        with pytest.raises(ValueError, match=r"^reference_outputs is a turn pattern .*'pattern'"):
            create_trajectory_match_evaluator()(outputs=SEARCH_LOOP, reference_outputs=reference)
    with pytest.raises(TypeError, match=r"^reference_outputs\[0\] is a message, not a turn"):
        PATTERN(outputs=SEARCH_LOOP, reference_outputs=SEARCH_LOOP)
    with pytest.raises(TypeError, match=r"^reference_outputs is a string; with trajectory_match"):
        PATTERN(outputs=SEARCH_LOOP, reference_outputs="*")
    with pytest.raises(TypeError, match=r"^reference_outputs is a single TurnStep; with"):
        PATTERN(outputs=SEARCH_LOOP, reference_outputs=TurnStep([]))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"score": "f1"}, r"score='f1' grades a pairing of calls"),
        ({"alignment": "greedy"}, r"alignment='greedy' does not apply"),
        ({"compat": "openevals"}, r"openevals does not have; drop compat='openevals'"),
    ],
)
def test_options_without_meaning_for_patterns_are_refused(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        create_trajectory_match_evaluator(trajectory_match_mode="pattern", **options)
    with pytest.raises(ValueError, match=message):
        create_async_trajectory_match_evaluator(trajectory_match_mode="pattern", **options)


def test_partial_credit_is_for_patterns_only() -> None:
    with pytest.raises(ValueError, match="partial_credit applies to trajectory_match_mode='pattern'"):  # fmt: skip # noqa: E501
        create_trajectory_match_evaluator(partial_credit=True)
    with pytest.raises(TypeError, match="partial_credit is 'yes', expected a bool"):
        create_trajectory_match_evaluator(trajectory_match_mode="pattern", partial_credit="yes")  # type: ignore[arg-type]


def test_feedback_key_and_nothing_mutated() -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", feedback_key="loop"
    )
    pattern = {"turns": [{"repeat": [{"calls": [{"name": "search"}]}]}, "*"]}
    before = (copy.deepcopy(SEARCH_LOOP), copy.deepcopy(pattern))
    assert evaluator(outputs=SEARCH_LOOP, reference_outputs=pattern)["key"] == "loop"
    assert (SEARCH_LOOP, pattern) == before


def test_async_twin_gives_the_same_result() -> None:
    evaluator = create_async_trajectory_match_evaluator(
        trajectory_match_mode="pattern", partial_credit=True
    )
    pattern = [TurnStep([{"name": "search", "args": {"q": "a"}}]), "*"]
    expected = PARTIAL(outputs=SEARCH_LOOP, reference_outputs=pattern)
    assert asyncio.run(evaluator(outputs=SEARCH_LOOP, reference_outputs=pattern)) == expected


# AnyOf and LangSmith


def test_any_of_patterns_picks_the_best_alternative() -> None:
    alternatives = AnyOf([[TurnStep([{"name": "fetch"}])], LOOP_PATTERN])
    result = PATTERN(outputs=SEARCH_LOOP, reference_outputs=alternatives)
    assert result["score"] is True
    assert result["metadata"]["any_of"] == {"chosen": 1, "scores": [False, True]}
    json_form = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", partial_credit=True, any_of_key="any_of"
    )
    reference = {"any_of": [{"turns": ["*"]}, {"turns": ["*", "*", "*"]}]}
    assert json_form(outputs=SEARCH_LOOP, reference_outputs=reference)["score"] == 1.0


def test_any_of_alternatives_must_all_be_patterns_or_all_messages() -> None:
    with pytest.raises(TypeError, match=r"^reference_outputs\.alternatives\[1\]\[0\] is a message"):
        PATTERN(outputs=SEARCH_LOOP, reference_outputs=AnyOf([LOOP_PATTERN, SEARCH_LOOP]))
    with pytest.raises(
        ValueError, match=r"^reference_outputs\.alternatives\[1\] is a turn pattern"
    ):
        create_trajectory_match_evaluator()(
            outputs=SEARCH_LOOP, reference_outputs=AnyOf([SEARCH_LOOP, LOOP_PATTERN])
        )


def test_langsmith_evaluate_offline_with_patterns_in_the_dataset() -> None:
    answers = {"loop": SEARCH_LOOP, "no search": [ai(text="I don't know")]}
    data = [
        Example(
            id=uuid4(),
            inputs={"case": case},
            outputs={
                "turns": [
                    {"repeat": [{"calls": [{"name": "search"}]}]},
                    {"calls": [], "match_mode": "exact"},
                ]
            },
            dataset_id=uuid4(),
            created_at=datetime.now(timezone.utc),
        )
        for case in answers
    ]
    results = evaluate(
        lambda inputs: {"messages": answers[inputs["case"]]},
        data=data,
        evaluators=[PATTERN, PARTIAL],
        upload_results=False,
        client=offline_client(),
    )
    found = {
        row["example"].inputs["case"]: {
            r.key: r.score for r in row["evaluation_results"]["results"]
        }
        for row in results
    }
    assert found == {
        "loop": {"trajectory_pattern_match": True, "trajectory_pattern_match_partial": 1.0},
        "no search": {"trajectory_pattern_match": False, "trajectory_pattern_match_partial": 0.5},
    }


# Side by side (assert_trajectory_match and the pytest plugin)


def test_assert_trajectory_match_lays_turns_beside_the_pattern() -> None:
    from matchevals.testing import assert_trajectory_match

    outputs = [ai(call("search", q="x")), tool(), ai(call("fetch", u=1)), ai(text="done")]
    pattern = [TurnStep([{"name": "search"}]), TurnStep([{"name": "search"}]), "*"]
    with pytest.raises(AssertionError) as failure:
        assert_trajectory_match(
            outputs, pattern, trajectory_match_mode="pattern", partial_credit=True, threshold=0.9
        )
    assert str(failure.value).splitlines() == [
        "trajectory_pattern_match_partial = 0.6666666666666666, below the threshold 0.9 "
        "(the pattern match is False)",
        "    expected (reference_outputs)    actual (outputs)",
        '    reference_outputs[0]            [0] search({"q": "x"})  ok',
        '  > [search(any args)] (unordered)  [2] fetch({"u": 1})     DIFF',
        "  > —                               [3] (no calls)          unchecked",
        "  why:",
        "    outputs left the reference pattern at turn 1, outputs[2] (unordered, "
        'reference_outputs[1]): expected [search(any args)], got [fetch({"u": 1})]',
        "    missing search(any args)",
        '    extra fetch({"u": 1})',
    ]
    with pytest.raises(AssertionError) as short:
        assert_trajectory_match(outputs[:1], pattern[:2], trajectory_match_mode="pattern")
    assert str(short.value).splitlines()[3] == (
        "  > [search(any args)] (unordered)  —                       missing"
    )


def test_a_matcher_that_answers_no_verdict_is_an_error_naming_both_calls() -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern",
        tool_args_match_overrides={"search": lambda output, reference: "yes"},
    )
    pattern = [TurnStep([{"name": "search", "args": {"q": "a"}}]), "*"]
    with pytest.raises(ValueError, match=r"\(comparing outputs\[1\]\.tool_calls\[0\] with "
                       r"reference_outputs\[0\]\.calls\[0\]\)$"):  # fmt: skip
        evaluator(outputs=SEARCH_LOOP, reference_outputs=pattern)


def test_a_matcher_is_asked_about_every_turn_even_when_their_json_is_equal() -> None:
    """Partial credit's bounds compare each distinct turn once, but under a user's matcher
    turns whose arguments are equal as JSON are not alike: this one tells key order apart."""
    by_key_order = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern",
        partial_credit=True,
        tool_args_match_overrides={
            "s": lambda output, reference: list(output.items()) == list(reference.items())
        },
    )
    outputs = [
        ai({"name": "s", "args": {"b": 2, "a": 1}}),
        ai({"name": "s", "args": {"a": 1, "b": 2}}),
    ]
    pattern = [
        TurnStep([], optional=True),
        TurnStep([{"name": "s", "args": {"a": 1, "b": 2}}], optional=True),
    ]
    with pytest.MonkeyPatch.context() as patch:  # the tighter bounds from the first entry on
        patch.setattr(_pattern_verdict, "_LOOSE_BOUND_BUDGET", 0)
        result = by_key_order(outputs=outputs, reference_outputs=pattern)
    assert result["score"] == 0.5  # the second turn pairs with the second step
    assert [pair["score"] for pair in result["metadata"]["partial_alignment"]][-1] == 1.0
