"""The hot paths for plain options, and the pieces every path shares.

With no ``rubric``, ``exclude_keys``, ``comparators``, ``extra_keys`` or ``none_is_missing``
option there is nothing to judge and no rule to look up, so two objects are scored straight to
results, with no intermediate objects: :func:`score_objects` (key by key) and
:func:`score_nested_objects` (``nested=True``, leaf by leaf, for documents without lists to
pair). ``_score`` scores lists of objects the same way. Their results are exactly those of the
general path (``prepare`` then ``finish``): ``tests/json_match/test_plain_path.py`` checks this
on random inputs, and anything unusual (non-string keys, lists to pair inside a document, very
deep values) is handed back to the general path, which explains it.

Shared with the general path: :func:`differing_keys` (JSON equality of two objects' values),
:func:`value_difference` (one comment clause and mismatch entry) and :class:`Explanation` (the
limits on both).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from matchevals._evaluator import EvaluatorResult
from matchevals._values import EXACT_TYPES, json_equal, render
from matchevals.json_match._paths import child_path

__all__ = [
    "KEY_PREFIX",
    "MAX_COMMENT_MISMATCHES",
    "MAX_DEPTH",
    "MAX_METADATA_MISMATCHES",
    "MISSING",
    "Explanation",
    "differing_keys",
    "score_nested_objects",
    "score_objects",
    "value_difference",
]

KEY_PREFIX = "json_match:"
"""What every result key starts with: ``json_match:age``, ``json_match:average``."""
MAX_COMMENT_MISMATCHES = 5
MAX_METADATA_MISMATCHES = 25
MAX_DEPTH = 200
"""Deepest nesting of objects and lists that is compared (deeper input is a ValueError)."""

_LEAF_TYPES = EXACT_TYPES | {float}


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""A key absent from one side (or ``null`` with ``none_is_missing=True``)."""


_PASSING: EvaluatorResult = {"key": "", "score": 1, "comment": None, "metadata": None}
"""What a key scored 1 gets; copied, never handed out."""


