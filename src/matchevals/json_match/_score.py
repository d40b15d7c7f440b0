"""Scoring JSON outputs against references: per-key scores, aggregation, comments, metadata.

Two pure steps frame the judge call made by the evaluator edges:

1. :func:`prepare` normalizes and validates the inputs, pairs list items and scores every key
   that needs no judge; keys in the rubric are left pending as :class:`JudgeRequest` objects.
2. :func:`finish` takes the judge's verdicts for those requests and aggregates everything into
   openevals-shaped ``EvaluatorResult`` dicts.

How scores aggregate:

- Objects: one score per key (``nested=True``: per leaf path), ``aggregator`` combines them
  (mean, or 1 only when all are 1); with ``aggregator=None`` there is one result per key.
- Lists of objects: items are paired (``list_match_mode``), each counted item gets the
  aggregator's score over its keys (an unmatched item 0), and ``list_aggregator`` combines the
  items; with ``aggregator=None`` each key's result is ``list_aggregator`` over its scores in
  every counted item.
- Lists of plain values are lists of one-key items keyed ``[]`` (in ``nested`` mode: keyed by
  the list's path), compared as multisets in set modes and by index in ordered mode.
- ``nested=True``: a path inside lists (``items[*].price``) is scored once per occurrence; its
  score in a document is ``list_aggregator`` over its occurrences there, and with
  ``aggregator=None`` over its occurrences in every counted item. See :mod:`._nested`.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from matchevals._evaluator import EvaluatorResult
from matchevals._values import describe_type, json_equal, render
from matchevals.json_match._align import Pair, align_items, checked_score
from matchevals.json_match._inputs import to_json_value
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._paths import NO_RULE, Rule
from matchevals.json_match._plain import (
    KEY_PREFIX,
    MAX_DEPTH,
    MAX_METADATA_MISMATCHES,
    MISSING,
    Explanation,
    differing_keys,
    score_nested_objects,
    score_objects,
    value_difference,
)

if TYPE_CHECKING:
    from matchevals.json_match._nested import Walk

__all__ = [
    "UNMATCHED_ITEM_KEY",
    "Difference",
    "Evaluation",
    "JudgeRequest",
    "JudgeVerdict",
    "finish",
    "prepare",
    "score_without_judge",
]

UNMATCHED_ITEM_KEY = "<unmatched item>"
"""Reported key (aggregator None) of an unmatched list item that has no keys of its own to score."""
VALUE_LIST_KEY = "[]"
"""Reported key of a top-level list of plain values; its items' path is ``[*]``."""

Score = int | float | bool


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


@dataclass(slots=True)
class ItemScores:
    """The scores of one counted list item (or of the single object when inputs are objects)."""

    output_index: int | None
    reference_index: int | None
    output: Mapping[str, Any]
    reference: Mapping[str, Any]
    scores: dict[str, Score | None]  # None until the judge answers
    pending: dict[str, str]  # key -> judge request id
    judge_reasons: dict[str, str | None] | None = None  # why the judge rejected a key
    judge_errors: dict[str, str] | None = None  # on_judge_error="zero": why the judge failed
    walk: Walk | None = None  # nested=True: leaf scores, occurrences and differences

    @property
    def unmatched(self) -> bool:
        return self.output_index is None or self.reference_index is None


@dataclass(slots=True)
class Evaluation:
    """Everything known before the judge is asked."""

    options: JsonMatchOptions
    is_list: bool
    items: list[ItemScores]
    pairs: list[Pair] | None
    judge_requests: list[JudgeRequest]
    value_list: bool = False


