"""Scores entering a report are bools or numbers in [0, 1] (or absent); anything else is refused,
naming the row."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.report import render_html_report


@pytest.mark.parametrize(
    ("rows", "error", "message"),
    [
        ([{"key": "x", "score": float("nan")}], ValueError, r"examples\[0\]\['score'\] is nan"),
        ([{"key": "x", "score": 5}], ValueError, r"examples\[0\]\['score'\] is 5"),
        ([{"key": "x", "score": -1}], ValueError, r"examples\[0\]\['score'\] is -1"),
        ([{"key": "x", "score": "0.5"}], TypeError, r"examples\[0\]\['score'\] is a string"),
        (
            [{"key": "a", "score": 1}, [{"key": "b", "score": 1}, {"key": "c", "score": 2}]],
            ValueError,
            r"examples\[1\]\[1\]\['score'\] is 2",
        ),
        (
            [{"results": [{"key": "a", "score": 1}], "score": 1.5}],
            ValueError,
            r"examples\[0\]\['score'\] is 1.5",
        ),
    ],
)
def test_a_score_outside_0_1_is_refused(rows: list[Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        render_html_report(rows)


def test_value_only_feedback_and_booleans_are_read() -> None:
    page = render_html_report(
        [{"key": "x", "score": None, "value": "good"}, {"key": "y", "score": True}]
    )
    assert page.startswith("<!DOCTYPE html>")
