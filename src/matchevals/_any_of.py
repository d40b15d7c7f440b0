"""Several acceptable references: :class:`AnyOf`, its JSON form, and the best alternative chosen.

An output passes when it matches any alternative; its result is the best alternative's (the
highest score, the first on a tie), with ``metadata["any_of"]`` naming the chosen alternative
(``chosen``, its index) and keeping every alternative's score (``scores``). The evaluator edge
(:mod:`matchevals._edge`) reads the alternatives, evaluates each through the evaluator's own
computation, and hands the results to :func:`choose`.

>>> AnyOf([{"city": "Paris"}, {"city": "Paris, France"}]).alternatives
({'city': 'Paris'}, {'city': 'Paris, France'})
>>> AnyOf([])
Traceback (most recent call last):
...
ValueError: AnyOf([]) has no alternatives; pass at least one reference
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from matchevals._path_text import child_path
from matchevals._values import a_type

__all__ = [
    "ANY_OF_METADATA",
    "Alternatives",
    "AnyOf",
    "alternatives_of",
    "check_any_of_key",
    "check_kinds",
    "choose",
]

ANY_OF_METADATA = "any_of"
"""The metadata key of an AnyOf result: ``{"chosen": index, "scores": [score, ...]}``."""

_REFERENCE = "reference_outputs"


@dataclass(frozen=True, slots=True, init=False)
class AnyOf:
    """Several acceptable references for one output: pass it as ``reference_outputs``.

    The result is the best alternative's: for a boolean score True when any alternative
    matches, for a graded one the highest score (the first alternative on a tie).

    >>> from matchevals.json_match import create_json_match_evaluator
    >>> evaluator = create_json_match_evaluator(aggregator="all")
    >>> (result,) = evaluator(
    ...     outputs={"city": "Paris, France"},
    ...     reference_outputs=AnyOf([{"city": "Paris"}, {"city": "Paris, France"}]),
    ... )
    >>> result["score"], result["metadata"]["any_of"]
    (1, {'chosen': 1, 'scores': [0, 1]})
    """

    alternatives: tuple[Any, ...]

    def __init__(self, alternatives: Iterable[Any]) -> None:
        if isinstance(alternatives, (str, bytes, Mapping)) or not isinstance(
            alternatives, Iterable
        ):
            raise TypeError(
                f"AnyOf takes a list of references; got {a_type(alternatives)} "
                "(write AnyOf([reference, ...]))"
            )
        items = tuple(alternatives)
        if not items:
            raise ValueError("AnyOf([]) has no alternatives; pass at least one reference")
        for index, item in enumerate(items):
            if isinstance(item, AnyOf):
                raise TypeError(
                    f"AnyOf alternatives[{index}] is itself an AnyOf; list its references in "
                    "the outer AnyOf instead"
                )
        object.__setattr__(self, "alternatives", items)


class Alternatives(NamedTuple):
    """The alternatives of one reference and the path of each (in errors)."""

    items: tuple[Any, ...]
    paths: tuple[str, ...]


def check_any_of_key(value: Any) -> str | None:
    """A factory's ``any_of_key``: None (no JSON form) or a non-empty string.

    >>> check_any_of_key(3)
    Traceback (most recent call last):
    ...
    TypeError: any_of_key is a number; expected a non-empty string such as 'any_of', or None
    """
    if value is None or (isinstance(value, str) and value):
        return value
    raise TypeError(
        f"any_of_key is {a_type(value)}; expected a non-empty string such as 'any_of', or None"
    )


def alternatives_of(reference: Any, key: str | None) -> Alternatives | None:
    """The alternatives ``reference`` holds, or None for an ordinary reference: an
    :class:`AnyOf`, or (only when ``key`` is given) a dict whose only key is ``key``.

    >>> alternatives_of({"any_of": [{"a": 1}, {"a": 2}]}, "any_of").paths
    ('reference_outputs.any_of[0]', 'reference_outputs.any_of[1]')
    >>> alternatives_of({"any_of": [{"a": 1}]}, None) is None
    True
    >>> alternatives_of({"any_of": {"a": 1}}, "any_of")
    Traceback (most recent call last):
    ...
    TypeError: reference_outputs.any_of is an object; expected a list of alternative references
    """
    if type(reference) is AnyOf:
        base = f"{_REFERENCE}.alternatives"
        items = reference.alternatives
    elif _json_form(reference, key):
        base = child_path(_REFERENCE, key)
        listed = reference[key]
        if not isinstance(listed, (list, tuple)):
            raise TypeError(
                f"{base} is {a_type(listed)}; expected a list of alternative references"
            )
        if not listed:
            raise ValueError(
                f"{base} is an empty list; expected at least one alternative reference"
            )
        items = tuple(listed)
    else:
        return None
    paths = tuple([f"{base}[{index}]" for index in range(len(items))])
    if key is not None:  # AnyOf itself refuses an AnyOf among its alternatives
        for item, path in zip(items, paths, strict=True):
            if isinstance(item, AnyOf) or _json_form(item, key):
                raise TypeError(
                    f"{path} holds alternatives itself; list every alternative in {base} instead"
                )
    return Alternatives(items, paths)


def _json_form(value: Any, key: str | None) -> bool:
    """Whether ``value`` is the JSON form: a dict whose only key is ``key`` (never guessed)."""
    return key is not None and isinstance(value, Mapping) and len(value) == 1 and key in value


def check_kinds(kinds: list[str], paths: tuple[str, ...]) -> None:
    """Every alternative of one kind (the evaluator's own word for its references).

    >>> check_kinds(["an object", "a list"], ("r[0]", "r[1]"))
    Traceback (most recent call last):
    ...
    ValueError: r[1] is a list but r[0] is an object; every alternative must be of one kind
    """
    for kind, path in zip(kinds, paths, strict=True):
        if kind != kinds[0]:
            raise ValueError(
                f"{path} is {kind} but {paths[0]} is {kinds[0]}; every alternative must be "
                "of one kind"
            )


def _score(result: Any) -> Any:
    """One alternative's score: its result's, or the mean of its results' (one per key; an
    empty list of results, nothing compared, scores 1)."""
    if type(result) is not list:
        return result["score"]
    if len(result) == 1:
        return result[0]["score"]
    return sum(r["score"] for r in result) / len(result) if result else 1.0


def _marked(result: dict[str, Any], mark: dict[str, Any], prefix: str | None) -> dict[str, Any]:
    metadata = result.get("metadata")
    comment = result.get("comment")
    return {
        **result,
        "comment": comment if prefix is None or comment is None else f"{prefix}{comment}",
        "metadata": {**(metadata or {}), ANY_OF_METADATA: mark},
    }


def choose(results: list[Any], alternatives: Alternatives) -> Any:
    """The best alternative's result (a result, or a list of them), marked with
    ``metadata["any_of"]``; when none matched, its comments say which alternative they explain.

    >>> alternatives = Alternatives(({}, {}), ("r[0]", "r[1]"))
    >>> best = choose([{"key": "k", "score": 0.5, "comment": "x", "metadata": None},
    ...                {"key": "k", "score": 0.75, "comment": "y", "metadata": None}], alternatives)
    >>> best["score"], best["comment"]
    (0.75, 'best of 2 alternatives, r[1]: y')
    >>> best["metadata"]
    {'any_of': {'chosen': 1, 'scores': [0.5, 0.75]}}
    """
    scores = [_score(result) for result in results]
    best_score = max(scores)  # True and False compare as 1 and 0
    chosen = scores.index(best_score)  # the first of the best
    mark = {"chosen": chosen, "scores": scores}
    prefix = None
    if len(results) > 1 and best_score < 1:
        prefix = f"best of {len(results)} alternatives, {alternatives.paths[chosen]}: "
    best = results[chosen]
    if isinstance(best, list):
        return [_marked(result, mark, prefix) for result in best]
    return _marked(best, mark, prefix)