def score_without_judge(
    outputs: Any, reference_outputs: Any, options: JsonMatchOptions
) -> list[EvaluatorResult]:
    """``finish(prepare(...))`` for options without rubric keys, by the hot path when it applies.

    >>> from matchevals.json_match._options import JsonMatchOptions
    >>> score_without_judge({"a": 1}, {"a": 2}, JsonMatchOptions(aggregator="all"))[0]["score"]
    0
    """
    if options.plain:
        if type(outputs) is dict and type(reference_outputs) is dict:
            score = score_nested_objects if options.nested else score_objects
            results = score(outputs, reference_outputs, options.aggregator)
            if results is not None:
                return results
        elif (
            not options.nested
            and options.aggregator is not None
            and type(outputs) is list
            and type(reference_outputs) is list
            and _ONLY_DICTS.issuperset(map(type, outputs))
            and _ONLY_DICTS.issuperset(map(type, reference_outputs))
        ):
            result = _score_records(outputs, reference_outputs, options)
            if result is not None:
                return [result]
    return finish(prepare(outputs, reference_outputs, options))


_ONLY_DICTS = frozenset({dict})


def _score_records(
    outputs: list[dict[str, Any]], references: list[dict[str, Any]], options: JsonMatchOptions
) -> EvaluatorResult | None:
    """The aggregated result for lists of plain objects, scored without per-item objects: the
    hot path of :func:`_aggregated_result` and :func:`_explain` (None: the general path decides).
    """
    try:
        pairs = align_with_options(outputs, references, options, (frozenset(), frozenset(), None))
        average_items = options.aggregator == "average"
        item_scores: list[float] = []
        to_explain: list[tuple[int | None, int | None, list[str]]] = []  # the first differences
        listed = counted = 0  # differences in to_explain, differences past them
        differing: list[str]
        for output_index, reference_index in pairs:
            if output_index is None or reference_index is None:
                item_scores.append(0.0)
                differing, compared = [], 0  # an unmatched item: one difference
            else:
                differing, compared = differing_keys(
                    outputs[output_index], references[reference_index]
                )
                if not differing:
                    item_scores.append(1.0)
                    continue
                item_scores.append((compared - len(differing)) / compared if average_items else 0.0)
            if listed < MAX_METADATA_MISMATCHES:
                to_explain.append((output_index, reference_index, differing))
                listed += len(differing) or 1
            else:
                counted += len(differing) or 1
    except (TypeError, RecursionError):  # non-string keys, exotic or very deep values
        return None
    score: Score
    if options.list_aggregator == "average":
        score = math.fsum(item_scores) / len(item_scores) if item_scores else 1.0
    else:
        score = int(min(item_scores, default=1.0) == 1)
    result_key = f"{KEY_PREFIX}{options.aggregator}"
    alignment = [[o, r] for o, r in pairs]
    if score == 1:
        metadata: dict[str, Any] = {"alignment": alignment}
        return {"key": result_key, "score": score, "comment": None, "metadata": metadata}
    explanation = Explanation()
    for output_index, reference_index, differing in to_explain:
        output = _EMPTY if output_index is None else outputs[output_index]
        reference = _EMPTY if reference_index is None else references[reference_index]
        if not differing:  # an unmatched item
            unmatched = ItemScores(output_index, reference_index, output, reference, {}, {})
            _add_difference(explanation, _unmatched_difference(unmatched))
            continue
        output_at = f"outputs[{output_index}]"
        reference_at = f"reference_outputs[{reference_index}]"
        for key in sorted(differing):
            actual, expected = output.get(key, MISSING), reference.get(key, MISSING)
            explanation.add_key(key, actual, expected, 0, output_at, reference_at)
    explanation.count(counted)
    return {
        "key": result_key,
        "score": score,
        "comment": explanation.comment(),
        "metadata": explanation.metadata(alignment),
    }


