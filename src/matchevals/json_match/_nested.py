"""``nested=True``: scoring leaves instead of top-level values.

Keys become paths: ``address.city``; list items are ``[*]``: ``items[*].price``.

- Where both sides hold objects, every key of either side is followed (a key on one side only
  expands into that side's leaf paths, each scoring 0; with ``extra_keys="ignore"`` an
  output-only key is skipped).
- Where both sides hold lists, items are paired with the list's mode (``list_match_modes``
  by path or glob, else ``list_match_mode``) and the evaluator's ``alignment``. Lists of objects
  are followed item by item (``items[*].price``); lists of plain values are scored item by item
  under the list's own path (``tags``), compared as multisets in set modes and by index in
  ordered mode. A counted item without a partner scores 0 for each of its leaf paths.
  Items are paired by their leaf scores, each nested list inside an item compared whole.
- Anything else is a leaf, compared as a JSON value (an object against a string scores 0 once,
  under the path where they meet). Two empty objects or two empty lists are an equal leaf; a
  list present on one side only scores 0 once, under the list's path.
- A path with a rubric entry or a comparator is a leaf whatever it holds (the judge or the
  comparator sees the whole value); an excluded path is not scored, nor anything below it.

Aggregation: a path is scored once per occurrence. Its score in a document is the occurrence's
score, or ``list_aggregator`` over its occurrences when it lies inside a list. ``aggregator``
combines a document's path scores; with ``aggregator=None`` there is one result per path, which
for a top-level list is ``list_aggregator`` over the path's occurrences in every counted item.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, cast

from matchevals._values import json_equal
from matchevals.json_match._align import Pair, align_items, checked_score
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._paths import NO_RULE, Rule, child_path
from matchevals.json_match._plain import MAX_DEPTH, MISSING
from matchevals.json_match._score import (
    Difference,
    ItemScores,
    JudgeRequest,
    JudgeVerdict,
    Score,
    align_with_options,
)

__all__ = ["Walk", "prepare_nested"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_EMPTY: dict[str, Any] = {}

Location = tuple[str, str, str]
"""``(output item location, reference item location, item path)`` of the innermost list item,
e.g. ``("outputs.lines[2]", "reference_outputs.lines[0]", "lines[*]")``."""


def prepare_nested(
    outputs: Any, references: Any, options: JsonMatchOptions
) -> tuple[list[ItemScores], list[Pair] | None, list[JudgeRequest]]:
    """Score two objects, or two lists of objects, leaf by leaf."""
    counter = itertools.count()
    if isinstance(outputs, Mapping):
        walk = _walk_document(options, counter, outputs, references, None)
        item = ItemScores(0, 0, outputs, references, {}, {}, walk=walk)
        return [item], None, walk.requests
    flat_outputs = [Walk.flatten(options, item, "") for item in outputs]
    flat_references = [Walk.flatten(options, item, "") for item in references]
    key_rules = _key_rules(options, (*flat_outputs, *flat_references))
    pairs = align_with_options(flat_outputs, flat_references, options, key_rules)
    items: list[ItemScores] = []
    requests: list[JudgeRequest] = []
    for o, r in pairs:
        if o is None or r is None:
            present = outputs[o] if o is not None else references[cast_index(r)]
            paths = Walk.leaf_paths(options, present, "")
            items.append(
                ItemScores(
                    o,
                    r,
                    outputs[o] if o is not None else _EMPTY,
                    references[r] if r is not None else _EMPTY,
                    dict.fromkeys(paths, 0),
                    {},
                )
            )
            continue
        at = (f"outputs[{o}]", f"reference_outputs[{r}]", "")
        walk = _walk_document(options, counter, outputs[o], references[r], at)
        items.append(ItemScores(o, r, outputs[o], references[r], {}, {}, walk=walk))
        requests.extend(walk.requests)
    return items, pairs, requests


def _walk_document(
    options: JsonMatchOptions,
    counter: Iterator[int],
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    at: Location | None,
) -> Walk:
    """Compare two documents leaf by leaf; nested list pairings are listed in path order."""
    walk = Walk(options, counter)
    walk.compare_objects(output, reference, "", at, 0)
    walk.alignments.sort(key=lambda found: (found["outputs"], found["reference_outputs"]))
    return walk


def cast_index(index: int | None) -> int:
    assert index is not None
    return index


def _key_rules(
    options: JsonMatchOptions, flat_items: tuple[dict[str, Any], ...]
) -> tuple[frozenset[str], frozenset[str], dict[str, Any] | None]:
    """Judged paths and comparators by path among flattened items (excluded ones are gone)."""
    rules = options.rules
    if rules is None:
        return frozenset(), frozenset(), None
    judged: set[str] = set()
    comparators: dict[str, Any] = {}
    for path in {path for item in flat_items for path in item}:
        rule = rules.at(path)
        if rule.criteria is not None:
            judged.add(path)
        elif rule.comparator is not None:
            comparators[path] = rule.comparator
    return frozenset(), frozenset(judged), comparators or None


class Walk:
    """Compares one document (a pair of objects) leaf by leaf, recording what it finds."""

    __slots__ = (
        "_by_path",
        "alignments",
        "counter",
        "differences",
        "ignore_extra",
        "listed",
        "none_is_missing",
        "occurrences",
        "options",
        "pending",
        "requests",
        "rules",
    )

    def __init__(self, options: JsonMatchOptions, counter: Iterator[int]) -> None:
        self.options = options
        self.rules = options.rules
        self.none_is_missing = options.none_is_missing
        self.ignore_extra = options.extra_keys == "ignore"
        self.counter = counter
        self.occurrences: dict[str, list[Score | None]] = {}
        self.listed: set[str] = set()
        self.differences: list[Difference] = []
        self.requests: list[JudgeRequest] = []
        self.pending: list[tuple[list[Score | None], int, JudgeRequest, Location | None]] = []
        self.alignments: list[dict[str, Any]] = []
        self._by_path: dict[str, list[Difference]] | None = None

    def differences_at(self, path: str) -> list[Difference]:
        """The differences reported under one path (indexed once, after judging)."""
        if self._by_path is None:
            self._by_path = {}
            for difference in self.differences:
                for key in difference.covers or (difference.path,):
                    self._by_path.setdefault(cast(str, key), []).append(difference)
        return self._by_path.get(path, [])

    # ----------------------------------------------------------------- recording

    def _record(
        self,
        path: str,
        score: Score | None,
        at: Location | None,
        kind: str,
        expected: Any,
        actual: Any,
    ) -> tuple[list[Score | None], int]:
        occurrences = self.occurrences.get(path)
        if occurrences is None:
            occurrences = self.occurrences[path] = []
        occurrences.append(score)
        if at is not None and at[2]:
            self.listed.add(path)
        if score is not None and score != 1:
            self.differences.append(
                Difference(
                    path,
                    kind,
                    expected,
                    actual,
                    score,
                    at[0] if at else None,
                    at[1] if at else None,
                )
            )
        return occurrences, len(occurrences) - 1

    # ----------------------------------------------------------------- comparing

    def compare_objects(
        self,
        output: Mapping[str, Any],
        reference: Mapping[str, Any],
        path: str,
        at: Location | None,
        depth: int,
    ) -> None:
        """Compare two objects key by key (``path`` is where they sit; "" for a document)."""
        if depth > MAX_DEPTH:
            raise ValueError(
                f"{_where(path, at, 0)} is nested too deeply: more than {MAX_DEPTH} levels"
            )
        fast = self.rules is None and not self.none_is_missing
        occurrences = self.occurrences
        listed = at is not None and bool(at[2])
        for key, actual in output.items():
            child = child_path(path, key)
            expected = reference.get(key, MISSING)
            value_type = type(actual)
            if (
                fast
                and value_type is type(expected)
                and (
                    value_type is str
                    or value_type is int
                    or value_type is bool
                    or value_type is float
                )
            ):
                # The bulk of real documents: two scalars of one type under a path without rules.
                if actual == expected or (actual != actual and expected != expected):  # NaN
                    found = occurrences.get(child)
                    if found is None:
                        occurrences[child] = [1]
                    else:
                        found.append(1)
                    if listed:
                        self.listed.add(child)
                else:
                    self._record(child, 0, at, "value", expected, actual)
            else:
                self.value(actual, expected, child, at, depth + 1)
        if len(output) != len(reference) or output.keys() != reference.keys():
            for key, expected in reference.items():
                if key not in output:
                    self.value(MISSING, expected, child_path(path, key), at, depth + 1)

    def value(self, actual: Any, expected: Any, path: str, at: Location | None, depth: int) -> None:
        """Compare the values at one path; MISSING stands for an absent key."""
        rule = self.rules.at(path) if self.rules is not None else NO_RULE
        if rule.excluded:
            return
        if self.none_is_missing:
            actual = MISSING if actual is None else actual
            expected = MISSING if expected is None else expected
        if actual is MISSING and expected is MISSING:
            return
        if expected is MISSING and self.ignore_extra:
            return
        if rule.criteria is None and rule.comparator is None:
            actual_type, expected_type = type(actual), type(expected)
            if isinstance(actual, Mapping) and (
                isinstance(expected, Mapping) or expected is MISSING
            ):
                if actual or (expected is not MISSING and expected):
                    self.compare_objects(
                        actual, _EMPTY if expected is MISSING else expected, path, at, depth
                    )
                    return
            elif actual is MISSING and isinstance(expected, Mapping) and expected:
                self.compare_objects(_EMPTY, expected, path, at, depth)
                return
            elif actual_type is list and expected_type is list and (actual or expected):
                self.compare_lists(actual, expected, path, at, depth)
                return
        self.leaf(actual, expected, path, at, rule)

    def leaf(self, actual: Any, expected: Any, path: str, at: Location | None, rule: Rule) -> None:
        """Score one leaf: equal values 1, a comparator's score, a rubric's verdict, else 0."""
        if actual is MISSING:
            self._record(path, 0, at, "missing", expected, None)
        elif expected is MISSING:
            self._record(path, 0, at, "extra", None, actual)
        elif rule.criteria is not None:
            if not self.options.judge_identical and json_equal(actual, expected):
                self._record(path, True, at, "value", expected, actual)
                return
            request_id = f"{_UNSAFE.sub('_', path).strip('_') or 'value'}_{next(self.counter)}"
            occurrences, index = self._record(path, None, at, "judged", expected, actual)
            request = JudgeRequest(request_id, path, rule.criteria, actual, expected)
            self.pending.append((occurrences, index, request, at))
            self.requests.append(request)
        elif json_equal(actual, expected):
            self._record(path, 1, at, "value", expected, actual)
        elif rule.comparator is not None:
            score = checked_score(
                rule.comparator,
                actual,
                expected,
                path,
                lambda: f"{_where(path, at, 0)} vs {_where(path, at, 1)}",
            )
            self._record(path, score, at, "value", expected, actual)
        else:
            self._record(path, 0, at, "value", expected, actual)

    def compare_lists(
        self, actual: list[Any], expected: list[Any], path: str, at: Location | None, depth: int
    ) -> None:
        """Pair the items of two lists and compare the pairs."""
        if depth > MAX_DEPTH:
            raise ValueError(
                f"{_where(path, at, 0)} is nested too deeply: more than {MAX_DEPTH} levels"
            )
        options = self.options
        rule = self.rules.at(path) if self.rules is not None else NO_RULE
        mode = rule.list_mode or options.list_match_mode
        item_path = path + "[*]"
        objects = all(type(item) is dict or isinstance(item, Mapping) for item in actual) and all(
            type(item) is dict or isinstance(item, Mapping) for item in expected
        )
        output_list, reference_list = _where(path, at, 0), _where(path, at, 1)
        if objects:
            flat_outputs = [self.flatten(options, item, item_path) for item in actual]
            flat_references = [self.flatten(options, item, item_path) for item in expected]
            _, judged, comparators = _key_rules(options, (*flat_outputs, *flat_references))
            item_rule = NO_RULE
        else:
            item_rule = self.rules.at(item_path) if self.rules is not None else NO_RULE
            if item_rule.excluded:
                return
            flat_outputs = [{path: item} for item in actual]
            flat_references = [{path: item} for item in expected]
            judged = frozenset([path]) if item_rule.criteria is not None else frozenset()
            comparators = {path: item_rule.comparator} if item_rule.comparator else None
        pairs = align_items(
            flat_outputs,
            flat_references,
            mode=mode,  # type: ignore[arg-type]
            alignment=options.alignment,
            all_or_nothing=options.aggregator == "all",
            ignored_keys=frozenset(),
            judged_keys=judged,
            comparators=comparators,
            none_is_missing=self.none_is_missing,
            extra_ignored=self.ignore_extra,
            names=(output_list, reference_list),
            key_prefix=item_path if objects else path,
        )
        self.alignments.append(
            {
                "outputs": output_list,
                "reference_outputs": reference_list,
                "pairs": [[o, r] for o, r in pairs],
            }
        )
        for o, r in pairs:
            item_at = (
                f"{output_list}[{o}]" if o is not None else "",
                f"{reference_list}[{r}]" if r is not None else "",
                item_path,
            )
            if o is None or r is None:
                self._unmatched(
                    actual[o] if o is not None else expected[r],  # type: ignore[index]
                    o is not None,
                    path if not objects else item_path,
                    item_at,
                    reference_list if o is not None else output_list,
                    objects,
                )
            elif objects:
                self.compare_objects(actual[o], expected[r], item_path, item_at, depth + 1)
            else:
                item_actual, item_expected = actual[o], expected[r]
                if self.none_is_missing:
                    item_actual = MISSING if item_actual is None else item_actual
                    item_expected = MISSING if item_expected is None else item_expected
                if item_actual is MISSING and item_expected is MISSING:
                    continue
                self.leaf(item_actual, item_expected, path, item_at, item_rule)

    def _unmatched(
        self,
        item: Any,
        is_output: bool,
        path: str,
        at: Location,
        other_list: str,
        objects: bool,
    ) -> None:
        paths = self.leaf_paths(self.options, item, path) if objects else [path]
        for leaf in paths:
            self._record(leaf, 0, at, "unmatched", None, None)
        # One difference for the whole item, not one per leaf: drop the per-leaf ones.
        del self.differences[len(self.differences) - len(paths) :]
        self.differences.append(
            Difference(
                path,
                "unmatched" if objects else "unmatched_value",
                None if is_output else item,
                item if is_output else None,
                0,
                at[0] or None,
                at[1] or None,
                other_list,
                frozenset(paths),
            )
        )

    # ----------------------------------------------------------------- results

    def resolve(
        self, verdicts: Mapping[str, JudgeVerdict], reasonings: dict[str, list[str]]
    ) -> dict[str, Score | None]:
        """Fill in the judge's verdicts; return the document's score per path."""
        for occurrences, index, request, at in self.pending:
            verdict = verdicts[request.request_id]
            occurrences[index] = verdict.score
            path = request.key
            reason: str | None
            if verdict.error is not None:
                kind, reason = "judge_error", verdict.error
            elif verdict.score:
                if verdict.reasoning and self.options.use_reasoning:
                    reasonings.setdefault(path, []).append(verdict.reasoning)
                continue
            else:
                kind, reason = "judged", verdict.reasoning
            self.differences.append(
                Difference(
                    path,
                    kind,
                    request.reference_value,
                    request.output_value,
                    verdict.score,
                    at[0] if at else None,
                    at[1] if at else None,
                    reason,
                )
            )
        self.pending.clear()
        # Sorted by path (stably: items keep their order), as keys are for plain objects.
        self.differences.sort(key=_difference_path)
        self._by_path = None
        average = self.options.list_aggregator == "average"
        scores: dict[str, Score | None] = {}
        for path, occurrences in self.occurrences.items():
            values: list[Any] = occurrences
            if path not in self.listed and len(values) == 1:
                scores[path] = values[0]
            elif average:
                scores[path] = math.fsum(values) / len(values)
            else:
                scores[path] = int(min(values) == 1)
        return scores

    # ----------------------------------------------------------------- shapes

    @staticmethod
    def flatten(options: JsonMatchOptions, item: Mapping[str, Any], path: str) -> dict[str, Any]:
        """An item as ``{leaf path: value}`` for pairing: objects followed, lists kept whole."""
        flat: dict[str, Any] = {}
        rules = options.rules
        stack: list[tuple[Mapping[str, Any], str, int]] = [(item, path, 0)]
        while stack:
            value, prefix, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise ValueError(f"{prefix} is nested too deeply: more than {MAX_DEPTH} levels")
            if rules is None:
                for key, child in value.items():
                    if child and (type(child) is dict or isinstance(child, Mapping)):
                        stack.append((child, child_path(prefix, key), depth + 1))
                    else:
                        flat[child_path(prefix, key)] = child
                continue
            for key, child in value.items():
                here = child_path(prefix, key)
                rule = rules.at(here)
                if rule.excluded:
                    continue
                if (
                    child
                    and (type(child) is dict or isinstance(child, Mapping))
                    and rule.criteria is None
                    and rule.comparator is None
                ):
                    stack.append((child, here, depth + 1))
                else:
                    flat[here] = child
        return flat

    @staticmethod
    def leaf_paths(options: JsonMatchOptions, item: Any, path: str) -> list[str]:
        """The leaf paths an item would be scored under (for an unmatched item's zeros)."""
        if not isinstance(item, Mapping):
            return [path]
        found: dict[str, None] = {}
        rules = options.rules
        stack: list[tuple[Any, str, int]] = [(item, path, 0)]
        while stack:
            value, prefix, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise ValueError(f"{prefix} is nested too deeply: more than {MAX_DEPTH} levels")
            for key, child in value.items():
                here = child_path(prefix, key)
                rule = rules.at(here) if rules is not None else NO_RULE
                if rule.excluded or (options.none_is_missing and child is None):
                    continue
                stops = rule.criteria is not None or rule.comparator is not None
                if isinstance(child, Mapping) and child and not stops:
                    stack.append((child, here, depth + 1))
                elif (
                    type(child) is list
                    and child
                    and not stops
                    and all(isinstance(entry, Mapping) for entry in child)
                ):
                    for entry in child:
                        stack.append((entry, here + "[*]", depth + 1))
                else:
                    found[here] = None
        return sorted(found) or ([path] if path else [])


def _difference_path(difference: Difference) -> str:
    return difference.path or ""


def _where(path: str, at: Location | None, side: int) -> str:
    """The concrete location of ``path`` on one side, e.g. ``outputs[0].lines[2].price``."""
    if at is None:
        base, item_path = ("outputs", "reference_outputs")[side], ""
    else:
        base, item_path = at[side], at[2]
    rest = path[len(item_path) :]
    if rest and not rest.startswith((".", "[")):
        rest = "." + rest
    return base + rest
