"""The fast paths for plain options, chosen by :func:`scorer` when an evaluator is built.

With no ``rubric``, ``exclude_keys``, ``comparators``, ``extra_keys`` or ``none_is_missing``
option there is nothing to judge and no rule to look up, so the commonest inputs are scored
straight to results, with no intermediate objects:

- :func:`score_objects`: two objects, key by key;
- :func:`score_records`: two lists of objects under an aggregator, item scores counted;
- :func:`score_nested_objects`: ``nested=True`` documents without lists to pair, leaf by leaf.

Each returns exactly what the general path (:func:`~._core.score`) returns, or None to hand an
input back to it (non-string keys, lists to pair inside a document, very deep values), which then
explains the problem. ``tests/json_match/test_plain_path.py`` checks the equality on random
inputs, with the general path as the oracle (``scorer(options, fast=False)``). Equality comes
from :mod:`matchevals._values` and explanations from :mod:`._explanation`, as on the general path.

>>> from matchevals.json_match._options import JsonMatchOptions
>>> scorer(JsonMatchOptions(aggregator="average"))({"a": 1, "b": 2}, {"a": 1, "b": 3})[0]["score"]
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, cast

from matchevals._differences import ABSENT, Kind
from matchevals._limits import MAX_METADATA_MISMATCHES
from matchevals._types import EvaluatorResult
from matchevals._values import differing_keys, json_equal
from matchevals.json_match._aggregate import combine
from matchevals.json_match._core import score
from matchevals.json_match._evaluation import ItemScores
from matchevals.json_match._explanation import (
    Explanation,
    clause,
    entry,
    unmatched_difference,
)
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._pairing import pair_with_options
from matchevals.json_match._paths import child_path, key_path
from matchevals.json_match._types import KEY_PREFIX, MAX_DEPTH, Pair

__all__ = ["score_nested_objects", "score_objects", "score_records", "scorer"]

Scorer = Callable[[Any, Any], list[EvaluatorResult]]

_PASSING: EvaluatorResult = {"key": "", "score": 1, "comment": None, "metadata": None}
"""What a key scored 1 gets; copied, never handed out."""
_ONLY_DICTS = frozenset({dict})
_LEAF_TYPES = frozenset({str, int, bool, float, type(None)})
_EMPTY: dict[str, Any] = {}
_VALUE, _MISSING, _EXTRA = Kind.VALUE, Kind.MISSING, Kind.EXTRA


def scorer(options: JsonMatchOptions, *, fast: bool = True) -> Scorer:
    """``(outputs, reference_outputs) -> results`` for options without rubric keys: a fast path
    for plain options (unless ``fast`` is False), else the general path."""
    if fast and options.plain:
        return partial(_plain_nested if options.nested else _plain, options)
    return partial(score, options)


def _plain(options: JsonMatchOptions, outputs: Any, references: Any) -> list[EvaluatorResult]:
    if type(outputs) is dict and type(references) is dict:
        found = score_objects(outputs, references, options.aggregator)
        if found is not None:
            return found
    elif (
        options.aggregator is not None
        and type(outputs) is list
        and type(references) is list
        and _ONLY_DICTS.issuperset(map(type, outputs))
        and _ONLY_DICTS.issuperset(map(type, references))
    ):
        result = score_records(outputs, references, options)
        if result is not None:
            return [result]
    return score(options, outputs, references)


def _plain_nested(
    options: JsonMatchOptions, outputs: Any, references: Any
) -> list[EvaluatorResult]:
    if type(outputs) is dict and type(references) is dict:
        found = score_nested_objects(outputs, references, options.aggregator)
        if found is not None:
            return found
    return score(options, outputs, references)


# ------------------------------------------------------------------------------- two objects


def score_objects(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> list[EvaluatorResult] | None:
    """Results for two plain objects, or None when the general path must decide.

    >>> score_objects({"a": 1, "b": 2}, {"a": 1, "b": 3}, "average")[0]["score"]
    0.5
    """
    try:
        differing, compared = differing_keys(output, reference)
        if aggregator is None:
            return _per_key(output, reference, differing, compared)
        differing.sort()
        return [_aggregated(aggregator, compared, differing, output.get, reference.get, True)]
    except (TypeError, RecursionError):  # non-string keys, exotic or very deep values
        return None


def _per_key(
    output: dict[str, Any], reference: dict[str, Any], differing: list[str], compared: int
) -> list[EvaluatorResult]:
    """One result per key of either side, in key order."""
    # compared == len(output): the reference has no key the output lacks
    keys = sorted(output) if compared == len(output) else sorted(output.keys() | reference.keys())
    failing = set(differing)
    results: list[EvaluatorResult] = []
    append = results.append
    new_passing = _PASSING.copy  # a copy and one store cost less than a 4-key dict display
    output_get, reference_get = output.get, reference.get
    for key in keys:
        if key in failing:
            path = key_path(key)
            append(_failing_result(key, path, output_get(key, ABSENT), reference_get(key, ABSENT)))
        else:
            result = new_passing()
            result["key"] = KEY_PREFIX + key
            append(result)
    return results


def _failing_result(key: str, path: str, actual: Any, expected: Any) -> EvaluatorResult:
    """The result of ``key`` (its difference at ``path``: the key as a path, or a leaf path)."""
    kind = _EXTRA if expected is ABSENT else _MISSING if actual is ABSENT else _VALUE
    return {
        "key": KEY_PREFIX + key,
        "score": 0,
        "comment": clause(path, kind, expected, actual, 0),
        "metadata": {"mismatches": [entry(path, kind, expected, actual, 0)], "alignment": None},
    }


def _aggregated(
    aggregator: str,
    count: int,
    differing: list[str],
    actual_of: Callable[[str, Any], Any],
    expected_of: Callable[[str, Any], Any],
    top_level: bool,
) -> EvaluatorResult:
    """The one result of ``aggregator`` over ``count`` keys (``top_level``) or leaf paths, of
    which the sorted ``differing`` are not equal; ``actual_of`` and ``expected_of`` are the
    ``get`` of both sides."""
    count_differing = len(differing)
    if aggregator == "average":
        result_score: float | int = (count - count_differing) / count if count else 1.0
    else:
        result_score = 0 if differing else 1
    key = KEY_PREFIX + aggregator
    if not differing:
        return {"key": key, "score": result_score, "comment": None, "metadata": None}
    explanation = Explanation()
    for name in differing[:MAX_METADATA_MISMATCHES]:
        path = key_path(name) if top_level else name
        explanation.add_key(path, actual_of(name, ABSENT), expected_of(name, ABSENT), 0)
    explanation.count(count_differing - MAX_METADATA_MISMATCHES)
    return {
        "key": key,
        "score": result_score,
        "comment": explanation.comment(),
        "metadata": explanation.metadata(None),
    }


# ------------------------------------------------------------------------------- lists of objects


def score_records(
    outputs: list[dict[str, Any]], references: list[dict[str, Any]], options: JsonMatchOptions
) -> EvaluatorResult | None:
    """The aggregated result for two lists of plain objects, scored without per-item objects
    (None: the general path decides)."""
    try:
        pairs = pair_with_options(outputs, references, options, (frozenset(), frozenset(), None))
        item_scores, to_explain, counted = _record_scores(
            outputs, references, pairs, options.aggregator == "average"
        )
    except (TypeError, RecursionError):  # non-string keys, exotic or very deep values
        return None
    result_score = combine(item_scores, options.list_aggregator)
    key = f"{KEY_PREFIX}{options.aggregator}"
    alignment = [[o, r] for o, r in pairs]
    if result_score == 1:
        return {"key": key, "score": result_score, "comment": None,
                "metadata": {"alignment": alignment}}  # fmt: skip
    explanation = Explanation()
    for output_index, reference_index, differing in to_explain:
        output = _EMPTY if output_index is None else outputs[output_index]
        reference = _EMPTY if reference_index is None else references[reference_index]
        if not differing:  # an unmatched item
            unmatched = ItemScores(output_index, reference_index, output, reference, {}, {})
            explanation.add_difference(unmatched_difference(unmatched, False))
            continue
        output_at = f"outputs[{output_index}]"
        reference_at = f"reference_outputs[{reference_index}]"
        for name in sorted(differing):
            actual, expected = output.get(name, ABSENT), reference.get(name, ABSENT)
            explanation.add_key(key_path(name), actual, expected, 0, output_at, reference_at)
    explanation.count(counted)
    return {
        "key": key,
        "score": result_score,
        "comment": explanation.comment(),
        "metadata": explanation.metadata(alignment),
    }


def _record_scores(
    outputs: list[dict[str, Any]],
    references: list[dict[str, Any]],
    pairs: list[Pair],
    average_items: bool,
) -> tuple[list[float], list[tuple[int | None, int | None, list[str]]], int]:
    """Each counted item's score, the pairs whose differences will be listed (enough to fill the
    metadata), and how many differences there are past those."""
    item_scores: list[float] = []
    to_explain: list[tuple[int | None, int | None, list[str]]] = []
    listed = counted = 0  # differences in to_explain, differences past them
    differing: list[str]
    for output_index, reference_index in pairs:
        if output_index is None or reference_index is None:
            item_scores.append(0.0)
            differing = []  # an unmatched item: one difference
        else:
            differing, compared = differing_keys(outputs[output_index], references[reference_index])
            if not differing:
                item_scores.append(1.0)
                continue
            item_scores.append((compared - len(differing)) / compared if average_items else 0.0)
        if listed < MAX_METADATA_MISMATCHES:
            to_explain.append((output_index, reference_index, differing))
            listed += len(differing) or 1
        else:
            counted += len(differing) or 1
    return item_scores, to_explain, counted


# ------------------------------------------------------------------------------- nested documents


def score_nested_objects(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> list[EvaluatorResult] | None:
    """``nested=True`` results for two plain objects holding no lists to pair, scored leaf by
    leaf; None when the general walk in ``_leaves`` must decide (a non-empty list on both
    sides, a mapping that is not a dict, very deep documents).

    >>> score_nested_objects({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3}}, "average")[0]
    {'key': 'json_match:average', 'score': 0.5, 'comment': 'a.c: expected 3, got 2', \
'metadata': {'mismatches': [{'path': 'a.c', 'expected': 3, 'actual': 2, 'score': 0}], \
'alignment': None}}
    """
    leaves = _Leaves(list_equal=aggregator is None)
    try:
        count = _compare_leaves(output, reference, "", 0, leaves)
    except (_NotPlain, TypeError, RecursionError):
        return None
    actual_at, expected_at, equal_paths = leaves.actual_at, leaves.expected_at, leaves.equal_paths
    if equal_paths is None:
        differing = sorted(actual_at)
        return [
            _aggregated(
                cast(str, aggregator), count, differing, actual_at.get, expected_at.get, False
            )
        ]
    results: list[EvaluatorResult] = []
    for path in sorted([*equal_paths, *actual_at]):
        if path in actual_at:
            results.append(_failing_result(path, path, actual_at[path], expected_at[path]))
        else:
            result = _PASSING.copy()
            result["key"] = KEY_PREFIX + path
            results.append(result)
    return results


class _NotPlain(Exception):
    """The document needs the general walk (see :func:`score_nested_objects`)."""


class _Leaves:
    """What :func:`_compare_leaves` finds: the differing leaves (both sides, by path) and,
    when ``list_equal``, the paths of the equal ones."""

    __slots__ = ("actual_at", "equal_paths", "expected_at")

    def __init__(self, list_equal: bool) -> None:
        self.actual_at: dict[str, Any] = {}
        self.expected_at: dict[str, Any] = {}
        self.equal_paths: list[str] | None = [] if list_equal else None

    def differ(self, path: str, actual: Any, expected: Any) -> None:
        self.actual_at[path] = actual
        self.expected_at[path] = expected


def _compare_leaves(
    output: dict[str, Any],
    reference: dict[str, Any],
    path: str,
    depth: int,
    leaves: _Leaves,
) -> int:
    """Compare two objects leaf by leaf as ``_leaves.Walk`` does for plain options, recording
    what differs (and what is equal, when listed) in ``leaves``; return the number of leaves."""
    if depth >= MAX_DEPTH - 1:
        raise _NotPlain
    equal_paths = leaves.equal_paths
    count = len(output)  # one leaf per key, corrected below for the objects followed
    extra = 0  # keys of output missing from reference
    reference_get = reference.get
    for key, actual in output.items():
        expected = reference_get(key, ABSENT)
        if actual is not expected or type(actual) not in _LEAF_TYPES:
            kind = type(actual)
            if kind is dict:
                followed = type(expected) is dict and bool(actual or expected)
                if followed or (expected is ABSENT and actual):
                    if expected is ABSENT:
                        extra += 1
                        expected = _EMPTY
                    here = child_path(path, key)
                    count += -1 + _compare_leaves(actual, expected, here, depth + 1, leaves)
                    continue
                if isinstance(expected, Mapping) and type(expected) is not dict:
                    raise _NotPlain
            elif kind is list:
                if type(expected) is list and (actual or expected):
                    raise _NotPlain  # items to pair
            elif kind not in _LEAF_TYPES and isinstance(actual, Mapping):
                raise _NotPlain
            if expected is ABSENT:
                extra += 1
                leaves.differ(child_path(path, key), actual, expected)
                continue
            if actual is not expected and not json_equal(actual, expected):
                leaves.differ(child_path(path, key), actual, expected)
                continue
        if equal_paths is not None:  # equal: the bulk of a document is an unchanged scalar
            equal_paths.append(child_path(path, key))
    if len(output) - extra != len(reference):  # keys of reference missing from output
        count += _missing_leaves(output, reference, path, depth, leaves)
    return count


def _missing_leaves(
    output: dict[str, Any], reference: dict[str, Any], path: str, depth: int, leaves: _Leaves
) -> int:
    """Record the leaves of the reference's keys that ``output`` lacks; return how many."""
    count = 0
    for key, expected in reference.items():
        if key in output:
            continue
        if type(expected) is dict and expected:
            count += _compare_leaves(_EMPTY, expected, child_path(path, key), depth + 1, leaves)
        elif isinstance(expected, Mapping) and type(expected) is not dict:
            raise _NotPlain
        else:
            count += 1
            leaves.differ(child_path(path, key), ABSENT, expected)
    return count
