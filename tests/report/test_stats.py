"""The numbers a run adds up to: every superstep named by its position, however long the run."""

from __future__ import annotations

from matchevals.report._stats import key_scores


def test_every_superstep_of_a_long_run_is_named_by_its_position() -> None:
    verdicts = ["match", "mismatch", "unchecked"] * 200  # beyond the names made in advance
    results = [{"key": "g", "score": 0.5, "metadata": {"runs": [{"verdicts": verdicts}]}}]
    scores = list(key_scores(results))
    assert scores[0] == ("g", 0.5)
    expected = {"match": 1.0, "mismatch": 0.0, "unchecked": None}
    assert scores[1:] == [
        (f"superstep {position}", expected[verdict]) for position, verdict in enumerate(verdicts)
    ]