def score_objects(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> list[EvaluatorResult] | None:
    """Results for two plain objects, or None when the general path must decide.

    >>> score_objects({"a": 1, "b": 2}, {"a": 1, "b": 3}, "average")[0]["score"]
    0.5
    """
    try:
        if aggregator is None:
            if len(output) == len(reference):  # most likely the same keys: no set to build
                results = _per_key(output, reference, sorted(output), True)
                if results is not None:
                    return results
            keys = output.keys() | reference.keys()
            padded_output = dict.fromkeys(keys, MISSING)
            padded_output.update(output)
            return _per_key(padded_output, reference, sorted(keys))
        differing, compared = differing_keys(output, reference)
        differing.sort()
        return [_aggregated(aggregator, compared, differing, output.get, reference.get)]
    except (TypeError, RecursionError):  # non-string keys, exotic or very deep values
        return None


def score_nested_objects(
    output: dict[str, Any], reference: dict[str, Any], aggregator: str | None
) -> list[EvaluatorResult] | None:
    """``nested=True`` results for two plain objects holding no lists to pair, scored leaf by
    leaf; None when the general walk in ``_nested`` must decide (a non-empty list on both
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
            _aggregated(cast(str, aggregator), count, differing, actual_at.get, expected_at.get)
        ]
    results: list[EvaluatorResult] = []
    for path in sorted([*equal_paths, *actual_at]):
        if path in actual_at:
            results.append(_failing_result(path, actual_at[path], expected_at[path]))
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


_EMPTY: dict[str, Any] = {}


def _compare_leaves(
    output: dict[str, Any],
    reference: dict[str, Any],
    path: str,
    depth: int,
    leaves: _Leaves,
) -> int:
    """Compare two objects leaf by leaf as ``_nested.Walk`` does for plain options, recording
    what differs (and what is equal, when listed) in ``leaves``; return the number of leaves."""
    if depth >= MAX_DEPTH - 1:
        raise _NotPlain
    equal_paths = leaves.equal_paths
    count = len(output)  # one leaf per key, corrected below for the objects followed
    extra = 0  # keys of output missing from reference
    reference_get = reference.get
    for key, actual in output.items():
        expected = reference_get(key, MISSING)
        kind = type(actual)
        if kind in _LEAF_TYPES:
            if actual is expected:  # the bulk of a document: an unchanged scalar
                if equal_paths is not None:
                    equal_paths.append(child_path(path, key))
                continue
        elif kind is dict:
            followed = type(expected) is dict and bool(actual or expected)
            if followed or (expected is MISSING and actual):
                if expected is MISSING:
                    extra += 1
                    expected = _EMPTY
                count += -1 + _compare_leaves(
                    actual, expected, child_path(path, key), depth + 1, leaves
                )
                continue
            if isinstance(expected, Mapping) and type(expected) is not dict:
                raise _NotPlain
        elif kind is list:
            if type(expected) is list and (actual or expected):
                raise _NotPlain  # items to pair
        elif isinstance(actual, Mapping):
            raise _NotPlain
        if expected is MISSING:
            extra += 1
            equal = False
        elif actual is expected:
            equal = True
        elif kind is type(expected) and kind in EXACT_TYPES:
            equal = actual == expected
        else:
            equal = json_equal(actual, expected)
        if not equal:
            leaves.differ(child_path(path, key), actual, expected)
        elif equal_paths is not None:
            equal_paths.append(child_path(path, key))
    if len(output) - extra != len(reference):  # keys of reference missing from output
        for key, expected in reference.items():
            if key in output:
                continue
            if type(expected) is dict and expected:
                count += _compare_leaves(_EMPTY, expected, child_path(path, key), depth + 1, leaves)
            elif isinstance(expected, Mapping) and type(expected) is not dict:
                raise _NotPlain
            else:
                count += 1
                leaves.differ(child_path(path, key), MISSING, expected)
    return count


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
        expected = reference_get(key, MISSING)
        if actual is expected:
            continue
        kind = type(actual)
        if kind is type(expected):  # the common cases, decided here without a call
            if kind in EXACT_TYPES:
                if actual != expected:
                    differing.append(key)
                continue
            if kind is float:
                if actual != expected and (actual == actual or expected == expected):  # NaN
                    differing.append(key)
                continue
        if expected is MISSING:
            extra += 1
            differing.append(key)
        elif not json_equal(actual, expected):
            differing.append(key)
    if len(output) - extra != len(reference):  # keys missing from output
        differing.extend(key for key in reference if key not in output)
    return differing, len(reference) + extra


def _per_key(
    output: dict[str, Any], reference: dict[str, Any], keys: list[str], tentative: bool = False
) -> list[EvaluatorResult] | None:
    """One result per key of ``keys`` (sorted; all in ``output``, ``MISSING`` where absent),
    or None when ``tentative`` and some key is not in ``reference``."""
    results: list[EvaluatorResult] = []
    append = results.append
    reference_get = reference.get
    new_passing = _PASSING.copy  # a copy and one store cost less than a 4-key dict display
    prefix, missing = KEY_PREFIX, MISSING
    for key in keys:
        actual, expected = output[key], reference_get(key, missing)
        if actual is not expected:  # the tests of differing_keys, inlined in this hot loop
            if type(actual) is type(expected) and type(actual) in EXACT_TYPES:
                equal = actual == expected
            elif actual is missing or expected is missing:
                if tentative:
                    return None
                equal = False
            else:
                equal = json_equal(actual, expected)
            if not equal:
                append(_failing_result(key, actual, expected))
                continue
        result = new_passing()
        result["key"] = prefix + key
        append(result)
    return results


def _failing_result(key: str, actual: Any, expected: Any) -> EvaluatorResult:
    if actual is MISSING or expected is MISSING:
        comment, mismatch = value_difference(key, actual, expected, 0)
    else:  # value_difference's common case, without its options: a hot path of aggregator None
        comment = _expected_got(key, expected, actual)
        mismatch = {"path": key, "expected": expected, "actual": actual, "score": 0}
    return {
        "key": KEY_PREFIX + key,
        "score": 0,
        "comment": comment,
        "metadata": {"mismatches": [mismatch], "alignment": None},
    }


def _aggregated(
    aggregator: str,
    count: int,
    differing: list[str],
    actual_of: Callable[[str, Any], Any],
    expected_of: Callable[[str, Any], Any],
) -> EvaluatorResult:
    """The one result of ``aggregator`` over ``count`` keys, of which the sorted ``differing``
    are not equal; ``actual_of`` and ``expected_of`` are the ``get`` of both sides."""
    count_differing = len(differing)
    score: float | int
    if aggregator == "average":
        score = (count - count_differing) / count if count else 1.0
    else:
        score = 0 if differing else 1
    if not differing:
        return {"key": KEY_PREFIX + aggregator, "score": score, "comment": None, "metadata": None}
    # What Explanation does, inlined: this is the hottest path of an aggregated evaluator.
    shown: list[str] = []
    mismatches: list[dict[str, Any]] = []
    for key in differing[:MAX_METADATA_MISMATCHES]:
        with_text = len(shown) < MAX_COMMENT_MISMATCHES
        text, mismatch = value_difference(
            key, actual_of(key, MISSING), expected_of(key, MISSING), 0, None, None, with_text
        )
        mismatches.append(mismatch)
        if with_text:
            shown.append(text)
    if count_differing > MAX_COMMENT_MISMATCHES:
        shown.append(f"… and {count_differing - MAX_COMMENT_MISMATCHES} more")
    metadata: dict[str, Any] = {"mismatches": mismatches, "alignment": None}
    if count_differing > MAX_METADATA_MISMATCHES:
        metadata["mismatches_omitted"] = count_differing - MAX_METADATA_MISMATCHES
    return {
        "key": KEY_PREFIX + aggregator,
        "score": score,
        "comment": "; ".join(shown),
        "metadata": metadata,
    }


class Explanation:
    """The clauses of a comment and the entries of ``metadata["mismatches"]``, each up to its
    limit; differences past the limits are counted (``… and 3 more``, ``mismatches_omitted``).

    >>> explanation = Explanation()
    >>> explanation.add_key("age", 20, 30, 0)
    >>> explanation.count(2)
    >>> explanation.comment()
    'age: expected 30, got 20; … and 2 more'
    """

    __slots__ = ("hidden", "mismatches", "omitted", "shown")

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.mismatches: list[dict[str, Any]] = []
        self.hidden = 0  # differences not in the comment
        self.omitted = 0  # differences not in the mismatches

    @property
    def full(self) -> bool:
        """No room left in the mismatches (nor, then, in the comment)."""
        return len(self.mismatches) >= MAX_METADATA_MISMATCHES

    @property
    def wants_text(self) -> bool:
        return len(self.shown) < MAX_COMMENT_MISMATCHES

    def count(self, differences: int) -> None:
        """Differences that are neither shown nor listed."""
        if differences > 0:
            self.hidden += differences
            self.omitted += differences

    def add_key(
        self,
        key: str,
        actual: Any,
        expected: Any,
        score: int | float,
        output_at: str | None = None,
        reference_at: str | None = None,
    ) -> None:
        """One exactly compared key (see :func:`value_difference`)."""
        if self.full:
            self.count(1)
            return
        with_text = self.wants_text
        text, mismatch = value_difference(
            key, actual, expected, score, output_at, reference_at, with_text
        )
        self.add(text if with_text else None, mismatch)

    def add(self, text: str | None, mismatch: dict[str, Any] | None) -> None:
        """One difference, built by the caller: ``text`` only if :attr:`wants_text`,
        ``mismatch`` only if not :attr:`full` (None for what is not wanted)."""
        if text is None:
            self.hidden += 1
        else:
            self.shown.append(text)
        if mismatch is None:
            self.omitted += 1
        else:
            self.mismatches.append(mismatch)

    def comment(self) -> str:
        if not self.hidden:
            return "; ".join(self.shown)
        return "; ".join([*self.shown, f"… and {self.hidden} more"])

    def metadata(self, alignment: list[list[int | None]] | None) -> dict[str, Any]:
        metadata: dict[str, Any] = {"mismatches": self.mismatches, "alignment": alignment}
        if self.omitted:
            metadata["mismatches_omitted"] = self.omitted
        return metadata


def value_difference(
    key: str,
    actual: Any,
    expected: Any,
    score: int | float,
    output_at: str | None = None,
    reference_at: str | None = None,
    with_text: bool = True,
) -> tuple[str, dict[str, Any]]:
    """The comment clause and the ``metadata["mismatches"]`` entry of one exactly compared key
    (``MISSING`` for a side without the key).

    >>> value_difference("age", 20, 30, 0)
    ('age: expected 30, got 20', {'path': 'age', 'expected': 30, 'actual': 20, 'score': 0})
    """
    where = f" ({output_at} vs {reference_at})" if output_at else ""
    text = ""
    if expected is MISSING:
        if with_text:
            text = f"{key}{where}: not in reference_outputs, got {render(actual)}"
        mismatch = {
            "path": key, "expected": None, "actual": actual, "score": score, "kind": "extra"
        }  # fmt: skip
    elif actual is MISSING:
        if with_text:
            text = f"{key}{where}: missing from outputs, expected {render(expected)}"
        mismatch = {
            "path": key, "expected": expected, "actual": None, "score": score, "kind": "missing"
        }  # fmt: skip
    else:
        if with_text:
            text = _expected_got(f"{key}{where}" if where else key, expected, actual)
            if type(score) is float and 0 < score < 1:
                text += f" (partial credit {score:.2f})"
        mismatch = {"path": key, "expected": expected, "actual": actual, "score": score}
    if output_at:
        mismatch["outputs"] = output_at
        mismatch["reference_outputs"] = reference_at
    return text, mismatch


def _expected_got(subject: str, expected: Any, actual: Any) -> str:
    return f"{subject}: expected {render(expected)}, got {render(actual)}"
