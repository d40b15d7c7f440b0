"""The options of reference-free rules, checked once: names, limits per name, a budget, pairs.

Graph rules name nodes and trajectory rules name tools (``noun``); both refuse a bad option
with one sentence naming it.

>>> names(["search"], "forbidden_tools", "tool")
('search',)
>>> limit(True, "max_turns")
Traceback (most recent call last):
TypeError: max_turns is a bool, expected an int
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from matchevals._values import with_article

__all__ = ["describe", "limit", "limits", "names", "pairs"]


def describe(value: object) -> str:
    """``a str``, ``an int``, ``None``: the type of a bad value, for error messages."""
    return "None" if value is None else with_article(type(value).__name__)


def names(value: Any, option: str, noun: str) -> tuple[str, ...]:
    """A collection of names (a str is refused: it is one name, not a collection)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{option} is {describe(value)}, expected a collection of {noun} names")
    checked = tuple(value)
    for index, name in enumerate(checked):
        if not isinstance(name, str):
            raise TypeError(f"{option}[{index}] is {describe(name)}, expected a {noun} name (str)")
    return checked


def limits(value: Any, option: str, noun: str) -> tuple[tuple[str, int], ...]:
    """A dict of name: limit, each limit an int of at least 0."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{option} is {describe(value)}, expected a dict of {noun}: limit")
    for name, most in value.items():
        if not isinstance(name, str):
            raise TypeError(f"{option} key {name!r} is {describe(name)}, expected a {noun} name")
        limit(most, f"{option}[{name!r}]")
    return tuple(value.items())


def limit(value: Any, option: str) -> int:
    """An int of at least 0 (a bool is refused, though Python counts it an int)."""
    if type(value) is not int:
        raise TypeError(f"{option} is {describe(value)}, expected an int")
    if value < 0:
        raise ValueError(f"{option} is {value}; it must be at least 0")
    return value


def pairs(value: Any, option: str, noun: str) -> tuple[tuple[str, str], ...]:
    """A collection of ``(a, b)`` pairs of names (tuples or lists of two str)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{option} is {describe(value)}, expected a collection of (a, b) pairs")
    checked = tuple(value)
    for index, pair in enumerate(checked):
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(name, str) for name in pair)
        ):
            raise TypeError(
                f"{option}[{index}] is {pair!r}, expected a pair of {noun} names (a, b)"
            )
    return tuple((a, b) for a, b in checked)
