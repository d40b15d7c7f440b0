"""``assert_trajectory_match`` and the side-by-side tables behind it (also what the pytest plugin
shows for a trajectory result alone)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from matchevals.testing import assert_trajectory_match
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.testing.helpers import plugin_lines


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def ai(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"role": "assistant", "content": text, "tool_calls": list(calls)}


ASK = {"role": "user", "content": "Plan my day"}
RESULT = {"role": "tool", "content": "done"}
OUTPUTS = [
    ASK,
    ai(call("search", q="x"), call("weather", city="sf")),
    RESULT,
    ai(call("delete_db")),
    {"role": "assistant", "content": "All set."},
]
REFERENCES = [
    ASK,
    ai(call("weather", city="SF"), call("search", q="x")),
    RESULT,
    ai(call("news", topic="ai")),
    {"role": "assistant", "content": "Here is your day."},
]


def failure(outputs: Any, references: Any, **options: Any) -> str:
    with pytest.raises(AssertionError) as raised:
        assert_trajectory_match(outputs, references, **options)
    return str(raised.value)


def test_a_match_passes_silently_and_returns_openevals_result() -> None:
    result = assert_trajectory_match(OUTPUTS[:3], REFERENCES[:3], tool_args_match_mode="ignore")
    assert result == {
        "key": "trajectory_strict_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


def test_strict_failure_lays_the_messages_side_by_side_with_their_calls() -> None:
    assert failure(OUTPUTS, REFERENCES) == "\n".join(
        [
            "trajectory_strict_match = False, below the threshold 1.0",
            "    expected (reference_outputs)  actual (outputs)",
            "    [0] user                      [0] user                     ok",
            "  > [1] assistant                 [1] assistant                DIFF",
            '  >     weather({"city": "SF"})       weather({"city": "sf"})  DIFF args.city',
            '        search({"q": "x"})            search({"q": "x"})       ok',
            "    [2] tool                      [2] tool                     ok",
            "  > [3] assistant                 [3] assistant                DIFF",
            '  >     news({"topic": "ai"})         —                        missing',
            "  >     —                             delete_db({})            extra",
            "    [4] assistant                 [4] assistant                ok",
            "  why:",
            "    weather args.city (outputs[1].tool_calls[1] vs "
            'reference_outputs[1].tool_calls[0]): expected "SF", got "sf"',
            '    reference_outputs[3].tool_calls[0] news({"topic": "ai"}) has no partner in '
            "outputs",
            "    outputs[3].tool_calls[0] delete_db({}) has no partner in reference_outputs",
        ]
    )


def test_strict_failure_shows_roles_counts_and_messages_without_partners() -> None:
    outputs = [ASK, ai(call("search", q="x")), {"role": "user", "content": "and?"}]
    references = [ASK, ai(call("search", q="x"), call("news", topic="ai")), RESULT, RESULT]
    text = failure(outputs, references)
    assert text.splitlines()[1:8] == [
        "    expected (reference_outputs)  actual (outputs)",
        "    [0] user                      [0] user                ok",
        "  > [1] assistant                 [1] assistant           DIFF 1 tool call, expected 2",
        '        search({"q": "x"})            search({"q": "x"})  ok',
        '  >     news({"topic": "ai"})         —                   missing',
        "  > [2] tool                      [2] user                DIFF role",
        "  > [3] tool                      —                       missing",
    ]


def test_other_modes_lay_the_calls_side_by_side_in_reference_order() -> None:
    text = failure(OUTPUTS, REFERENCES, trajectory_match_mode="unordered")
    assert text.splitlines()[:6] == [
        "trajectory_unordered_match = False, below the threshold 1.0",
        "    expected (reference_outputs)  actual (outputs)",
        '  > [1] weather({"city": "SF"})   [1] weather({"city": "sf"})  DIFF args.city',
        '    [1] search({"q": "x"})        [1] search({"q": "x"})       ok',
        '  > [3] news({"topic": "ai"})     —                            missing',
        "  > —                             [3] delete_db({})            extra",
    ]


def test_what_a_mode_allows_is_shown_but_not_marked() -> None:
    superset = failure(OUTPUTS, REFERENCES, trajectory_match_mode="superset")
    assert "    —                             [3] delete_db({})            extra, allowed" in (
        superset.splitlines()
    )
    subset = failure(OUTPUTS, REFERENCES, trajectory_match_mode="subset")
    assert '    [3] news({"topic": "ai"})     —                            missing, allowed' in (
        subset.splitlines()
    )
    assert "delete_db" not in superset.split("why:")[1]  # the reasons are the evaluator's own


def test_a_graded_score_must_reach_the_threshold() -> None:
    options: dict[str, Any] = {"trajectory_match_mode": "unordered", "score": "recall"}
    passing = assert_trajectory_match(OUTPUTS, REFERENCES, threshold=0.3, **options)
    assert passing["score"] == pytest.approx(1 / 3)
    text = failure(OUTPUTS, REFERENCES, threshold=0.5, **options)
    assert text.splitlines()[0] == (
        "trajectory_unordered_match_recall = 0.3333333333333333, below the threshold 0.5 "
        "(tool calls: precision 0.333, recall 0.333, f1 0.333; the unordered match is False)"
    )
    # graded: every call left over lowers some grade, so none is "allowed"
    superset = failure(OUTPUTS, REFERENCES, trajectory_match_mode="superset", score="f1")
    assert "  > —                             [3] delete_db({})            extra" in (
        superset.splitlines()
    )


@pytest.mark.parametrize("threshold", [0.0, 0.01, 1.0])
def test_a_boolean_failure_fails_every_threshold(threshold: float) -> None:
    """False is not a 0 that a threshold of 0 lets through; True passes any threshold."""
    text = failure(OUTPUTS, REFERENCES, threshold=threshold)
    assert text.startswith("trajectory_strict_match = False")
    assert assert_trajectory_match(OUTPUTS, OUTPUTS, threshold=threshold)["score"] is True


def test_the_issues_counterexample_passes_and_greedy_pairing_says_why_it_fails() -> None:
    outputs = [ai(call("search", q="x"), call("search", q="x", lang="en"))]
    references = [ai(call("search", q="x", lang="en"), call("search", q="x"))]
    for mode in ("strict", "unordered", "subset", "superset"):
        options: dict[str, Any] = {"trajectory_match_mode": mode, "tool_args_match_mode": "subset"}
        assert assert_trajectory_match(outputs, references, **options)["score"] is True
        text = failure(outputs, references, alignment="greedy", **options)
        assert "a maximum pairing (alignment='optimal') matches" in text


@pytest.mark.parametrize("threshold", [1.5, -0.1, "high", True])
def test_a_bad_threshold_is_a_clear_error(threshold: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="threshold"):
        assert_trajectory_match([], [], threshold=threshold)


def test_bad_options_and_inputs_raise_the_evaluators_errors() -> None:
    with pytest.raises(ValueError, match="Invalid trajectory match type: `fuzzy`"):
        assert_trajectory_match([], [], trajectory_match_mode="fuzzy")
    bad = [{"role": "ai", "tool_calls": [{"function": {"name": "f", "arguments": "{oops"}}]}]
    with pytest.raises(ValueError, match=r"^outputs\[0\]\.tool_calls\[0\]\.function\.arguments"):
        assert_trajectory_match(bad, [])


def test_a_long_trajectory_keeps_every_failing_row_and_folds_the_passing_ones() -> None:
    rng = random.Random(3)
    calls = [call("lookup", n=index) for index in range(200)]
    outputs = [ASK, *(ai(c) for c in calls)]
    shuffled = calls[:]
    rng.shuffle(shuffled)
    references = [ASK, *(ai(c) for c in shuffled)]
    references[50] = ai(call("lookup", n=999))
    lost = shuffled[49]["args"]["n"]  # the call the reference replaced
    lines = failure(outputs, references, trajectory_match_mode="unordered").splitlines()
    assert lines[2:7] == [
        f'    [1] lookup({{"n": {shuffled[0]["args"]["n"]}}})        '
        f'[{shuffled[0]["args"]["n"] + 1}] lookup({{"n": {shuffled[0]["args"]["n"]}}})  ok',
        "    … 48 more rows ok",
        f'  > [50] lookup({{"n": 999}})       [{lost + 1}] lookup({{"n": {lost}}})  DIFF args.n',
        lines[5],
        "    … 149 more rows ok",
    ]
    assert lines[5].startswith("    [51] lookup(") and lines[5].endswith("ok")
    assert [line for line in lines if line.startswith("  > ")] == [lines[4]]


def test_tool_results_taken_from_anthropic_user_messages_are_named_by_their_block() -> None:
    use = {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "SF"}}
    outputs = [
        ASK,
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": 1}]},
    ]
    references = [ASK, ai(call("weather", city="SF"))]
    lines = failure(outputs, references).splitlines()
    assert lines[3:6] == [
        "    [1] assistant                 [1] assistant                ok",
        '        weather({"city": "SF"})       weather({"city": "SF"})  ok',
        "  > —                             [2].content[0] tool          extra",
    ]


def test_the_plugin_lays_out_trajectory_results_whatever_their_key() -> None:
    result = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
        outputs=OUTPUTS, reference_outputs=REFERENCES
    )
    lines = plugin_lines(result)
    assert lines[1] == "  left: trajectory_unordered_match = False"
    table = lines[2:7]
    assert table[0].split() == ["expected", "(reference_outputs)", "actual", "(outputs)"]
    assert lines[7] == "    why:"
    renamed = create_trajectory_match_evaluator(
        trajectory_match_mode="unordered", feedback_key="agent_calls"
    )(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert plugin_lines(renamed)[2:] == lines[2:]  # the mode is read from the metadata
    plain = {"key": "trajectory_strict_match", "score": False, "comment": "x; y"}
    assert plugin_lines(plain)[1:] == ["  left: trajectory_strict_match = False", "    x", "    y"]


def test_the_table_is_built_from_the_results_plain_data_alone() -> None:
    result = create_trajectory_match_evaluator()(outputs=OUTPUTS, reference_outputs=REFERENCES)
    through_json = json.loads(json.dumps(result))  # what the command line or LangSmith keeps
    assert plugin_lines(through_json) == plugin_lines(result)


def test_an_empty_side() -> None:
    text = failure([], [ASK, ai(call("search", q="x"))], trajectory_match_mode="superset")
    assert text.splitlines()[1:3] == [
        "    expected (reference_outputs)  actual (outputs)",
        '  > [1] search({"q": "x"})        —                 missing',
    ]
    result = create_trajectory_match_evaluator(trajectory_match_mode="unordered", score="f1")(
        outputs=[ASK], reference_outputs=[]
    )
    assert result["score"] == 1.0  # nothing to pair: a table without rows, were it shown
    assert "      (no tool calls)" in plugin_lines({**result, "score": 0.0})
