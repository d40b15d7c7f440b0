"""Scoring JSON outputs against references: per-key scores, aggregation, comments, metadata.

Two pure steps frame the judge call made by the evaluator edges:

1. :func:`prepare` validates the inputs, pairs list items and scores every exactly-compared key;
   keys in the rubric are left pending as :class:`JudgeRequest` objects.
2. :func:`finish` takes the judge's verdicts for those requests and aggregates everything into
   openevals-shaped ``EvaluatorResult`` dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

from matchevals._evaluator import EvaluatorResult
from matchevals._values import describe_type, json_equal, render
from matchevals.json_match._align import Pair, align_items
from matchevals.json_match._options import JsonMatchOptions

__all__ = [
    "UNMATCHED_ITEM_KEY",
    "Evaluation",
    "JudgeRequest",
    "JudgeVerdict",
    "finish",
    "prepare",
]

KEY_PREFIX = "json_match"
UNMATCHED_ITEM_KEY = "<unmatched item>"
"""Reported key (aggregator None) of an unmatched list item that has no keys of its own to score."""
MAX_COMMENT_MISMATCHES = 5

Score = int | float | bool


class JudgeRequest(NamedTuple):
    """One rubric key of one pair of items, for the judge to score."""

    request_id: str
    key: str
    criteria: str
    output_value: Any
    reference_value: Any


class JudgeVerdict(NamedTuple):
    score: bool
    reasoning: str | None


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


def prepare(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Evaluation:
    """Validate, pair and score everything that needs no judge.

    >>> from matchevals.json_match._options import JsonMatchOptions
    >>> prepare({"a": 1}, {"a": 2}, JsonMatchOptions()).items[0].scores
    {'a': 0}
    """
    is_list = _check_inputs(outputs, reference_outputs)
    if not is_list:
        item = _score_pair(outputs, reference_outputs, 0, 0, options, "")
        return Evaluation(options, False, [item], None, _requests_of([item], options))
    pairs = align_items(
        outputs,
        reference_outputs,
        mode=options.list_match_mode,
        alignment=options.alignment,
        all_or_nothing=options.aggregator == "all",
        ignored_keys=options.exclude_keys,
        judged_keys=options.judged_keys,
    )
    items = [
        _score_pair(
            _EMPTY if o is None else outputs[o],
            _EMPTY if r is None else reference_outputs[r],
            o,
            r,
            options,
            f"_{position}",
        )
        for position, (o, r) in enumerate(pairs)
    ]
    return Evaluation(options, True, items, pairs, _requests_of(items, options))


_EMPTY: Mapping[str, Any] = {}


def _check_inputs(outputs: Any, reference_outputs: Any) -> bool:
    """Return whether the inputs are lists; raise TypeError naming what is wrong."""
    if type(outputs) is dict and type(reference_outputs) is dict:
        return False
    for name, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        if isinstance(value, Mapping):
            continue
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, Mapping):
                    raise TypeError(
                        f"{name}[{index}] is a {describe_type(item)}, expected an object"
                    )
            continue
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
    return isinstance(outputs, list)


def _score_pair(
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    output_index: int | None,
    reference_index: int | None,
    options: JsonMatchOptions,
    id_suffix: str,
) -> ItemScores:
    """Score every key of one pair: 1 if equal, 0 if different or present on one side only.

    Keys absent from both items are not scored; judged keys present on both sides stay pending.
    """
    ignored = options.exclude_keys
    judged = options.judged_keys
    pending: dict[str, str] = {}
    if not ignored and not judged:  # the common case, kept lean
        scores: dict[str, Score | None] = {
            key: int(key in reference and json_equal(actual, reference[key]))
            for key, actual in output.items()
        }
        if output.keys() != reference.keys():
            scores.update(dict.fromkeys(reference.keys() - output.keys(), 0))
    else:
        scores = {}
        for key, actual in output.items():
            if key in ignored:
                continue
            if key not in reference:
                scores[key] = 0
            elif key in judged:
                scores[key] = None
                pending[key] = key + id_suffix
            else:
                scores[key] = int(json_equal(actual, reference[key]))
        for key in reference:
            if key not in output and key not in ignored:
                scores[key] = 0
    return ItemScores(output_index, reference_index, output, reference, scores, pending)


def _requests_of(items: list[ItemScores], options: JsonMatchOptions) -> list[JudgeRequest]:
    if not options.judged_keys:
        return []
    rubric = dict(options.rubric)
    return [
        JudgeRequest(request_id, key, rubric[key], item.output[key], item.reference[key])
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
        for key, request_id in item.pending.items():
            verdict = (verdicts or {})[request_id]
            item.scores[key] = verdict.score
            if verdict.reasoning and options.use_reasoning:
                reasonings.setdefault(key, []).append(verdict.reasoning)
            if not verdict.score:
                item.judge_reasons = item.judge_reasons or {}
                item.judge_reasons[key] = verdict.reasoning
    metadata = (
        {"alignment": [[o, r] for o, r in evaluation.pairs]}
        if evaluation.pairs is not None
        else None
    )
    if options.aggregator is None:
        return _per_key_results(evaluation, reasonings, metadata)
    return [_aggregated_result(evaluation, metadata)]


def _per_key_results(
    evaluation: Evaluation, reasonings: dict[str, list[str]], metadata: dict[str, Any] | None
) -> list[EvaluatorResult]:
    if not evaluation.is_list:
        (item,) = evaluation.items
        final_scores = cast(dict[str, Score], item.scores)
        return [
            {
                "key": f"{KEY_PREFIX}:{key}",
                "score": score,
                "comment": (
                    _difference_text(item, key, "")
                    if score != 1
                    else (" ".join(reasonings[key]) if key in reasonings else None)
                ),
                "metadata": None,
            }
            for key, score in sorted(final_scores.items())
        ]
    by_key: dict[str, list[Score]] = {}
    for item in evaluation.items:
        if item.unmatched and not item.scores:
            by_key.setdefault(UNMATCHED_ITEM_KEY, []).append(0)
        for key, key_score in cast(dict[str, Score], item.scores).items():
            by_key.setdefault(key, []).append(key_score)
    results: list[EvaluatorResult] = []
    for key in sorted(by_key):
        scores = by_key[key]
        score: Score
        if evaluation.options.list_aggregator == "average":
            score = sum(scores) / len(scores)
        else:
            score = int(min(scores) == 1)
        comment = _comment(evaluation, key) if score != 1 else None
        if key in reasonings:
            comment = " ".join(reasonings[key]) if comment is None else comment
        results.append(
            {"key": f"{KEY_PREFIX}:{key}", "score": score, "comment": comment, "metadata": metadata}
        )
    return results


def _aggregated_result(evaluation: Evaluation, metadata: dict[str, Any] | None) -> EvaluatorResult:
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
        score = sum(scores) / len(scores)
    return EvaluatorResult(
        key=f"{KEY_PREFIX}:{options.aggregator}",
        score=score,
        comment=_comment(evaluation, None) if score != 1 else None,
        metadata=metadata,
    )


def _item_score(item: ItemScores, all_or_nothing: bool) -> float:
    if item.unmatched:
        return 0.0
    values: list[Any] = list(item.scores.values())
    if not values:
        return 1.0
    if all_or_nothing:
        return float(min(values) == 1)
    return float(sum(values) / len(values))


def _comment(evaluation: Evaluation, only_key: str | None) -> str:
    """One readable clause per difference, e.g. ``age: expected 30, got 20``.

    Only the first few differences are rendered; the rest are counted.
    """
    shown: list[str] = []
    hidden = 0
    for item in evaluation.items:
        if len(shown) == MAX_COMMENT_MISMATCHES:
            hidden += _count_differences(item, only_key)
            continue
        for key in _differing_keys(item, only_key):
            if len(shown) == MAX_COMMENT_MISMATCHES:
                hidden += 1
            elif key is None:
                shown.append(_unmatched_text(item))
            else:
                where = _where(item) if evaluation.is_list else ""
                shown.append(_difference_text(item, key, where))
    if hidden:
        shown.append(f"… and {hidden} more")
    return "; ".join(shown)


def _differing_keys(item: ItemScores, only_key: str | None) -> Sequence[str | None]:
    """The keys that differ in an item, sorted; [None] for an item without a partner."""
    if item.unmatched:
        if (
            only_key is None
            or only_key in item.scores
            or (only_key == UNMATCHED_ITEM_KEY and not item.scores)
        ):
            return [None]
        return []
    if only_key is None:
        return sorted(key for key, score in item.scores.items() if score != 1)
    return [only_key] if item.scores.get(only_key, 1) != 1 else []


def _count_differences(item: ItemScores, only_key: str | None) -> int:
    if item.unmatched or only_key is not None:
        return len(_differing_keys(item, only_key))
    return sum(1 for score in item.scores.values() if score != 1)


def _where(item: ItemScores) -> str:
    return f" (outputs[{item.output_index}] vs reference_outputs[{item.reference_index}])"


def _unmatched_text(item: ItemScores) -> str:
    if item.reference_index is None:
        return f"outputs[{item.output_index}] has no partner in reference_outputs"
    return f"reference_outputs[{item.reference_index}] has no partner in outputs"


def _difference_text(item: ItemScores, key: str, where: str) -> str:
    if item.judge_reasons and key in item.judge_reasons:
        reason = item.judge_reasons[key] or "no reason given"
        return f"{key}{where}: judged not to match: {reason}"
    if key not in item.reference:
        return f"{key}{where}: not in reference_outputs, got {render(item.output[key])}"
    if key not in item.output:
        return f"{key}{where}: missing from outputs, expected {render(item.reference[key])}"
    return f"{key}{where}: expected {render(item.reference[key])}, got {render(item.output[key])}"
