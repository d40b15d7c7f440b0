"""JSON values as matchevals sees them: strict equality, hashing for pairing, readable rendering.

Values compare as JSON values, not as Python objects: ``true`` is not ``1``, ``1`` equals ``1.0``,
objects and arrays compare deeply, and NaN equals NaN (a value always equals itself).

This is the one module that decides JSON equality: :func:`json_equal` for two values,
:func:`differing_keys` for the values of two objects at once (the hot loop of json_match, with
the common cases decided inline), and :func:`freeze`, the hash key that agrees with both.
Everything else calls these (an ``a is b`` test first is fine: a value equals itself).
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Hashable, Mapping, Sequence
from json.encoder import encode_basestring as _quote
from typing import Any

__all__ = [
    "EXACT_TYPES",
    "a_type",
    "counted",
    "describe_type",
    "differing_keys",
    "freeze",
    "json_equal",
    "render",
    "text_of",
    "with_article",
]

_BOOL_TAG = "\x00bool"
_NAN_TAG = "\x00nan"
_OBJECT_TAG = "\x00object"
_ARRAY_TAG = "\x00array"
_ARRAY_TYPES = (list, tuple)
EXACT_TYPES = frozenset({str, int, bool, type(None)})
"""Types whose values, when of the same type, are equal as JSON exactly when ``==`` says so."""


def json_equal(left: Any, right: Any) -> bool:
    """Whether two values are equal as JSON values.

    >>> json_equal(1, 1.0), json_equal(True, 1), json_equal({"a": [1]}, {"a": [1.0]})
    (True, False, True)
    """
    if left is right:
        return True
    left_type = type(left)
    if left_type is type(right):
        if left_type is str or left_type is int or left_type is bool:
            return bool(left == right)
        if left_type is float:
            return bool(left == right or (left != left and right != right))  # NaN equals NaN
        if left_type is list:
            if len(left) != len(right):
                return False
            for left_item, right_item in zip(left, right):  # noqa: B905 (equal lengths)
                item_type = type(left_item)
                if left_item is right_item:
                    continue
                if item_type is type(right_item) and item_type in EXACT_TYPES:
                    if left_item != right_item:
                        return False
                elif not json_equal(left_item, right_item):
                    return False
            return True
        if left_type is dict:
            return len(left) == len(right) and all(
                key in right and json_equal(value, right[key]) for key, value in left.items()
            )
    right_type = type(right)
    if isinstance(left, bool) or isinstance(right, bool):
        return left_type is right_type and left == right
    if isinstance(left, Mapping):
        return (
            isinstance(right, Mapping)
            and len(left) == len(right)
            and all(key in right and json_equal(value, right[key]) for key, value in left.items())
        )
    if isinstance(left, _ARRAY_TYPES):
        return (
            isinstance(right, _ARRAY_TYPES)
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(right, (Mapping, *_ARRAY_TYPES)):
        return False
    if left_type is float and right_type is float and math.isnan(left) and math.isnan(right):
        return True
    try:
        return bool(left == right)
    except Exception:  # an exotic object whose __eq__ raises is simply not equal
        return False


class _Absent:
    __slots__ = ()


_ABSENT: Any = _Absent()


def differing_keys(
    output: Mapping[str, Any], reference: Mapping[str, Any]
) -> tuple[list[str], int]:
    """The keys whose values differ as JSON values or are on one side only, and the number of
    keys compared (the keys of both). Output keys come first, in their order, then the keys
    only the reference has.

    >>> differing_keys({"a": 1, "b": True}, {"a": 1.0, "b": 1, "c": 2})
    (['b', 'c'], 3)
    """
    reference_get = reference.get
    differing = []
    extra = 0
    for key, actual in output.items():
        expected = reference_get(key, _ABSENT)
        if actual is expected:
            continue
        kind = type(actual)
        if kind is type(expected):  # the common cases of json_equal, decided without a call
            if kind in EXACT_TYPES:
                if actual != expected:
                    differing.append(key)
                continue
            if kind is float:
                if actual != expected and (actual == actual or expected == expected):  # NaN
                    differing.append(key)
                continue
        if expected is _ABSENT:
            extra += 1
            differing.append(key)
        elif not json_equal(actual, expected):
            differing.append(key)
    if len(output) - extra != len(reference):  # keys missing from output
        differing.extend(key for key in reference if key not in output)
    return differing, len(reference) + extra


def freeze(value: Any) -> Hashable:
    """A hashable key such that ``freeze(a) == freeze(b)`` exactly when ``json_equal(a, b)``.

    >>> freeze(1) == freeze(1.0), freeze(True) == freeze(1)
    (True, False)
    """
    value_type = type(value)
    if value_type is str or value_type is int or value is None:
        return value  # type: ignore[no-any-return]
    if value_type is bool:
        return (_BOOL_TAG, value)
    if value_type is float:
        return (_NAN_TAG,) if math.isnan(value) else value
    if isinstance(value, Mapping):
        return (_OBJECT_TAG, frozenset((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, _ARRAY_TYPES):
        return (_ARRAY_TAG, tuple(freeze(item) for item in value))
    try:
        hash(value)
    except Exception:  # unhashable, or a __hash__ that raises
        raise TypeError(
            f"cannot compare a {type(value).__name__} value: expected JSON values "
            "(objects, arrays, strings, numbers, booleans, null)"
        ) from None
    return value  # type: ignore[no-any-return]


def render(value: Any, limit: int = 60) -> str:
    """A short, readable JSON rendering for comments, truncated to about ``limit`` characters.

    >>> render({"city": "Paris"})
    '{"city": "Paris"}'
    """
    value_type = type(value)
    if value_type is str:
        text = _quote(value if len(value) <= limit else value[:limit])
        if len(text) <= limit:  # the common case: a short string
            return text
    elif value_type is int or value_type is float:  # text_of's, inline: comments are hot
        text = repr(value)
    else:
        text = text_of(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_of(value: Any) -> str:
    """The whole JSON text :func:`render` shortens (keys sorted; what JSON cannot hold as its
    ``repr``).

    >>> text_of({"b": [1.5, None], "a": "x"})
    '{"a": "x", "b": [1.5, null]}'
    """
    value_type = type(value)
    if value_type is str:
        return _quote(value)
    if value_type is int or value_type is float:
        return repr(value)
    if value is None or value_type is bool:
        return "null" if value is None else ("true" if value else "false")
    return _dump(value)


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    except (ValueError, TypeError, RecursionError):  # cycles, odd keys, very deep values
        return _SHORT_REPR.repr(value)


_SHORT_REPR = reprlib.Repr()
_SHORT_REPR.maxlevel = 4
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = 60


def describe_type(value: Any) -> str:
    """The JSON name of a value's type, worded to follow "a" in error messages.

    >>> [describe_type(v) for v in (None, True, 3, 2.5, "x", {}, [], {1})]
    ['null value', 'boolean', 'number', 'number', 'string', 'object', 'list', 'value of type set']
    """
    if value is None:
        return "null value"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return "list"
    return f"value of type {type(value).__name__}"


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an", as messages say it.

    >>> with_article("object"), with_article("list"), with_article("user"), with_article("int")
    ('an object', 'a list', 'a user', 'an int')
    """
    vowel = noun[:1].lower() in "aeiou" and noun[:2].lower() != "us"
    return ("an " if vowel else "a ") + noun


def counted(count: int, noun: str) -> str:
    """A count with its noun, plural by an ``s``, as messages say it.

    >>> counted(1, "turn"), counted(0, "run"), counted(3, "example")
    ('1 turn', '0 runs', '3 examples')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def a_type(value: Any) -> str:
    """A value's JSON type with its article, as error messages say it.

    >>> a_type(None), a_type({}), a_type(3)
    ('a null value', 'an object', 'a number')
    """
    return with_article(describe_type(value))
