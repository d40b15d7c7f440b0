"""Pairing list items of outputs with list items of references.

``ordered`` pairs by index. The set modes pair items one to one:

- ``superset``: every reference item gets a distinct output item (extra outputs are ignored);
- ``subset``: every output item gets a distinct reference item (extra references are ignored);
- ``same_elements``: as ``subset``, and every reference item left over is reported unmatched.

``optimal`` alignment pairs identical items by hashing, then solves the rest as an assignment
problem (``scipy.optimize.linear_sum_assignment``) on a similarity matrix built with sparse matrix
products, never with a Python loop over pairs. ``greedy`` reproduces openevals' pairing: each
driving item in turn takes the first free partner with the most equal keys.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix

from matchevals._values import freeze
from matchevals.json_match._options import Alignment, ListMatchMode

__all__ = ["Pair", "align_items"]

Pair = tuple[int | None, int | None]
"""``(output_index, reference_index)``; ``None`` on the side where an item has no partner."""

Item = Mapping[str, Any]
FrozenItem = list[tuple[str, Hashable]]


def align_items(
    outputs: Sequence[Item],
    references: Sequence[Item],
    *,
    mode: ListMatchMode,
    alignment: Alignment,
    all_or_nothing: bool,
    ignored_keys: frozenset[str],
    judged_keys: frozenset[str],
) -> list[Pair]:
    """Pair the items of two lists; the result lists the items the aggregation will count.

    ``all_or_nothing`` scores a candidate pair 1 only when every compared key is equal (for
    aggregator "all"); otherwise a pair scores the fraction of its keys that are equal. Judged
    (rubric) keys take no part in choosing partners.

    >>> align_items([{"a": 2}, {"a": 1}], [{"a": 1}, {"a": 2}], mode="same_elements",
    ...             alignment="optimal", all_or_nothing=False, ignored_keys=frozenset(),
    ...             judged_keys=frozenset())
    [(0, 1), (1, 0)]
    """
    n_outputs, n_references = len(outputs), len(references)
    if mode == "ordered":
        return [
            (i if i < n_outputs else None, i if i < n_references else None)
            for i in range(max(n_outputs, n_references))
        ]
    frozen_outputs = [_freeze_item(item, ignored_keys) for item in outputs]
    frozen_references = [_freeze_item(item, ignored_keys) for item in references]
    if alignment == "greedy":
        matches = _greedy_matches(frozen_outputs, frozen_references, mode, judged_keys)
    else:
        matches = _optimal_matches(frozen_outputs, frozen_references, all_or_nothing, judged_keys)
    return _arrange(matches, n_outputs, n_references, mode)


def _freeze_item(item: Item, ignored_keys: frozenset[str]) -> FrozenItem:
    return [(key, freeze(value)) for key, value in item.items() if key not in ignored_keys]


def _arrange(matches: dict[int, int], n_outputs: int, n_references: int, mode: str) -> list[Pair]:
    if mode == "superset":
        output_of = {reference: output for output, reference in matches.items()}
        return [(output_of.get(j), j) for j in range(n_references)]
    pairs: list[Pair] = [(i, matches.get(i)) for i in range(n_outputs)]
    if mode == "same_elements":
        matched = set(matches.values())
        pairs.extend((None, j) for j in range(n_references) if j not in matched)
    return pairs


def _optimal_matches(
    outputs: list[FrozenItem],
    references: list[FrozenItem],
    all_or_nothing: bool,
    judged_keys: frozenset[str],
) -> dict[int, int]:
    """Maximum total pair score; identical items pair first (this never lowers the optimum)."""
    matches = _pair_identical(outputs, references)
    paired_references = set(matches.values())
    unmatched_outputs = [i for i in range(len(outputs)) if i not in matches]
    unmatched_references = [j for j in range(len(references)) if j not in paired_references]
    if not unmatched_outputs or not unmatched_references:
        return matches
    equal, compared = _similarity(
        [outputs[i] for i in unmatched_outputs],
        [references[j] for j in unmatched_references],
        judged_keys,
    )
    if all_or_nothing:
        primary = (equal == compared).astype(np.float64)
    else:
        primary = np.divide(
            equal, compared, out=np.ones(equal.shape, dtype=np.float64), where=compared > 0
        )
    # Among equally good pairings prefer the one with more equal keys; the bonus summed over a
    # whole pairing stays below 1e-7, far under any real difference of primary scores.
    bonus_unit = 1e-7 / ((int(equal.max()) + 1) * (min(equal.shape) + 1))
    rows, columns = linear_sum_assignment(primary + equal * bonus_unit, maximize=True)
    for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
        matches[unmatched_outputs[row]] = unmatched_references[column]
    return matches


def _similarity(
    outputs: list[FrozenItem], references: list[FrozenItem], judged_keys: frozenset[str]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For every output/reference pair: how many keys are equal, and how many are compared.

    A key is compared when either item has it, and equal when both have it with equal values.
    Each side becomes a sparse 0/1 matrix of (key, value) pairs and one of keys; two matrix
    products then count, for all pairs at once, the shared (key, value) pairs and shared keys.
    """
    value_codes: dict[tuple[str, Hashable], int] = {}
    key_codes: dict[str, int] = {}
    sides = []
    for items in (outputs, references):
        rows: list[int] = []
        value_columns: list[int] = []
        key_columns: list[int] = []
        for row, item in enumerate(items):
            for pair in item:
                if pair[0] in judged_keys:
                    continue
                rows.append(row)
                value_columns.append(value_codes.setdefault(pair, len(value_codes)))
                key_columns.append(key_codes.setdefault(pair[0], len(key_codes)))
        sides.append((len(items), rows, value_columns, key_columns))

    def sparse(n_rows: int, rows: list[int], columns: list[int], width: int) -> csr_matrix:
        ones = np.ones(len(rows), dtype=np.int64)
        return csr_matrix((ones, (rows, columns)), shape=(n_rows, max(width, 1)))

    (n_out, out_rows, out_values, out_keys), (n_ref, ref_rows, ref_values, ref_keys) = sides
    equal = (
        sparse(n_out, out_rows, out_values, len(value_codes))
        @ sparse(n_ref, ref_rows, ref_values, len(value_codes)).T
    ).toarray()
    common_keys = (
        sparse(n_out, out_rows, out_keys, len(key_codes))
        @ sparse(n_ref, ref_rows, ref_keys, len(key_codes)).T
    ).toarray()
    output_counts = np.bincount(np.asarray(out_rows, dtype=np.int64), minlength=n_out)
    reference_counts = np.bincount(np.asarray(ref_rows, dtype=np.int64), minlength=n_ref)
    compared = output_counts[:, None] + reference_counts[None, :] - common_keys
    return np.asarray(equal, dtype=np.int64), np.asarray(compared, dtype=np.int64)


