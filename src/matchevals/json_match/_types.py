"""The vocabulary of json_match: result keys, limits, and the small records every module passes.

Imports nothing else of matchevals: every other module of json_match may import it.

>>> Difference("age", "value", 30, 20, 0)
Difference(path='age', kind='value', expected=30, actual=20, score=0, output_at=None, \
reference_at=None, reason=None, covers=None)
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = [
    "KEY_PREFIX",
    "MAX_DEPTH",
    "UNMATCHED_ITEM_KEY",
    "VALUE_LIST_KEY",
    "Difference",
    "JudgeRequest",
    "JudgeVerdict",
    "Location",
    "Pair",
    "Score",
]

KEY_PREFIX = "json_match:"
"""What every result key starts with: ``json_match:age``, ``json_match:average``."""
UNMATCHED_ITEM_KEY = "<unmatched item>"
"""Reported key (aggregator None) of an unmatched list item that has no keys of its own to score."""
VALUE_LIST_KEY = "[]"
"""Reported key of a top-level list of plain values; its items' path is ``[*]``."""
MAX_DEPTH = 200
"""Deepest nesting of objects and lists that is compared (deeper input is a ValueError)."""

Score = int | float | bool
Pair = tuple[int | None, int | None]
"""``(output_index, reference_index)``; ``None`` on the side where an item has no partner."""
Location = tuple[str, str, str]
"""``(output item location, reference item location, item path)`` of the innermost list item,
e.g. ``("outputs.lines[2]", "reference_outputs.lines[0]", "lines[*]")``."""


class JudgeRequest(NamedTuple):
    """One rubric key of one pair of items, for the judge to score."""

    request_id: str
    key: str
    criteria: str
    output_value: Any
    reference_value: Any


class JudgeVerdict(NamedTuple):
    score: bool | int
    reasoning: str | None
    error: str | None = None
    """Set when the judge failed and ``on_judge_error="zero"`` scored the key 0."""


class Difference(NamedTuple):
    """One reason a score is below 1, for comments and ``metadata["mismatches"]``.

    ``kind`` is ``value`` (both sides present, unequal), ``missing`` (absent from outputs),
    ``extra`` (absent from the reference), ``judged`` (the judge said no), ``judge_error``,
    ``unmatched`` (a list item without a partner; ``covers`` lists the paths it zeroes) or
    ``unmatched_value`` (a plain list value without a partner).
    """

    path: str | None
    kind: str
    expected: Any
    actual: Any
    score: Score
    output_at: str | None = None
    reference_at: str | None = None
    reason: str | None = None
    covers: frozenset[str] | None = None
