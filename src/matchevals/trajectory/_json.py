"""Everything the trajectory package takes from the JSON value model and from json_match.

The one module of :mod:`matchevals.trajectory` that imports :mod:`matchevals._values`,
:mod:`matchevals._conversion`, :mod:`matchevals._differences`, :mod:`matchevals._path_text` or
:mod:`matchevals.json_match`, so they can be restructured behind it. json_match is used only
through its public factory, imported when a json_match argument matcher is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from matchevals._conversion import to_json
from matchevals._differences import ABSENT, ARGUMENT_KINDS, Kind, sentence, walk
from matchevals._path_text import Token, child_path, parse_path, path_text
from matchevals._values import counted, describe_type, freeze, json_equal, render, with_article

__all__ = [
    "ABSENT",
    "ARGUMENT_KINDS",
    "Kind",
    "Token",
    "a_type",
    "child_path",
    "counted",
    "describe_type",
    "freeze",
    "json_equal",
    "json_match_evaluator",
    "parse_path",
    "path_text",
    "render",
    "sentence",
    "to_json",
    "walk",
    "with_article",
]


def a_type(value: Any) -> str:
    """The value's type with its article, as messages say it.

    >>> a_type(None), a_type(3), a_type("x")
    ('null', 'a number', 'a string')
    """
    return "null" if value is None else with_article(describe_type(value))


def json_match_evaluator(options: Mapping[str, Any]) -> Callable[..., Any]:
    """A json_match evaluator built from its factory's keyword arguments.

    >>> evaluator = json_match_evaluator({"aggregator": "all"})
    >>> evaluator(outputs={"q": 1}, reference_outputs={"q": 1})[0]["score"]
    1
    """
    from matchevals.json_match import create_json_match_evaluator

    return create_json_match_evaluator(**options)
