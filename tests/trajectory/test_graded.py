"""Graded scores: precision, recall or F1 of tool calls under the same maximum pairing, with the
pairing and the mode's verdict in metadata."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.trajectory import create_trajectory_match_evaluator
from tests.trajectory.helpers import assistant, langchain_call, tool, user


def calls(*names: str) -> dict[str, Any]:
    return assistant(*(langchain_call(name, {}) for name in names))


def graded(outputs: Any, references: Any, **options: Any) -> Any:
    return create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )


OUTPUTS = [user(), calls("a", "b", "x"), tool(), tool(), tool()]
REFERENCES = [user(), calls("a", "b"), tool(), tool(), calls("c", "d"), tool(), tool()]


@pytest.mark.parametrize(
    ("score", "expected"),
    [("precision", 2 / 3), ("recall", 2 / 4), ("f1", 2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))],
)
def test_the_scores_of_the_pairing(score: str, expected: float) -> None:
    for mode in ("unordered", "subset", "superset"):
        result = graded(OUTPUTS, REFERENCES, trajectory_match_mode=mode, score=score)
        assert result["key"] == f"trajectory_{mode}_match_{score}"  # a graded key of its own
        assert result["score"] == pytest.approx(expected)
        metadata = result["metadata"]
        assert metadata["match"] is False
        assert metadata["precision"] == pytest.approx(2 / 3)
        assert metadata["recall"] == pytest.approx(0.5)
        assert metadata["pairing"] == [[0, 0], [1, 1], [None, 2], [None, 3], [2, None]]
        assert [c["at"] for c in metadata["calls"]["reference_outputs"]] == [
            "reference_outputs[1].tool_calls[0]",
            "reference_outputs[1].tool_calls[1]",
            "reference_outputs[4].tool_calls[0]",
            "reference_outputs[4].tool_calls[1]",
        ]


def test_a_graded_pass_still_carries_its_pairing() -> None:
    result = graded(REFERENCES, REFERENCES, trajectory_match_mode="unordered", score="f1")
    assert result["score"] == 1.0 and result["comment"] is None
    assert result["metadata"]["match"] is True
    assert result["metadata"]["pairing"] == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert "mismatches" not in result["metadata"]


def test_below_one_always_says_why_even_when_the_mode_holds() -> None:
    """superset holds with an extra call, but that extra call costs precision and F1."""
    outputs, references = [calls("a", "x")], [calls("a")]
    result = graded(outputs, references, trajectory_match_mode="superset", score="f1")
    assert result["metadata"]["match"] is True
    assert result["score"] == pytest.approx(2 / 3)
    assert result["comment"] == "outputs[0].tool_calls[1] x({}) has no partner in reference_outputs"
    recall = graded(outputs, references, trajectory_match_mode="superset", score="recall")
    assert (recall["score"], recall["comment"]) == (1.0, None)


def test_nothing_on_either_side_scores_one() -> None:
    for score in ("precision", "recall", "f1"):
        assert (
            graded([user()], [user()], trajectory_match_mode="unordered", score=score)["score"]
            == 1.0
        )
    no_outputs = graded([user()], [calls("a")], trajectory_match_mode="unordered", score="f1")
    assert (no_outputs["score"], no_outputs["metadata"]["precision"]) == (0.0, 1.0)


def test_graded_strict_aligns_messages_when_the_positions_do_not_line_up() -> None:
    """An extra message shifts every position: strict fails, but the calls still pair."""
    references = [user(), calls("a"), tool(), calls("b"), tool(), assistant(text="done")]
    outputs = [user(), assistant(text="thinking"), calls("a"), tool(), calls("b"), tool()]
    result = graded(outputs, references, trajectory_match_mode="strict", score="f1")
    assert result["metadata"]["match"] is False
    assert result["score"] == 1.0
    assert result["metadata"]["message_pairing"] == [
        [0, 0],
        [1, None],
        [2, 1],
        [3, 2],
        [4, 3],
        [5, 4],
        [None, 5],
    ]
    assert result["comment"].startswith(
        "outputs[1] (assistant) has no partner in reference_outputs"
    )
    boolean = graded(outputs, references, trajectory_match_mode="strict")
    assert boolean["score"] is False
    assert boolean["metadata"]["message_pairing"][:2] == [[0, 0], [1, 1]]  # by position


def test_graded_strict_counts_calls_paired_inside_aligned_messages() -> None:
    outputs = [user(), calls("a", "b"), tool(), tool()]
    references = [user(), calls("a", "c"), tool(), tool()]
    result = graded(outputs, references, trajectory_match_mode="strict", score="precision")
    assert result["score"] == 0.5
    assert result["metadata"]["pairing"] == [[0, 0], [None, 1], [1, None]]


def test_greedy_graded_scores_use_the_greedy_pairing() -> None:
    search = [
        assistant(langchain_call("s", {"q": "x"}), langchain_call("s", {"q": "x", "lang": "en"}))
    ]
    reversed_search = [
        assistant(langchain_call("s", {"q": "x", "lang": "en"}), langchain_call("s", {"q": "x"}))
    ]
    options = {"trajectory_match_mode": "unordered", "tool_args_match_mode": "subset"}
    greedy = graded(search, reversed_search, **options, score="recall", alignment="greedy")
    optimal = graded(search, reversed_search, **options, score="recall")
    assert (greedy["score"], optimal["score"]) == (0.5, 1.0)
