"""``nested=True``: two documents compared leaf by leaf (the general path of nested mode).

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

>>> from matchevals.json_match._options import JsonMatchOptions
>>> items, _, _ = score_documents({"a": {"b": 1}}, {"a": {"b": 2}}, JsonMatchOptions(nested=True))
>>> items[0].leaves.occurrences
{'a.b': [0]}
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from matchevals._differences import ABSENT, Kind
from matchevals._path_text import join_path
from matchevals.json_match._compare import absent_if_null, score_value
from matchevals.json_match._evaluation import ItemScores, Leaves
from matchevals.json_match._judge import request_id
from matchevals.json_match._leaf_paths import flat_key_rules, flatten, leaf_paths
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._pairing import pair_items, pair_with_options
from matchevals.json_match._paths import NO_RULE, Rule, child_path
from matchevals.json_match._types import (
    MAX_DEPTH,
    Difference,
    JudgeRequest,
    Location,
    Pair,
    Score,
)

__all__ = ["Walk", "score_documents"]

_EMPTY: dict[str, Any] = {}


def score_documents(
    outputs: Any, references: Any, options: JsonMatchOptions
) -> tuple[list[ItemScores], list[Pair] | None, list[JudgeRequest]]:
    """Score two objects, or two lists of objects, leaf by leaf."""
    counter = itertools.count()
    if isinstance(outputs, Mapping):
        leaves = _walk_document(options, counter, outputs, references, None)
        item = ItemScores(0, 0, outputs, references, {}, {}, leaves=leaves)
        return [item], None, leaves.requests
    flat_outputs = [flatten(options, item, "") for item in outputs]
    flat_references = [flatten(options, item, "") for item in references]
    key_rules = flat_key_rules(options, (*flat_outputs, *flat_references))
    pairs = pair_with_options(flat_outputs, flat_references, options, key_rules, key_prefix="")
    items: list[ItemScores] = []
    requests: list[JudgeRequest] = []
    for o, r in pairs:
        if o is None or r is None:
            present = outputs[o] if o is not None else references[cast(int, r)]
            paths = leaf_paths(options, present, "")
            output = outputs[o] if o is not None else _EMPTY
            reference = references[r] if r is not None else _EMPTY
            items.append(ItemScores(o, r, output, reference, dict.fromkeys(paths, 0), {}))
            continue
        at = (f"outputs[{o}]", f"reference_outputs[{r}]", "")
        leaves = _walk_document(options, counter, outputs[o], references[r], at)
        items.append(ItemScores(o, r, outputs[o], references[r], {}, {}, leaves=leaves))
        requests.extend(leaves.requests)
    return items, pairs, requests


def _walk_document(
    options: JsonMatchOptions,
    counter: Iterator[int],
    output: Mapping[str, Any],
    reference: Mapping[str, Any],
    at: Location | None,
) -> Leaves:
    """Compare two documents leaf by leaf; nested list pairings are listed in path order."""
    walk = Walk(options, counter)
    walk.compare_objects(output, reference, "", at, 0)
    walk.found.alignments.sort(key=lambda found: (found["outputs"], found["reference_outputs"]))
    return walk.found


class Walk:
    """Compares one document (a pair of objects) leaf by leaf, recording what it finds."""

    __slots__ = ("counter", "found", "ignore_extra", "none_is_missing", "options", "rules")

    def __init__(self, options: JsonMatchOptions, counter: Iterator[int]) -> None:
        self.options = options
        self.rules = options.rules
        self.none_is_missing = options.none_is_missing
        self.ignore_extra = options.extra_keys == "ignore"
        self.counter = counter
        self.found = Leaves()

    # ----------------------------------------------------------------- recording

    def _record(
        self,
        path: str,
        score: Score | None,
        at: Location | None,
        kind: Kind,
        expected: Any,
        actual: Any,
    ) -> tuple[list[Score | None], int]:
        found = self.found
        occurrences = found.occurrences.get(path)
        if occurrences is None:
            occurrences = found.occurrences[path] = []
        occurrences.append(score)
        if at is not None and at[2]:
            found.listed.add(path)
        if score is not None and score != 1:
            found.differences.append(
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
        reference_get = reference.get
        for key, actual in output.items():
            self.value(actual, reference_get(key, ABSENT), child_path(path, key), at, depth + 1)
        if len(output) != len(reference) or output.keys() != reference.keys():
            for key, expected in reference.items():
                if key not in output:
                    self.value(ABSENT, expected, child_path(path, key), at, depth + 1)

    def value(self, actual: Any, expected: Any, path: str, at: Location | None, depth: int) -> None:
        """Compare the values at one path; ABSENT stands for an absent key."""
        rule = self.rules.at(path) if self.rules is not None else NO_RULE
        if rule.excluded:
            return
        if self.none_is_missing:
            actual, expected = absent_if_null(actual), absent_if_null(expected)
        if actual is ABSENT and expected is ABSENT:
            return
        if expected is ABSENT and self.ignore_extra:
            return
        if rule.criteria is None and rule.comparator is None:
            if isinstance(actual, Mapping) and (
                isinstance(expected, Mapping) or expected is ABSENT
            ):
                if actual or (expected is not ABSENT and expected):
                    self.compare_objects(
                        actual, _EMPTY if expected is ABSENT else expected, path, at, depth
                    )
                    return
            elif actual is ABSENT and isinstance(expected, Mapping) and expected:
                self.compare_objects(_EMPTY, expected, path, at, depth)
                return
            elif type(actual) is list and type(expected) is list and (actual or expected):
                self.compare_lists(actual, expected, path, at, depth)
                return
        self.leaf(actual, expected, path, at, rule)

    def leaf(self, actual: Any, expected: Any, path: str, at: Location | None, rule: Rule) -> None:
        """Score one leaf: equal values 1, a comparator's score, a rubric's verdict, else 0."""
        where = _nowhere
        if rule.comparator is not None:
            where = _locations(path, at)
        score = score_value(actual, expected, rule, self.options.judge_identical, path, where)
        if score is None:  # for the judge
            number = next(self.counter)
            occurrences, index = self._record(path, None, at, Kind.JUDGED, expected, actual)
            request = JudgeRequest(
                request_id(path, number, counted=True),
                path,
                cast(str, rule.criteria),
                actual,
                expected,
            )
            self.found.pending.append((occurrences, index, request, at))
        elif actual is ABSENT:
            self._record(path, score, at, Kind.MISSING, expected, None)
        elif expected is ABSENT:
            self._record(path, score, at, Kind.EXTRA, None, actual)
        else:
            self._record(path, score, at, Kind.VALUE, expected, actual)

    def compare_lists(
        self, actual: list[Any], expected: list[Any], path: str, at: Location | None, depth: int
    ) -> None:
        """Pair the items of two lists and compare the pairs."""
        if depth > MAX_DEPTH:
            raise ValueError(
                f"{_where(path, at, 0)} is nested too deeply: more than {MAX_DEPTH} levels"
            )
        objects = all(type(item) is dict or isinstance(item, Mapping) for item in actual) and all(
            type(item) is dict or isinstance(item, Mapping) for item in expected
        )
        item_rule = NO_RULE
        if not objects:
            item_rule = self.rules.at(path + "[*]") if self.rules is not None else NO_RULE
            if item_rule.excluded:
                return
        names = (_where(path, at, 0), _where(path, at, 1))
        for o, r in self._pair(actual, expected, path, names, objects, item_rule):
            self._compare_pair(actual, expected, (o, r), path, names, objects, item_rule, depth)

    def _pair(
        self,
        actual: list[Any],
        expected: list[Any],
        path: str,
        names: tuple[str, str],
        objects: bool,
        item_rule: Rule,
    ) -> list[Pair]:
        """Pair the items of two lists with the list's mode, and list the pairing."""
        options = self.options
        rule = self.rules.at(path) if self.rules is not None else NO_RULE
        item_path = path + "[*]"
        if objects:
            flat_outputs = [flatten(options, item, item_path) for item in actual]
            flat_references = [flatten(options, item, item_path) for item in expected]
            _, judged, comparators = flat_key_rules(options, (*flat_outputs, *flat_references))
        else:
            flat_outputs = [{path: item} for item in actual]
            flat_references = [{path: item} for item in expected]
            judged = frozenset([path]) if item_rule.criteria is not None else frozenset()
            comparators = {path: item_rule.comparator} if item_rule.comparator else None
        output_list, reference_list = names
        pairs = pair_items(
            flat_outputs,
            flat_references,
            mode=rule.list_mode or options.list_match_mode,  # type: ignore[arg-type]
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
        self.found.alignments.append(
            {
                "outputs": output_list,
                "reference_outputs": reference_list,
                "pairs": [[o, r] for o, r in pairs],
            }
        )
        return pairs

    def _compare_pair(
        self,
        actual: list[Any],
        expected: list[Any],
        pair: Pair,
        path: str,
        names: tuple[str, str],
        objects: bool,
        item_rule: Rule,
        depth: int,
    ) -> None:
        """Compare one pair of list items (or score an item without a partner)."""
        o, r = pair
        output_list, reference_list = names
        item_path = path + "[*]"
        item_at = (
            f"{output_list}[{o}]" if o is not None else "",
            f"{reference_list}[{r}]" if r is not None else "",
            item_path,
        )
        if o is None or r is None:
            self._unmatched(
                actual[o] if o is not None else expected[cast(int, r)],
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
                item_actual, item_expected = (
                    absent_if_null(item_actual),
                    absent_if_null(item_expected),
                )
            if item_actual is ABSENT and item_expected is ABSENT:
                return
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
        paths = leaf_paths(self.options, item, path) if objects else [path]
        for leaf in paths:
            self._record(leaf, 0, at, Kind.UNMATCHED, None, None)
        # One difference for the whole item, not one per leaf: drop the per-leaf ones.
        differences = self.found.differences
        del differences[len(differences) - len(paths) :]
        differences.append(
            Difference(
                path,
                Kind.UNMATCHED if objects else Kind.UNMATCHED_VALUE,
                None if is_output else item,
                item if is_output else None,
                0,
                at[0] or None,
                at[1] or None,
                other_list,
                frozenset(paths),
            )
        )


def _nowhere() -> str:
    return ""


def _locations(path: str, at: Location | None) -> Callable[[], str]:
    return lambda: f"{_where(path, at, 0)} vs {_where(path, at, 1)}"


def _where(path: str, at: Location | None, side: int) -> str:
    """The concrete location of ``path`` on one side, e.g. ``outputs[0].lines[2].price``."""
    if at is None:
        base, item_path = ("outputs", "reference_outputs")[side], ""
    else:
        base, item_path = at[side], at[2]
    return join_path(base, path[len(item_path) :])
