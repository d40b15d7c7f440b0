"""The hot path: two JSON objects scored with plain options, straight to results.

With no ``rubric``, ``exclude_keys``, ``comparators``, ``nested``, ``extra_keys`` or
``none_is_missing`` option there is nothing to pair and nothing to judge, so the scores, the
aggregation and the explanation of an object against an object are computed in one pass, with
no intermediate objects. The results are exactly those of the general path in ``_score``
(``prepare`` then ``finish``); ``tests/json_match/test_plain_path.py`` checks this on random
documents, and anything unusual (non-string keys, very deep values) is handed back to the
general path, which explains it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matchevals._evaluator import EvaluatorResult
from matchevals._values import json_equal, render

__all__ = [
    "MAX_COMMENT_MISMATCHES",
    "MAX_METADATA_MISMATCHES",
    "differing_keys",
    "plain_difference",
    "score_objects",
]

KEY_PREFIX = "json_match:"
MAX_COMMENT_MISMATCHES = 5
MAX_METADATA_MISMATCHES = 25

_EXACT_TYPES = frozenset({str, int, bool, type(None)})
"""Types for which ``==`` between two values of the same type is JSON equality."""


class _Absent:
    __slots__ = ()


_ABSENT: Any = _Absent()


def score_objects(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> list[EvaluatorResult] | None:
    """Results for two plain objects, or None when the general path must decide.

    >>> score_objects({"a": 1, "b": 2}, {"a": 1, "b": 3}, "average")[0]["score"]
    0.5
    """
    try:
        if aggregator is None:
            same_keys = output.keys() == reference.keys()
            keys = output.keys() if same_keys else output.keys() | reference.keys()
            return _per_key(output, reference, sorted(keys))
        differing, compared = differing_keys(output, reference)
        return [_aggregated(output, reference, aggregator, compared, differing)]
    except (TypeError, RecursionError):  # non-string keys, exotic or very deep values
        return None


def differing_keys(
    output: Mapping[str, Any], reference: Mapping[str, Any]
) -> tuple[list[str], int]:
    """The keys whose values differ as JSON values or are on one side only (unordered), and
    the number of keys compared (the keys of both).

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
        if kind is type(expected):  # the common cases, decided here without a call
            if kind in _EXACT_TYPES:
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


def _per_key(
    output: dict[str, Any], reference: dict[str, Any], keys: list[str]
) -> list[EvaluatorResult]:
    results: list[EvaluatorResult] = []
    append = results.append
    output_get, reference_get = output.get, reference.get
    for key in keys:
        actual, expected = output_get(key, _ABSENT), reference_get(key, _ABSENT)
        if actual is expected:  # the tests of differing_keys, inlined in this hot loop
            equal = True
        elif type(actual) is type(expected) and type(actual) in _EXACT_TYPES:
            equal = actual == expected
        else:
            equal = (
                actual is not _ABSENT and expected is not _ABSENT and json_equal(actual, expected)
            )
        if equal:
            append({"key": KEY_PREFIX + key, "score": 1, "comment": None, "metadata": None})
        else:
            comment, mismatch = value_difference(key, actual, expected, 0)
            append(
                {
                    "key": KEY_PREFIX + key,
                    "score": 0,
                    "comment": comment,
                    "metadata": {"mismatches": [mismatch], "alignment": None},
                }
            )
    return results


def _aggregated(
    output: dict[str, Any],
    reference: dict[str, Any],
    aggregator: str,
    count: int,
    differing: list[str],
) -> EvaluatorResult:
    score: float | int
    if aggregator == "average":
        score = (count - len(differing)) / count if count else 1.0
    else:
        score = 0 if differing else 1
    if not differing:
        return {"key": KEY_PREFIX + aggregator, "score": score, "comment": None, "metadata": None}
    differing.sort()
    output_get, reference_get = output.get, reference.get
    shown: list[str] = []
    mismatches: list[dict[str, Any]] = []
    for key in differing[:MAX_METADATA_MISMATCHES]:
        with_text = len(shown) < MAX_COMMENT_MISMATCHES
        text, mismatch = value_difference(
            key, output_get(key, _ABSENT), reference_get(key, _ABSENT), 0, None, None, with_text
        )
        mismatches.append(mismatch)
        if with_text:
            shown.append(text)
    if len(differing) > MAX_COMMENT_MISMATCHES:
        shown.append(f"… and {len(differing) - MAX_COMMENT_MISMATCHES} more")
    metadata: dict[str, Any] = {"mismatches": mismatches, "alignment": None}
    if len(differing) > MAX_METADATA_MISMATCHES:
        metadata["mismatches_omitted"] = len(differing) - MAX_METADATA_MISMATCHES
    return {
        "key": KEY_PREFIX + aggregator,
        "score": score,
        "comment": "; ".join(shown),
        "metadata": metadata,
    }


def plain_difference(
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    key: str,
    score: int | float,
    output_at: str | None = None,
    reference_at: str | None = None,
    with_text: bool = True,
) -> tuple[str, dict[str, Any]]:
    """The comment clause and the ``metadata["mismatches"]`` entry of one exactly compared key.

    >>> plain_difference({"age": 20}, {"age": 30}, "age", 0)
    ('age: expected 30, got 20', {'path': 'age', 'expected': 30, 'actual': 20, 'score': 0})
    """
    return value_difference(
        key,
        output.get(key, _ABSENT),
        reference.get(key, _ABSENT),
        score,
        output_at,
        reference_at,
        with_text,
    )


def value_difference(
    key: str,
    actual: Any,
    expected: Any,
    score: int | float,
    output_at: str | None = None,
    reference_at: str | None = None,
    with_text: bool = True,
) -> tuple[str, dict[str, Any]]:
    """:func:`plain_difference` of the values themselves (``_ABSENT`` for a missing key)."""
    where = f" ({output_at} vs {reference_at})" if output_at else ""
    text = ""
    if expected is _ABSENT:
        if with_text:
            text = f"{key}{where}: not in reference_outputs, got {render(actual)}"
        mismatch = {
            "path": key, "expected": None, "actual": actual, "score": score, "kind": "extra"
        }  # fmt: skip
    elif actual is _ABSENT:
        if with_text:
            text = f"{key}{where}: missing from outputs, expected {render(expected)}"
        mismatch = {
            "path": key, "expected": expected, "actual": None, "score": score, "kind": "missing"
        }  # fmt: skip
    else:
        if with_text:
            text = f"{key}{where}: expected {render(expected)}, got {render(actual)}"
            if type(score) is float and 0 < score < 1:
                text += f" (partial credit {score:.2f})"
        mismatch = {"path": key, "expected": expected, "actual": actual, "score": score}
    if output_at:
        mismatch["outputs"] = output_at
        mismatch["reference_outputs"] = reference_at
    return text, mismatch
