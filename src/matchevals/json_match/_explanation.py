"""Why a score is below 1: one renderer for a difference and the limits on how many are shown.

Every path (general and fast) explains through here:

- :func:`clause` renders one difference as a comment clause (``age: expected 30, got 20``) and
  :func:`entry` as a ``metadata["mismatches"]`` entry; nothing else formats a difference;
- :class:`Explanation` collects them up to the limits of :mod:`matchevals._limits` (comment
  clauses, metadata entries) and counts the rest (``… and 3 more``, ``mismatches_omitted``),
  never building what it will not show;
- :func:`explain` lists the differences of an :class:`~._evaluation.Evaluation` (all of them,
  or those of one key) into an Explanation.

>>> clause("age", "value", 30, 20, 0), entry("age", "value", 30, 20, 0)
('age: expected 30, got 20', {'path': 'age', 'expected': 30, 'actual': 20, 'score': 0})
"""

from __future__ import annotations

from typing import Any, cast

from matchevals._differences import ABSENT, UNPAIRED_KINDS, Kind, sentence, value_sentence
from matchevals._limits import MAX_COMMENT_CLAUSES, MAX_METADATA_MISMATCHES
from matchevals._path_text import key_path
from matchevals._values import render
from matchevals.json_match._evaluation import Evaluation, ItemScores, sorted_by_key
from matchevals.json_match._types import (
    UNMATCHED_ITEM_KEY,
    VALUE_LIST_KEY,
    Difference,
    Score,
)

_VALUE, _MISSING, _EXTRA = Kind.VALUE, Kind.MISSING, Kind.EXTRA  # looked up once: hot below
_JUDGED, _JUDGE_ERROR, _UNMATCHED_VALUE = Kind.JUDGED, Kind.JUDGE_ERROR, Kind.UNMATCHED_VALUE
_JUDGE_KINDS = frozenset({_JUDGED, _JUDGE_ERROR})
_PLAIN: dict[str, str] = {kind: kind.value for kind in Kind}

__all__ = [
    "Explanation",
    "clause",
    "entry",
    "explain",
    "explain_key",
    "key_difference",
    "listed_metadata",
    "metadata",
    "presence_kind",
    "unmatched_difference",
]


def clause(
    path: Any,
    kind: str,
    expected: Any,
    actual: Any,
    score: Score,
    output_at: str | None = None,
    reference_at: str | None = None,
    reason: str | None = None,
) -> str:
    """One clause of a comment, e.g. ``age: expected 30, got 20`` (see :class:`Difference`)."""
    head = f"{path} ({output_at} vs {reference_at})" if output_at and reference_at else f"{path}"
    if kind == _VALUE:
        text = value_sentence(expected, actual, head)
        if type(score) is float and 0 < score < 1:
            text += f" (partial credit {score:.2f})"
        return text
    if kind in UNPAIRED_KINDS:
        present = output_at or reference_at
        value = actual if output_at else expected
        shown = f" ({render(value)})" if kind == _UNMATCHED_VALUE else ""
        return f"{present}{shown} has no partner in {reason}"
    if kind == _JUDGED:
        return f"{head}: judged not to match: {reason or 'no reason given'}"
    if kind == _JUDGE_ERROR:
        return f"{head}: the judge failed: {reason}"
    return sentence(kind, expected, actual, head)  # missing, extra


