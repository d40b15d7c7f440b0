"""Differences between two values, for every evaluator and every reader of its results: the
kinds of mismatch, the walk finding where two values differ, and how a difference is said.

- :class:`Kind`: every ``kind`` a ``metadata["mismatches"]`` entry can have, one enumeration;
- :func:`walk`: the leaves where two JSON values differ (objects key by key, lists of one length
  item by item), as keys and indexes (written with :func:`matchevals._path_text.path_text`);
- :func:`sentence` (:func:`value_sentence` for two values): ``expected 30, got 20``, ``missing
  from outputs, expected 30``, ``not in reference_outputs, got 20``;
- :func:`shown_pair`: two values as they are shown side by side: long values that share a long
  beginning are shown from a little before the first character where they differ.

Pure functions on plain data: the evaluators write their comments with them, and the readers of
results (pytest, :mod:`matchevals.testing`, the HTML report) show differences with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import Enum
from typing import Any

from matchevals._path_text import Token
from matchevals._values import json_equal, render, text_of

__all__ = [
    "ABSENT",
    "ARGUMENT_KINDS",
    "CALL_KINDS",
    "UNPAIRED_KINDS",
    "Kind",
    "actual_is_absent",
    "expected_is_absent",
    "sentence",
    "shown_pair",
    "value_sentence",
    "walk",
]

VALUE_WIDTH = 60
"""How many characters a value takes in a comment."""


class Kind(str, Enum):
    """What a mismatch is (``metadata["mismatches"][i]["kind"]``; json_match leaves it out for
    ``value``). Members are strings: ``Kind.MISSING == "missing"``."""

    # json_match: one key or leaf path
    VALUE = "value"  # both sides present, unequal
    MISSING = "missing"  # absent from outputs
    EXTRA = "extra"  # absent from the reference
    JUDGED = "judged"  # the judge said no
    JUDGE_ERROR = "judge_error"  # the judge failed (on_judge_error="zero")
    UNMATCHED = "unmatched"  # a list item without a partner
    UNMATCHED_VALUE = "unmatched_value"  # a plain value of a list without a partner
    # trajectory: tool calls, their arguments, messages (strict mode)
    ARG = "arg"
    MISSING_ARG = "missing_arg"
    EXTRA_ARG = "extra_arg"
    MATCHER = "matcher"  # a user's argument matcher said no
    MISSING_CALL = "missing_call"
    EXTRA_CALL = "extra_call"
    MISSING_MESSAGE = "missing_message"
    EXTRA_MESSAGE = "extra_message"
    MESSAGE_COUNT = "message_count"
    ROLE = "role"
    TOOL_CALL_COUNT = "tool_call_count"
    # graph_trajectory: where a run first left its reference (the HTML report's)
    DIVERGENCE = "divergence"

    def __str__(self) -> str:
        return self.value


ARGUMENT_KINDS = frozenset({Kind.ARG, Kind.MISSING_ARG, Kind.EXTRA_ARG, Kind.MATCHER})
"""A tool-call argument differs between two calls of the same tool."""
CALL_KINDS = ARGUMENT_KINDS | {Kind.MISSING_CALL, Kind.EXTRA_CALL}
"""Differences of tool calls (entries naming the tool): a whole call, or one argument."""
UNPAIRED_KINDS = frozenset({Kind.UNMATCHED, Kind.UNMATCHED_VALUE})
"""A list item without a partner on the other side."""
_NO_EXPECTED = frozenset({Kind.EXTRA, Kind.EXTRA_ARG, Kind.EXTRA_CALL, Kind.EXTRA_MESSAGE})
_NO_ACTUAL = frozenset({Kind.MISSING, Kind.MISSING_ARG, Kind.MISSING_CALL, Kind.MISSING_MESSAGE})
_ONE_SIDED = _NO_EXPECTED | _NO_ACTUAL


def expected_is_absent(kind: str) -> bool:
    """Whether a mismatch of ``kind`` has no reference side (the output has something more).

    >>> expected_is_absent("extra"), expected_is_absent("value")
    (True, False)
    """
    return kind in _NO_EXPECTED


def actual_is_absent(kind: str) -> bool:
    """Whether a mismatch of ``kind`` has no output side (the output lacks something).

    >>> actual_is_absent("missing_call"), actual_is_absent("extra")
    (True, False)
    """
    return kind in _NO_ACTUAL


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


ABSENT: Any = _Absent()
"""What :func:`walk` gives for the side of a key that only one side has."""


def walk(
    expected: Any, actual: Any, at: tuple[Token, ...] = ()
) -> Iterator[tuple[tuple[Token, ...], Any, Any]]:
    """Where two values differ: ``(place, expected, actual)`` for each differing leaf below
    ``at``, :data:`ABSENT` for a side without it. Objects are followed key by key (keys in
    order of their text), lists of the same length item by item; anything else that differs is
    one leaf (a key that one side lacks, two lists of different lengths, a number and a string).

    >>> [(place, e, a) for place, e, a in walk({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3], "c": 0}})]
    [(('a', 'b', 1), 2, 3), (('a', 'c'), <missing>, 0)]
    """
    if json_equal(expected, actual):
        return
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in sorted({*expected, *actual}, key=str):
            yield from walk(expected.get(key, ABSENT), actual.get(key, ABSENT), (*at, key))
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            yield from walk(left, right, (*at, index))
    else:
        yield at, expected, actual


def sentence(
    kind: str, expected: Any, actual: Any, about: str = "", width: int = VALUE_WIDTH
) -> str:
    """What differs, in words, after ``about`` (the place it is about) and a colon: a side the
    ``kind`` says is absent is named, not shown; two values are said by :func:`value_sentence`.

    >>> sentence("value", 30, 20, "age"), sentence("extra", None, 2)
    ('age: expected 30, got 20', 'not in reference_outputs, got 2')
    >>> sentence("missing", 30, None)
    'missing from outputs, expected 30'
    """
    if kind not in _ONE_SIDED:
        return value_sentence(expected, actual, about, width)
    text = (
        f"missing from outputs, expected {render(expected, width)}"
        if kind in _NO_ACTUAL
        else f"not in reference_outputs, got {render(actual, width)}"
    )
    return f"{about}: {text}" if about else text


def value_sentence(expected: Any, actual: Any, about: str = "", width: int = VALUE_WIDTH) -> str:
    """``about: expected X, got Y``, both values as :func:`shown_pair` shows them.

    >>> value_sentence({"a": 1}, {"a": 2}, "item")
    'item: expected {"a": 1}, got {"a": 2}'
    """
    left, right = render(expected, width), render(actual, width)
    if len(left) == width == len(right) and left[-1] == "…" == right[-1]:  # both cut
        left, right = _around_difference(expected, actual, width, left, right)
    if about:
        return f"{about}: expected {left}, got {right}"
    return f"expected {left}, got {right}"


def shown_pair(expected: Any, actual: Any, width: int = VALUE_WIDTH) -> tuple[str, str]:
    """Both values rendered in about ``width`` characters each, so that where they differ shows:
    values too long to show whole that agree on more than fits are shown from a little before
    the first character where their texts differ (``…`` marks what is left out).

    >>> text = "Two chairs and a table, delivered on Monday; total 100 USD"
    >>> shown_pair(text, text.replace("100", "180"), 30)
    ('…Monday; total 100 USD"', '…Monday; total 180 USD"')
    >>> shown_pair({"a": 1}, {"a": 2})
    ('{"a": 1}', '{"a": 2}')
    """
    left, right = render(expected, width), render(actual, width)
    if len(left) == width == len(right) and left[-1] == "…" == right[-1]:  # both cut
        return _around_difference(expected, actual, width, left, right)
    return left, right


def _around_difference(
    expected: Any, actual: Any, width: int, left: str, right: str
) -> tuple[str, str]:
    """``left`` and ``right`` (both values cut at ``width``), or windows around the first
    difference where the cut hides it."""
    visible = width - 1 - width // 4  # a difference before this shows, with what follows
    if type(expected) is str and type(actual) is str:  # no copy of long strings
        first = _first_difference(expected, actual)
        if first + 1 < visible:  # + 1: the opening quote
            return left, right
        start = first - width // 2
        return _string_window(expected, start, width), _string_window(actual, start, width)
    left_text, right_text = text_of(expected), text_of(actual)
    first = _first_difference(left_text, right_text)
    if first < visible:
        return left, right
    start = first - width // 2
    return _window(left_text, start, width), _window(right_text, start, width)


_CHUNK = 4096


def _first_difference(left: str, right: str) -> int:
    """The index of the first character where two texts differ (the shorter length if one
    begins the other), comparing chunks at C speed, each copied once."""
    end = min(len(left), len(right))
    at = 0
    while at < end and left[at : at + _CHUNK] == right[at : at + _CHUNK]:
        at += _CHUNK
    while at < end and left[at] == right[at]:
        at += 1
    return min(at, end)


def _window(text: str, start: int, width: int) -> str:
    """``text`` from ``start``, in ``width`` characters (``…`` where it is cut)."""
    end = start + width - 2
    return "…" + text[start:end] + ("…" if end < len(text) else "")


def _string_window(value: str, start: int, width: int) -> str:
    """A string's JSON text from its character ``start``, in about ``width`` characters."""
    end = start + width - 2
    escaped = text_of(value[start:end])[1:-1]
    if end >= len(value):
        return "…" + escaped + '"'
    return "…" + escaped[: width - 2] + "…"
