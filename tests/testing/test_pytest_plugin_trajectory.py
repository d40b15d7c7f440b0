"""The pytest plugin on trajectory-match results, in a fresh pytest: each failing assertion form
shows the messages or tool calls side by side, as ``assert_trajectory_match`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.test_pytest_plugin import rows, run_pytest, section

TEST_FILE = """
import pytest
from matchevals.testing import assert_trajectory_match
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)


def call(name, **args):
    return {"name": name, "args": args}


ASK = {"role": "user", "content": "weather and news?"}
OUTPUTS = [ASK, {"role": "ai", "tool_calls": [call("weather", city="sf"), call("drop_db")]}]
CALLS = [call("news", topic="ai"), call("weather", city="SF")]
REFERENCES = [ASK, {"role": "ai", "tool_calls": CALLS}]


def test_bare_score():
    result = create_trajectory_match_evaluator()(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert result["score"]


def test_graded_threshold():
    evaluate = create_trajectory_match_evaluator(trajectory_match_mode="superset", score="recall")
    graded = evaluate(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert graded["score"] >= 0.5


def test_list_of_results():
    results = [
        create_trajectory_match_evaluator(trajectory_match_mode=mode)(
            outputs=OUTPUTS[:1], reference_outputs=REFERENCES[: 1 if mode == "strict" else 2]
        )
        for mode in ("strict", "unordered")
    ]
    assert all(r["score"] for r in results)


def test_compared_result():
    result = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
        outputs=OUTPUTS, reference_outputs=REFERENCES
    )
    assert result == {"key": "trajectory_unordered_match", "score": True, "comment": None,
                      "metadata": None}


@pytest.mark.asyncio
async def test_async_score():
    evaluate = create_async_trajectory_match_evaluator(trajectory_match_mode="subset")
    result = await evaluate(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert result["score"] is True


def test_assertion_helper_is_not_explained_twice():
    assert_trajectory_match(OUTPUTS, REFERENCES, trajectory_match_mode="unordered")


def test_passing_result_is_quiet():
    result = create_trajectory_match_evaluator()(outputs=[ASK], reference_outputs=[ASK])
    assert result["score"] is True
"""


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> str:
    completed = run_pytest(tmp_path_factory.mktemp("trajectory_plugin"), TEST_FILE)
    assert "6 failed, 1 passed" in completed.stdout, completed.stdout + completed.stderr
    return completed.stdout


def test_a_bare_strict_score_shows_the_messages_side_by_side(outcome: str) -> None:
    text = section(outcome, "test_bare_score")
    assert "E       matchevals explains:" in text
    assert "E         result: trajectory_strict_match = False" in text
    table = rows(text)
    assert ["E", "expected", "(reference_outputs)", "actual", "(outputs)"] in table
    assert ["E", ">", "[1]", "assistant", "[1]", "assistant", "DIFF"] in table
    differing = ['weather({"city":', '"SF"})', 'weather({"city":', '"sf"})', "DIFF", "args.city"]
    assert ["E", ">", *differing] in table
    assert ["E", ">", 'news({"topic":', '"ai"})', "—", "missing"] in table
    assert ["E", ">", "—", "drop_db({})", "extra"] in table
    assert 'expected "SF", got "sf"' in text  # the reasons follow the table


def test_a_graded_score_names_its_grades_and_what_lowered_them(outcome: str) -> None:
    text = section(outcome, "test_graded_threshold")
    assert (
        "graded: trajectory_superset_match_recall = 0.0 (tool calls: precision 0, recall 0, f1 0; "
        "the superset match is False)"
    ) in text
    assert ["E", ">", "—", "[1]", "drop_db({})", "extra"] in rows(text)


def test_only_the_failing_results_of_a_list_are_shown(outcome: str) -> None:
    text = section(outcome, "test_list_of_results")
    assert "results[1]: trajectory_unordered_match = False" in text
    assert "results[0]" not in text
    assert ["E", ">", "[1]", 'weather({"city":', '"SF"})', "—", "missing"] in rows(text)


def test_a_compared_result_is_explained_once(outcome: str) -> None:
    text = section(outcome, "test_compared_result")
    assert "left: trajectory_unordered_match = False" in text
    assert text.count("matchevals explains:") == 1
    assert ["E", ">", "[1]", 'news({"topic":', '"ai"})', "—", "missing"] in rows(text)


def test_an_async_result_is_explained(outcome: str) -> None:
    text = section(outcome, "test_async_score")
    assert "result: trajectory_subset_match = False" in text
    assert ["E", ">", "—", "[1]", "drop_db({})", "extra"] in rows(text)
    assert ["E", "[1]", 'news({"topic":', '"ai"})', "—", "missing,", "allowed"] in rows(text)


def test_assert_trajectory_match_carries_its_own_explanation(outcome: str) -> None:
    text = section(outcome, "test_assertion_helper_is_not_explained_twice")
    assert "trajectory_unordered_match = False, below the threshold 1.0" in text
    assert "matchevals explains:" not in text


def test_the_plugin_can_be_turned_off(tmp_path: Path) -> None:
    off = run_pytest(tmp_path, TEST_FILE, "-p", "no:matchevals")
    assert "6 failed, 1 passed" in off.stdout
    assert "matchevals explains:" not in off.stdout
    assert "expected (reference_outputs)" in section(  # the helper's message is its own
        off.stdout, "test_assertion_helper_is_not_explained_twice"
    )