def entry(
    path: Any,
    kind: str,
    expected: Any,
    actual: Any,
    score: Score,
    output_at: str | None = None,
    reference_at: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """One ``metadata["mismatches"]`` entry; values are the inputs' own objects, never copied."""
    found: dict[str, Any] = {
        "path": path,
        "expected": None if expected is ABSENT else expected,
        "actual": None if actual is ABSENT else actual,
        "score": score,
    }
    if kind != _VALUE:
        found["kind"] = _PLAIN[kind]
    if output_at or reference_at:
        found["outputs"] = output_at
        found["reference_outputs"] = reference_at
    if reason is not None and kind in _JUDGE_KINDS:
        found["reason"] = reason
    return found


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

    def count(self, differences: int) -> None:
        """Differences that are neither shown nor listed."""
        if differences > 0:
            self.hidden += differences
            self.omitted += differences

    def add(
        self,
        path: Any,
        kind: str,
        expected: Any,
        actual: Any,
        score: Score,
        output_at: str | None = None,
        reference_at: str | None = None,
        reason: str | None = None,
    ) -> None:
        """One difference, given by its parts (see :class:`Difference`)."""
        if len(self.mismatches) >= MAX_METADATA_MISMATCHES:
            self.count(1)
            return
        if len(self.shown) < MAX_COMMENT_CLAUSES:
            self.shown.append(
                clause(path, kind, expected, actual, score, output_at, reference_at, reason)
            )
        else:
            self.hidden += 1
        self.mismatches.append(
            entry(path, kind, expected, actual, score, output_at, reference_at, reason)
        )

    def add_key(
        self,
        path: str,
        actual: Any,
        expected: Any,
        score: Score,
        output_at: str | None = None,
        reference_at: str | None = None,
    ) -> None:
        """One exactly compared key or leaf at ``path`` (``ABSENT`` for a side without it)."""
        kind = _EXTRA if expected is ABSENT else _MISSING if actual is ABSENT else _VALUE
        self.add(path, kind, expected, actual, score, output_at, reference_at)

    def add_difference(self, difference: Difference) -> None:
        path, kind, expected, actual, score, output_at, reference_at, reason, _ = difference
        self.add(path, kind, expected, actual, score, output_at, reference_at, reason)

    def comment(self) -> str:
        if not self.hidden:
            return "; ".join(self.shown)
        return "; ".join([*self.shown, f"… and {self.hidden} more"])

    def metadata(self, alignment: list[list[int | None]] | None) -> dict[str, Any]:
        found: dict[str, Any] = {"mismatches": self.mismatches, "alignment": alignment}
        if self.omitted:
            found["mismatches_omitted"] = self.omitted
        return found


def explain(evaluation: Evaluation, only_key: str | None) -> Explanation:
    """The differences of every item (or only those of ``only_key``), in item and key order.

    Once both the comment and the metadata are full, the remaining items' differences are only
    counted, never built.
    """
    explanation = Explanation()
    for item in evaluation.items:
        if explanation.full and item.leaves is None:
            explanation.count(_count_differences(item, only_key))
        elif item.leaves is not None and not item.unmatched:
            leaves = item.leaves
            found = leaves.differences if only_key is None else leaves.differences_at(only_key)
            for difference in found:
                explanation.add_difference(difference)
        elif item.unmatched:
            if _covers(item, only_key):
                explanation.add_difference(unmatched_difference(item, evaluation.value_list))
        else:
            _explain_keys(explanation, evaluation, item, only_key)
    return explanation


def _covers(item: ItemScores, only_key: str | None) -> bool:
    """Whether an unmatched item counts against ``only_key`` (every key when None)."""
    return (
        only_key is None
        or only_key in item.scores
        or (only_key == UNMATCHED_ITEM_KEY and not item.scores)
    )


def _count_differences(item: ItemScores, only_key: str | None) -> int:
    if item.unmatched:
        return int(_covers(item, only_key))
    if only_key is not None:
        return int(item.scores.get(only_key, 1) != 1)
    return sum(1 for score in item.scores.values() if score != 1)


def _failing_keys(evaluation: Evaluation, item: ItemScores, only_key: str | None) -> list[str]:
    if only_key is None:
        failing = (key for key, score in item.scores.items() if score != 1)
        return sorted_by_key(failing, evaluation)
    return [only_key] if item.scores.get(only_key, 1) != 1 else []


KeyDifference = tuple[Kind, Any, Any, Score, "str | None"]
"""(kind, expected, actual, score, reason) of a key that scored below 1."""


def key_difference(item: ItemScores, key: str, none_is_missing: bool) -> KeyDifference:
    """Why a key of a matched item (compared key by key) scored below 1."""
    score = cast(Score, item.scores[key])
    actual = item.output.get(key, ABSENT)
    expected = item.reference.get(key, ABSENT)
    if none_is_missing:
        actual = ABSENT if actual is None else actual
        expected = ABSENT if expected is None else expected
    if item.judge_errors and key in item.judge_errors:
        return Kind.JUDGE_ERROR, expected, actual, score, item.judge_errors[key]
    if item.judge_reasons and key in item.judge_reasons:
        return Kind.JUDGED, expected, actual, score, item.judge_reasons[key]
    return presence_kind(expected, actual), expected, actual, score, None


def presence_kind(expected: Any, actual: Any) -> Kind:
    """``extra``, ``missing`` or ``value``: which sides hold a value (``ABSENT`` where not)."""
    return _EXTRA if expected is ABSENT else _MISSING if actual is ABSENT else _VALUE


def explain_key(item: ItemScores, key: str, none_is_missing: bool) -> tuple[str, dict[str, Any]]:
    """The comment and metadata of one key of two objects (one difference: no limit applies)."""
    kind, expected, actual, score, reason = key_difference(item, key, none_is_missing)
    path = key_path(key)
    return (
        clause(path, kind, expected, actual, score, None, None, reason),
        {"mismatches": [entry(path, kind, expected, actual, score, None, None, reason)],
         "alignment": None},
    )  # fmt: skip


def _explain_keys(
    explanation: Explanation, evaluation: Evaluation, item: ItemScores, only_key: str | None
) -> None:
    """The failing keys of one matched item, compared key by key."""
    output_at = reference_at = None
    if evaluation.is_list:
        output_at = f"outputs[{item.output_index}]"
        reference_at = f"reference_outputs[{item.reference_index}]"
    none_is_missing = evaluation.options.none_is_missing
    value_list = evaluation.value_list
    for key in _failing_keys(evaluation, item, only_key):
        kind, expected, actual, score, reason = key_difference(item, key, none_is_missing)
        path = key if value_list else key_path(key)
        explanation.add(path, kind, expected, actual, score, output_at, reference_at, reason)


def unmatched_difference(item: ItemScores, value_list: bool) -> Difference:
    """The one difference of a list item without a partner (``value_list``: an item of a
    top-level list of plain values, shown as the value itself)."""
    if value_list:
        output, reference = item.output.get(VALUE_LIST_KEY), item.reference.get(VALUE_LIST_KEY)
        kind, path = Kind.UNMATCHED_VALUE, VALUE_LIST_KEY
    else:
        output, reference, kind, path = item.output, item.reference, Kind.UNMATCHED, None
    if item.reference_index is None:
        return Difference(
            path, kind, reference if path else None, output, 0,
            output_at=f"outputs[{item.output_index}]", reason="reference_outputs",
        )  # fmt: skip
    return Difference(
        path, kind, reference, output if path else None, 0,
        reference_at=f"reference_outputs[{item.reference_index}]", reason="outputs",
    )  # fmt: skip


def metadata(
    evaluation: Evaluation, pairs: list[list[int | None]] | None, only_key: str | None
) -> tuple[str, dict[str, Any]]:
    """The comment and the metadata of a result below 1."""
    explanation = explain(evaluation, only_key)
    found = explanation.metadata(pairs)
    if evaluation.options.nested:
        nested_alignments = [
            alignment
            for item in evaluation.items
            if item.leaves is not None
            for alignment in item.leaves.alignments
        ]
        if nested_alignments:
            found["list_alignments"] = nested_alignments
    return explanation.comment(), found


def listed_metadata(
    differences: list[Difference], list_alignments: list[dict[str, Any]] | None
) -> tuple[str, dict[str, Any]]:
    """Comment and metadata from a known list of differences (a nested document's path)."""
    explanation = Explanation()
    for difference in differences[:MAX_METADATA_MISMATCHES]:
        explanation.add_difference(difference)
    explanation.count(len(differences) - MAX_METADATA_MISMATCHES)
    found = explanation.metadata(None)
    if list_alignments:
        found["list_alignments"] = list_alignments
    return explanation.comment(), found
