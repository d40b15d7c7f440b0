"""Two objects compared key by key (``nested=False``): the general path, for every option.

Every key of either side is scored once by :func:`~._compare.score_value` under the rule at
its path: 1 if equal, 0 if different or present on one side only, a comparator's score, or left
pending for the judge (rubric keys). Keys absent from both sides are not scored; excluded keys
and, with ``extra_keys="ignore"``, output-only keys neither. A top-level list of plain values is
a list of one-key items keyed ``[]`` whose rules are those of ``[*]``.

>>> from matchevals.json_match._options import JsonMatchOptions
>>> score_keys({"a": 1, "b": 2}, {"a": 1.0}, 0, 0, JsonMatchOptions(), None, False).scores
{'a': 1, 'b': 0}
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, cast

from matchevals._differences import ABSENT
from matchevals.json_match._compare import absent_if_null, score_value
from matchevals.json_match._evaluation import ItemScores
from matchevals.json_match._judge import request_id
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._paths import NO_RULE, Rule, child_path
from matchevals.json_match._types import VALUE_LIST_KEY, JudgeRequest, Score

__all__ = ["KeyRules", "key_rules", "requests_of", "rule_at", "score_keys"]

KeyRules = tuple[frozenset[str], frozenset[str], dict[str, Any] | None]
"""What pairing list items needs to know of the rules: (excluded keys, judged keys, comparators
by key)."""


def rule_at(options: JsonMatchOptions, key: str, value_list: bool) -> Rule:
    """The rule for a top-level key (``[*]`` for the items of a list of plain values)."""
    rules = options.rules
    if rules is None:
        return NO_RULE
    return rules.at("[*]" if value_list and key == VALUE_LIST_KEY else key)


def key_rules(
    outputs: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    options: JsonMatchOptions,
    value_list: bool,
) -> KeyRules:
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
        rule = rule_at(options, key, value_list)
        if rule.excluded:
            ignored.add(key)
        elif rule.criteria is not None:
            judged.add(key)
        elif rule.comparator is not None:
            by_key[key] = rule.comparator
    return frozenset(ignored), frozenset(judged), by_key or None


def score_keys(
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    output_index: int | None,
    reference_index: int | None,
    options: JsonMatchOptions,
    position: int | None,
    value_list: bool,
) -> ItemScores:
    """Score every key of one pair of objects (``position``: the pair's place in a list, None
    for two objects). Rubric keys to ask the judge about are left pending, with a request id."""
    scores: dict[str, Score | None] = {}
    pending: dict[str, str] = {}
    rule_of = options.rules.at if options.rules is not None else None
    judge_identical = options.judge_identical
    none_is_missing = options.none_is_missing
    ignore_extra = options.extra_keys == "ignore"
    output_get, reference_get = output.get, reference.get
    for key in itertools.chain(output, [key for key in reference if key not in output]):
        path = "[*]" if value_list and key == VALUE_LIST_KEY else key
        rule = NO_RULE if rule_of is None else rule_of(path)
        if rule.excluded:
            continue
        actual = output_get(key, ABSENT)
        expected = reference_get(key, ABSENT)
        if none_is_missing:
            actual, expected = absent_if_null(actual), absent_if_null(expected)
        if (actual is ABSENT and expected is ABSENT) or (expected is ABSENT and ignore_extra):
            continue
        where = _NOWHERE
        if rule.comparator is not None:  # only a comparator's errors name the locations
            where = partial(_locations, output_index, reference_index, key, value_list, position)
        score = score_value(actual, expected, rule, judge_identical, path, where)
        scores[key] = score
        if score is None:
            pending[key] = request_id(key, position)
    return ItemScores(output_index, reference_index, output, reference, scores, pending)


def _nowhere() -> str:
    return ""


_NOWHERE = _nowhere


def _locations(
    output_index: int | None,
    reference_index: int | None,
    key: str,
    value_list: bool,
    position: int | None,
) -> str:
    output, reference = "outputs", "reference_outputs"
    if position is not None:
        output, reference = f"outputs[{output_index}]", f"reference_outputs[{reference_index}]"
    if value_list:
        return f"{output} vs {reference}"
    return f"{child_path(output, key)} vs {child_path(reference, key)}"


def requests_of(
    items: list[ItemScores], options: JsonMatchOptions, value_list: bool
) -> list[JudgeRequest]:
    """The judge requests of the pending keys, item by item."""
    if not options.judged_keys:
        return []
    return [
        JudgeRequest(
            request,
            key,
            cast(str, rule_at(options, key, value_list).criteria),
            item.output[key],
            item.reference[key],
        )
        for item in items
        for key, request in item.pending.items()
    ]