def _greedy_matches(
    outputs: list[FrozenItem],
    references: list[FrozenItem],
    mode: str,
    judged_keys: frozenset[str],
) -> dict[int, int]:
    """openevals' pairing: drivers in index order take the first free partner with most equal keys.

    In ``same_elements`` mode openevals first tries to pair every output with an identical
    reference (ignoring judged keys) and keeps that pairing only if it covers both lists entirely.
    """
    compared_only = [
        [(key, value) for key, value in item if key not in judged_keys] for item in outputs
    ]
    compared_references = [
        [(key, value) for key, value in item if key not in judged_keys] for item in references
    ]
    if mode == "same_elements" and len(outputs) == len(references):
        exact = _pair_identical(compared_only, compared_references)
        if len(exact) == len(outputs):
            return exact
    if not outputs or not references:
        return {}
    equal, _ = _similarity(outputs, references, judged_keys)
    drivers_are_references = mode == "superset"
    scores = equal.T.copy() if drivers_are_references else equal.copy()
    matches: dict[int, int] = {}
    for driver in range(scores.shape[0]):
        row = scores[driver]
        partner = int(np.argmax(row))
        if row[partner] < 0:  # every partner is taken
            break
        scores[:, partner] = -1
        if drivers_are_references:
            matches[partner] = driver
        else:
            matches[driver] = partner
    return matches


def _pair_identical(outputs: list[FrozenItem], references: list[FrozenItem]) -> dict[int, int]:
    references_by_content: dict[frozenset[tuple[str, Hashable]], deque[int]] = defaultdict(deque)
    for j, reference in enumerate(references):
        references_by_content[frozenset(reference)].append(j)
    matches: dict[int, int] = {}
    for i, output in enumerate(outputs):
        same = references_by_content.get(frozenset(output))
        if same:
            matches[i] = same.popleft()
    return matches