def prepare(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Evaluation:
    """Validate, pair and score everything that needs no judge.

    >>> from matchevals.json_match._options import JsonMatchOptions
    >>> prepare({"a": 1}, {"a": 2}, JsonMatchOptions()).items[0].scores
    {'a': 0}
    """
    if type(outputs) is not dict or type(reference_outputs) is not dict:
        outputs = to_json_value(outputs, "outputs")
        reference_outputs = to_json_value(reference_outputs, "reference_outputs")
    try:
        return _prepare(outputs, reference_outputs, options)
    except RecursionError:
        raise ValueError(
            f"outputs or reference_outputs are nested too deeply to compare "
            f"(more than about {MAX_DEPTH} levels)"
        ) from None


def _prepare(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Evaluation:
    kind = _check_inputs(outputs, reference_outputs)
    if kind == "values":
        outputs = [{VALUE_LIST_KEY: value} for value in outputs]
        reference_outputs = [{VALUE_LIST_KEY: value} for value in reference_outputs]
    if options.nested and kind != "values":
        from matchevals.json_match._nested import prepare_nested

        items, pairs, requests = prepare_nested(outputs, reference_outputs, options)
        return Evaluation(options, kind != "object", items, pairs, requests)
    if kind == "object":
        item = _score_pair(outputs, reference_outputs, 0, 0, options, "", False)
        return Evaluation(options, False, [item], None, _requests_of([item], options, False))
    value_list = kind == "values"
    ignored, judged, comparators = _key_rules(outputs, reference_outputs, options, value_list)
    pairs = align_with_options(
        outputs,
        reference_outputs,
        options,
        (ignored, judged, comparators),
        key_prefix=VALUE_LIST_KEY if value_list else "",
    )
    items = [
        _score_pair(
            _EMPTY if o is None else outputs[o],
            _EMPTY if r is None else reference_outputs[r],
            o,
            r,
            options,
            f"_{position}",
            value_list,
        )
        for position, (o, r) in enumerate(pairs)
    ]
    return Evaluation(
        options, True, items, pairs, _requests_of(items, options, value_list), value_list
    )


_EMPTY: Mapping[str, Any] = {}


def align_with_options(
    outputs: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    options: JsonMatchOptions,
    key_rules: tuple[frozenset[str], frozenset[str], Mapping[str, Any] | None],
    key_prefix: str = "",
) -> list[Pair]:
    """Pair list items as the evaluator's options say; ``key_rules`` is (excluded keys, judged
    keys, comparators by key) for these items."""
    ignored, judged, comparators = key_rules
    return align_items(
        outputs,
        references,
        mode=options.list_match_mode,
        alignment=options.alignment,
        all_or_nothing=options.aggregator == "all",
        ignored_keys=ignored,
        judged_keys=judged,
        comparators=comparators,
        none_is_missing=options.none_is_missing,
        extra_ignored=options.extra_keys == "ignore",
        key_prefix=key_prefix,
    )


def _rule(options: JsonMatchOptions, key: str, value_list: bool) -> Rule:
    rules = options.rules
    if rules is None:
        return NO_RULE
    return rules.at("[*]" if value_list and key == VALUE_LIST_KEY else key)


def _key_rules(
    outputs: list[Any], references: list[Any], options: JsonMatchOptions, value_list: bool
) -> tuple[frozenset[str], frozenset[str], dict[str, Any] | None]:
    """Excluded keys, judged keys and comparators by key, for pairing the items of two lists."""
    rules = options.rules
    if rules is None:
        return options.exclude_keys, options.judged_keys, None
    if not rules.has_globs and not value_list:
        comparators = dict(options.comparators) or None
        return options.exclude_keys, options.judged_keys, comparators
    keys = {key for item in (*outputs, *references) for key in item}
    ignored, judged, by_key = set(), set(), {}
    for key in keys:
        rule = _rule(options, key, value_list)
        if rule.excluded:
            ignored.add(key)
        elif rule.criteria is not None:
            judged.add(key)
        elif rule.comparator is not None:
            by_key[key] = rule.comparator
    return frozenset(ignored), frozenset(judged), by_key or None


def _check_inputs(outputs: Any, reference_outputs: Any) -> str:
    """``object``, ``records`` or ``values`` (lists of plain values); TypeError naming the fault."""
    if type(outputs) is dict and type(reference_outputs) is dict:
        return "object"
    for name, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        if not isinstance(value, (Mapping, list)):
            raise TypeError(
                f"{name} is a {describe_type(value)}, expected an object or a list of objects"
            )
    if isinstance(outputs, list) != isinstance(reference_outputs, list):
        kinds = [
            "a list" if isinstance(v, list) else "an object" for v in (outputs, reference_outputs)
        ]
        raise TypeError(
            f"outputs is {kinds[0]} but reference_outputs is {kinds[1]}; "
            "pass two objects or two lists of objects"
        )
    if not isinstance(outputs, list):
        return "object"
    first: Any = next(iter(outputs), next(iter(reference_outputs), {}))
    want_objects = isinstance(first, Mapping)
    for name, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        for index, item in enumerate(value):
            if isinstance(item, Mapping) != want_objects:
                if want_objects:
                    raise TypeError(
                        f"{name}[{index}] is a {describe_type(item)}, expected an object"
                    )
                raise TypeError(
                    f"{name}[{index}] is an object, expected a plain value: a list holds either "
                    "objects or plain values (strings, numbers, booleans, null, lists)"
                )
    return "records" if want_objects else "values"


def _score_pair(
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    output_index: int | None,
    reference_index: int | None,
    options: JsonMatchOptions,
    id_suffix: str,
    value_list: bool,
) -> ItemScores:
    """Score every key of one pair: 1 if equal, 0 if different or present on one side only.

    Keys absent from both items are not scored; judged keys present on both sides stay pending
    (or score 1 without a call when equal and ``judge_identical`` is False); comparator keys
    score what their comparator returns.
    """
    pending: dict[str, str] = {}
    if options.plain:  # the common case, kept lean
        differing, compared = differing_keys(output, reference)
        scores: dict[str, Score | None] = dict.fromkeys(output, 1)
        if compared != len(output):
            scores.update(dict.fromkeys(reference, 1))
        scores.update(dict.fromkeys(differing, 0))
        return ItemScores(output_index, reference_index, output, reference, scores, pending)
    if options.exact_rules:  # only exact exclude_keys / rubric keys: set lookups suffice
        ignored, judged = options.exclude_keys, options.judged_keys
        scores = {}
        for key, actual in output.items():
            if key in ignored:
                continue
            if key not in reference:
                scores[key] = 0
            elif key in judged:
                if not options.judge_identical and json_equal(actual, reference[key]):
                    scores[key] = True
                else:
                    scores[key] = None
                    pending[key] = _request_id(key) + id_suffix
            else:
                scores[key] = int(json_equal(actual, reference[key]))
        for key in reference:
            if key not in output and key not in ignored:
                scores[key] = 0
        return ItemScores(output_index, reference_index, output, reference, scores, pending)
    scores = {}
    none_is_missing = options.none_is_missing
    ignore_extra = options.extra_keys == "ignore"
    for key in itertools.chain(output, [key for key in reference if key not in output]):
        rule = _rule(options, key, value_list)
        if rule.excluded:
            continue
        actual = output.get(key, MISSING)
        expected = reference.get(key, MISSING)
        if none_is_missing:
            actual = MISSING if actual is None else actual
            expected = MISSING if expected is None else expected
        if actual is MISSING:
            if expected is not MISSING:
                scores[key] = 0
        elif expected is MISSING:
            if not ignore_extra:
                scores[key] = 0
        elif rule.criteria is not None:
            if not options.judge_identical and json_equal(actual, expected):
                scores[key] = True
            else:
                scores[key] = None
                pending[key] = _request_id(key) + id_suffix
        elif json_equal(actual, expected):
            scores[key] = 1
        elif rule.comparator is not None:
            scores[key] = checked_score(
                rule.comparator,
                actual,
                expected,
                "[*]" if value_list and key == VALUE_LIST_KEY else key,
                partial(
                    _pair_location, output_index, reference_index, key, value_list, bool(id_suffix)
                ),
            )
        else:
            scores[key] = 0
    return ItemScores(output_index, reference_index, output, reference, scores, pending)


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _request_id(key: str) -> str:
    """A judge answer field for a key: the key itself when it is a safe name, else a safe
    spelling made unique by a checksum (``"[]"`` -> ``"value_5d9b6c2c"``)."""
    if not _UNSAFE.search(key):
        return key
    return f"{_UNSAFE.sub('_', key).strip('_') or 'value'}_{zlib.crc32(key.encode()):08x}"


def _pair_location(
    output_index: int | None,
    reference_index: int | None,
    key: str,
    value_list: bool,
    is_list: bool,
) -> str:
    suffix = "" if value_list else f".{key}"
    if not is_list:
        return f"outputs{suffix} vs reference_outputs{suffix}"
    return f"outputs[{output_index}]{suffix} vs reference_outputs[{reference_index}]{suffix}"


def _requests_of(
    items: list[ItemScores], options: JsonMatchOptions, value_list: bool
) -> list[JudgeRequest]:
    if not options.judged_keys:
        return []
    return [
        JudgeRequest(
            request_id,
            key,
            cast(str, _rule(options, key, value_list).criteria),
            item.output[key],
            item.reference[key],
        )
        for item in items
        for key, request_id in item.pending.items()
    ]


def finish(
    evaluation: Evaluation, verdicts: Mapping[str, JudgeVerdict] | None = None
) -> list[EvaluatorResult]:
    """Fill in the judge's verdicts and aggregate into openevals-shaped results."""
    options = evaluation.options
    reasonings: dict[str, list[str]] = {}
    for item in evaluation.items:
        if item.walk is not None:
            item.scores = item.walk.resolve(verdicts or {}, reasonings)
            continue
        for key, request_id in item.pending.items():
            verdict = (verdicts or {})[request_id]
            item.scores[key] = verdict.score
            if verdict.error is not None:
                item.judge_errors = item.judge_errors or {}
                item.judge_errors[key] = verdict.error
                continue
            if verdict.reasoning and options.use_reasoning:
                reasonings.setdefault(key, []).append(verdict.reasoning)
            if not verdict.score:
                item.judge_reasons = item.judge_reasons or {}
                item.judge_reasons[key] = verdict.reasoning
    pairs = [[o, r] for o, r in evaluation.pairs] if evaluation.pairs is not None else None
    if options.aggregator is None:
        return _per_key_results(evaluation, reasonings, pairs)
    return [_aggregated_result(evaluation, pairs)]


def _metadata(
    evaluation: Evaluation, pairs: list[list[int | None]] | None, only_key: str | None
) -> tuple[str, dict[str, Any]]:
    """The comment and the metadata of a result below 1."""
    comment, mismatches, omitted = _explain(evaluation, only_key)
    metadata: dict[str, Any] = {"mismatches": mismatches, "alignment": pairs}
    if omitted:
        metadata["mismatches_omitted"] = omitted
    if evaluation.options.nested:
        nested_alignments = [
            alignment
            for item in evaluation.items
            if item.walk is not None
            for alignment in item.walk.alignments
        ]
        if nested_alignments:
            metadata["list_alignments"] = nested_alignments
    return comment, metadata


def _listed_metadata(
    differences: list[Difference], list_alignments: list[dict[str, Any]] | None
) -> tuple[str, dict[str, Any]]:
    """Comment and metadata from a known list of differences (a nested document's path)."""
    explanation = Explanation()
    for difference in differences[:MAX_METADATA_MISMATCHES]:
        _add_difference(explanation, difference)
    explanation.count(len(differences) - MAX_METADATA_MISMATCHES)
    metadata = explanation.metadata(None)
    if list_alignments:
        metadata["list_alignments"] = list_alignments
    return explanation.comment(), metadata


_T = TypeVar("_T")


def _sorted_by_key(entries: Iterable[_T], evaluation: Evaluation) -> list[_T]:
    """Keys (or (key, value) pairs) in key order; a TypeError naming a non-string key if any."""
    try:
        return sorted(entries)  # type: ignore[type-var]
    except TypeError:
        for item in evaluation.items:
            for side, value, index in (
                ("outputs", item.output, item.output_index),
                ("reference_outputs", item.reference, item.reference_index),
            ):
                for key in value:
                    if not isinstance(key, str):
                        where = f"{side}[{index}]" if evaluation.is_list else side
                        raise TypeError(
                            f"{where} has the key {key!r}, a {type(key).__name__}: "
                            "JSON object keys are strings"
                        ) from None
        raise


def _per_key_results(
    evaluation: Evaluation,
    reasonings: dict[str, list[str]],
    pairs: list[list[int | None]] | None,
) -> list[EvaluatorResult]:
    if not evaluation.is_list:
        (item,) = evaluation.items
        final_scores = cast(dict[str, Score], item.scores)
        results: list[EvaluatorResult] = []
        plain = item.walk is None and _plain_item(item, evaluation.options)
        walk_alignments = (
            item.walk.alignments if item.walk is not None and item.walk.alignments else None
        )
        for key, score in _sorted_by_key(final_scores.items(), evaluation):
            if score != 1:
                if plain:  # the hot failing-key path: one difference, built directly
                    comment, mismatch = value_difference(
                        key, item.output.get(key, MISSING), item.reference.get(key, MISSING), score
                    )
                    metadata: dict[str, Any] = {"mismatches": [mismatch], "alignment": None}
                elif item.walk is not None:  # a nested document: its differences at this path
                    comment, metadata = _listed_metadata(
                        item.walk.differences_at(key), walk_alignments
                    )
                else:
                    comment, metadata = _metadata(evaluation, None, key)
                results.append(
                    {
                        "key": f"{KEY_PREFIX}{key}",
                        "score": score,
                        "comment": comment,
                        "metadata": metadata,
                    }
                )
            else:
                results.append(
                    {
                        "key": f"{KEY_PREFIX}{key}",
                        "score": score,
                        "comment": " ".join(reasonings[key]) if key in reasonings else None,
                        "metadata": None,
                    }
                )
        return results
    by_key: dict[str, list[Score]] = {}
    for item in evaluation.items:
        if item.unmatched and not item.scores:
            by_key.setdefault(UNMATCHED_ITEM_KEY, []).append(0)
        if item.walk is not None and not item.unmatched:
            for key, occurrences in item.walk.occurrences.items():
                by_key.setdefault(key, []).extend(cast(list[Score], occurrences))
            continue
        for key, item_key_score in cast(dict[str, Score], item.scores).items():
            by_key.setdefault(key, []).append(item_key_score)
    shared = {"alignment": pairs}
    list_results: list[EvaluatorResult] = []
    for key in _sorted_by_key(by_key, evaluation):
        key_scores = by_key[key]
        key_score: Score
        if evaluation.options.list_aggregator == "average":
            key_score = math.fsum(key_scores) / len(key_scores)
        else:
            key_score = int(min(key_scores) == 1)
        key_comment: str | None = None
        key_metadata: dict[str, Any] = shared
        if key_score != 1:
            key_comment, key_metadata = _metadata(evaluation, pairs, key)
        if key in reasonings:
            key_comment = " ".join(reasonings[key]) if key_comment is None else key_comment
        list_results.append(
            {
                "key": f"{KEY_PREFIX}{key}",
                "score": key_score,
                "comment": key_comment,
                "metadata": key_metadata,
            }
        )
    return list_results


def _aggregated_result(
    evaluation: Evaluation, pairs: list[list[int | None]] | None
) -> EvaluatorResult:
    options = evaluation.options
    all_or_nothing = options.aggregator == "all"
    if evaluation.is_list:
        scores: list[Any] = [_item_score(item, all_or_nothing) for item in evaluation.items]
        all_or_nothing = options.list_aggregator == "all"
    else:
        scores = list(evaluation.items[0].scores.values())
    score: Score
    if not scores:
        score = 1 if all_or_nothing else 1.0
    elif all_or_nothing:
        score = int(min(scores) == 1)
    else:
        score = math.fsum(scores) / len(scores)
    if score == 1:
        metadata = {"alignment": pairs} if pairs is not None else None
        return EvaluatorResult(
            key=f"{KEY_PREFIX}{options.aggregator}", score=score, comment=None, metadata=metadata
        )
    comment, full = _metadata(evaluation, pairs, None)
    return EvaluatorResult(
        key=f"{KEY_PREFIX}{options.aggregator}", score=score, comment=comment, metadata=full
    )


def _item_score(item: ItemScores, all_or_nothing: bool) -> float:
    if item.unmatched:
        return 0.0
    values: list[Any] = list(item.scores.values())
    if not values:
        return 1.0
    if all_or_nothing:
        return float(min(values) == 1)
    return math.fsum(values) / len(values)


def _explain(evaluation: Evaluation, only_key: str | None) -> tuple[str, list[dict[str, Any]], int]:
    """The comment, the mismatches, and how many mismatches were left out of the metadata.

    One readable clause per difference, e.g. ``age: expected 30, got 20``: the first few are
    rendered and the rest counted; once both the comment and the metadata are full, the
    remaining items' differences are only counted, never built.
    """
    explanation = Explanation()
    is_list = evaluation.is_list
    none_is_missing = evaluation.options.none_is_missing
    options = evaluation.options
    for item in evaluation.items:
        if explanation.full and item.walk is None:
            explanation.count(_count_differences(item, only_key))
            continue
        if not item.unmatched and item.walk is None and _plain_item(item, options):
            if only_key is None:
                keys = _sorted_by_key(
                    (key for key, score in item.scores.items() if score != 1), evaluation
                )
            elif item.scores.get(only_key, 1) != 1:
                keys = [only_key]
            else:
                continue
            output_at = f"outputs[{item.output_index}]" if is_list else None
            reference_at = f"reference_outputs[{item.reference_index}]" if is_list else None
            for key in keys:
                explanation.add_key(
                    key,
                    item.output.get(key, MISSING),
                    item.reference.get(key, MISSING),
                    cast(Score, item.scores[key]),
                    output_at,
                    reference_at,
                )
            continue
        for difference in _item_differences(item, only_key, is_list, none_is_missing):
            _add_difference(explanation, difference)
    return explanation.comment(), explanation.mismatches, explanation.omitted


def _add_difference(explanation: Explanation, difference: Difference) -> None:
    explanation.add(
        difference_text(difference) if explanation.wants_text else None,
        None if explanation.full else _mismatch(difference),
    )


def _plain_item(item: ItemScores, options: JsonMatchOptions) -> bool:
    """Whether an item's differences are plain key differences (see ``value_difference``)."""
    return not options.none_is_missing and not item.judge_reasons and not item.judge_errors


def _count_differences(item: ItemScores, only_key: str | None) -> int:
    if item.unmatched:
        return int(
            only_key is None
            or only_key in item.scores
            or (only_key == UNMATCHED_ITEM_KEY and not item.scores)
        )
    if only_key is not None:
        return int(item.scores.get(only_key, 1) != 1)
    return sum(1 for score in item.scores.values() if score != 1)


def _item_differences(
    item: ItemScores, only_key: str | None, is_list: bool, none_is_missing: bool
) -> Iterator[Difference]:
    if item.walk is not None and not item.unmatched:
        if only_key is None:
            yield from item.walk.differences
        else:
            yield from item.walk.differences_at(only_key)
        return
    if item.unmatched:
        if (
            only_key is None
            or only_key in item.scores
            or (only_key == UNMATCHED_ITEM_KEY and not item.scores)
        ):
            difference = _unmatched_difference(item)
            if VALUE_LIST_KEY in item.output or VALUE_LIST_KEY in item.reference:
                # An item of a top-level list of plain values: show the value itself.
                difference = difference._replace(
                    path=VALUE_LIST_KEY,
                    kind="unmatched_value",
                    expected=item.reference.get(VALUE_LIST_KEY),
                    actual=item.output.get(VALUE_LIST_KEY),
                )
            yield difference
        return
    if only_key is None:
        keys: list[str] = sorted((key for key, score in item.scores.items() if score != 1), key=str)
    elif item.scores.get(only_key, 1) != 1:
        keys = [only_key]
    else:
        return
    output_at = f"outputs[{item.output_index}]" if is_list else None
    reference_at = f"reference_outputs[{item.reference_index}]" if is_list else None
    for key in keys:
        yield _key_difference(item, key, output_at, reference_at, none_is_missing)


def _unmatched_difference(item: ItemScores) -> Difference:
    if item.reference_index is None:
        return Difference(
            None,
            "unmatched",
            None,
            item.output,
            0,
            output_at=f"outputs[{item.output_index}]",
            reason="reference_outputs",
        )
    return Difference(
        None,
        "unmatched",
        item.reference,
        None,
        0,
        reference_at=f"reference_outputs[{item.reference_index}]",
        reason="outputs",
    )


def _key_difference(
    item: ItemScores,
    key: str,
    output_at: str | None,
    reference_at: str | None,
    none_is_missing: bool,
) -> Difference:
    score = cast(Score, item.scores[key])
    actual = item.output.get(key, MISSING)
    expected = item.reference.get(key, MISSING)
    if none_is_missing:
        actual = MISSING if actual is None else actual
        expected = MISSING if expected is None else expected
    if item.judge_errors and key in item.judge_errors:
        return Difference(
            key, "judge_error", expected, actual, score, output_at, reference_at,
            item.judge_errors[key],
        )  # fmt: skip
    if item.judge_reasons and key in item.judge_reasons:
        return Difference(
            key, "judged", expected, actual, score, output_at, reference_at,
            item.judge_reasons[key],
        )  # fmt: skip
    if expected is MISSING:
        return Difference(key, "extra", None, actual, score, output_at, reference_at)
    if actual is MISSING:
        return Difference(key, "missing", expected, None, score, output_at, reference_at)
    return Difference(key, "value", expected, actual, score, output_at, reference_at)


def difference_text(difference: Difference) -> str:
    """One clause of a comment, e.g. ``age: expected 30, got 20``."""
    kind = difference.kind
    if kind == "unmatched" or kind == "unmatched_value":
        present = difference.output_at or difference.reference_at
        value = difference.actual if difference.output_at else difference.expected
        shown = f" ({render(value)})" if kind == "unmatched_value" else ""
        return f"{present}{shown} has no partner in {difference.reason}"
    where = (
        f" ({difference.output_at} vs {difference.reference_at})"
        if difference.output_at and difference.reference_at
        else ""
    )
    head = f"{difference.path}{where}"
    if kind == "judged":
        return f"{head}: judged not to match: {difference.reason or 'no reason given'}"
    if kind == "judge_error":
        return f"{head}: the judge failed: {difference.reason}"
    if kind == "extra":
        return f"{head}: not in reference_outputs, got {render(difference.actual)}"
    if kind == "missing":
        return f"{head}: missing from outputs, expected {render(difference.expected)}"
    text = f"{head}: expected {render(difference.expected)}, got {render(difference.actual)}"
    score = difference.score
    if type(score) is float and 0 < score < 1:
        text += f" (partial credit {score:.2f})"
    return text


def _mismatch(difference: Difference) -> dict[str, Any]:
    entry: dict[str, Any] = {  # values are the inputs' own objects: referenced, never copied
        "path": difference.path,
        "expected": None if difference.expected is MISSING else difference.expected,
        "actual": None if difference.actual is MISSING else difference.actual,
        "score": difference.score,
    }
    if difference.kind != "value":
        entry["kind"] = difference.kind
    if difference.output_at or difference.reference_at:
        entry["outputs"] = difference.output_at
        entry["reference_outputs"] = difference.reference_at
    if difference.reason is not None and difference.kind in ("judged", "judge_error"):
        entry["reason"] = difference.reason
    return entry
