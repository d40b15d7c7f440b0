"""Pairing the items of two lists: which output item is compared with which reference item.

``ordered`` pairs by index. The set modes pair items one to one:

- ``superset``: every reference item gets a distinct output item (extra outputs are ignored);
- ``subset``: every output item gets a distinct reference item (extra references are ignored);
- ``same_elements``: as ``subset``, and every reference item left over is reported unmatched.

``optimal`` alignment maximizes the total pair score with
``scipy.optimize.linear_sum_assignment``; ``greedy`` reproduces openevals' pairing: each driving
item in turn (outputs; references in ``superset`` mode) takes the free partner that scores best,
the first of equals. The result lists the pairs the aggregation counts, ``None`` on the side
where an item has no partner.

Two entry points:

- :func:`pair_items` pairs JSON objects by their keys (identical items by hashing, the rest by
  the share of equal keys, comparator scores included; see :mod:`._value_table`);
- :func:`pair_by_score` pairs any two lists given a score for each candidate pair, e.g. for
  sibling evaluators that compare their own kind of items.

numpy and scipy are imported only when a set mode has items to pair.

>>> pair_by_score(2, 2, lambda i, j: float(i != j), mode="same_elements")
[(0, 1), (1, 0)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from matchevals.json_match._options import Alignment, JsonMatchOptions, ListMatchMode
from matchevals.json_match._types import Pair

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from matchevals.json_match._value_table import ValueTable

__all__ = ["Pair", "arrange", "pair_by_score", "pair_items", "pair_with_options"]

Item = Mapping[str, Any]


def pair_by_score(
    n_outputs: int,
    n_references: int,
    score: Callable[[int, int], float],
    *,
    mode: ListMatchMode,
    alignment: Alignment = "optimal",
) -> list[Pair]:
    """Pair ``n_outputs`` items with ``n_references`` items given ``score(i, j)`` in [0, 1] for
    output ``i`` against reference ``j`` (called once per pair; not at all in ``ordered`` mode).

    >>> pair_by_score(3, 2, lambda i, j: float(i == j + 1), mode="superset")
    [(1, 0), (2, 1)]
    """
    if mode == "ordered":
        return ordered_pairs(n_outputs, n_references)
    matches: dict[int, int] = {}
    if n_outputs and n_references:
        import numpy as np

        scores = np.array(
            [[score(i, j) for j in range(n_references)] for i in range(n_outputs)],
            dtype=np.float64,
        )
        if alignment == "greedy":
            matches = greedy_matches(scores, drivers_are_references=mode == "superset")
        else:
            matches = best_matches(scores)
    return arrange(matches, n_outputs, n_references, mode)


def pair_items(
    outputs: Sequence[Item],
    references: Sequence[Item],
    *,
    mode: ListMatchMode,
    alignment: Alignment,
    all_or_nothing: bool,
    ignored_keys: frozenset[str],
    judged_keys: frozenset[str],
    comparators: Mapping[str, Any] | None = None,
    none_is_missing: bool = False,
    extra_ignored: bool = False,
    names: tuple[str, str] = ("outputs", "reference_outputs"),
    key_prefix: str | None = None,
) -> list[Pair]:
    """Pair two lists of JSON objects by their keys.

    ``all_or_nothing`` scores a candidate pair 1 only when every compared key is equal (for
    aggregator "all"); otherwise a pair scores the fraction of its keys that are equal. Judged
    (rubric) keys take no part in choosing partners. ``names`` and ``key_prefix`` place the
    items in error messages (``reference_outputs[3].city``): the items' keys are top-level keys
    when ``key_prefix`` is None, else paths below it.

    >>> pair_items([{"a": 2}, {"a": 1}], [{"a": 1}, {"a": 2}], mode="same_elements",
    ...            alignment="optimal", all_or_nothing=False, ignored_keys=frozenset(),
    ...            judged_keys=frozenset())
    [(0, 1), (1, 0)]
    """
    if mode == "ordered":
        return ordered_pairs(len(outputs), len(references))
    from matchevals.json_match._value_table import ValueTable

    table = ValueTable(
        outputs,
        references,
        ignored_keys,
        judged_keys,
        comparators=comparators,
        none_is_missing=none_is_missing,
        extra_ignored=extra_ignored,
        names=names,
        key_prefix=key_prefix,
    )
    if alignment == "greedy":
        matches = _greedy_item_matches(table, mode)
    else:
        matches = _optimal_item_matches(table, all_or_nothing)
    return arrange(matches, len(outputs), len(references), mode)


def pair_with_options(
    outputs: Sequence[Item],
    references: Sequence[Item],
    options: JsonMatchOptions,
    key_rules: tuple[frozenset[str], frozenset[str], Mapping[str, Any] | None],
    key_prefix: str | None = None,
) -> list[Pair]:
    """:func:`pair_items` as an evaluator's options say; ``key_rules`` is (excluded keys, judged
    keys, comparators by key) for these items."""
    ignored, judged, comparators = key_rules
    return pair_items(
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


def ordered_pairs(n_outputs: int, n_references: int) -> list[Pair]:
    """Index ``i`` with index ``i``; the longer list's tail has no partners."""
    return [
        (i if i < n_outputs else None, i if i < n_references else None)
        for i in range(max(n_outputs, n_references))
    ]


def arrange(matches: dict[int, int], n_outputs: int, n_references: int, mode: str) -> list[Pair]:
    """The pairs a set mode reports, from ``matches`` (output index -> reference index)."""
    if mode == "superset":
        output_of = {reference: output for output, reference in matches.items()}
        return [(output_of.get(j), j) for j in range(n_references)]
    pairs: list[Pair] = [(i, matches.get(i)) for i in range(n_outputs)]
    if mode == "same_elements":
        matched = set(matches.values())
        pairs.extend((None, j) for j in range(n_references) if j not in matched)
    return pairs


def best_matches(scores: NDArray[Any]) -> dict[int, int]:
    """The pairing of rows with columns of the largest total score (output -> reference).

    ``scores`` is used up: negated in place, so a 3000 × 3000 matrix is not copied.
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    row_indices, column_indices = linear_sum_assignment(np.negative(scores, out=scores))
    return dict(zip(row_indices.tolist(), column_indices.tolist(), strict=True))


def greedy_matches(scores: NDArray[Any], drivers_are_references: bool) -> dict[int, int]:
    """openevals' pairing: each driver in index order takes the free partner with the highest
    score (the first of equals). ``scores`` holds non-negative values, rows are outputs."""
    import numpy as np

    by_driver = scores.T.copy() if drivers_are_references else scores.copy()
    matches: dict[int, int] = {}
    for driver in range(by_driver.shape[0]):
        row = by_driver[driver]
        partner = int(np.argmax(row))
        if row[partner] < 0:  # every partner is taken
            break
        by_driver[:, partner] = -1
        if drivers_are_references:
            matches[partner] = driver
        else:
            matches[driver] = partner
    return matches


def _optimal_item_matches(table: ValueTable, all_or_nothing: bool) -> dict[int, int]:
    """Maximum total pair score; identical items pair first (this never lowers the optimum)."""
    import numpy as np

    matches = table.identical_matches()
    paired_references = set(matches.values())
    rest_outputs = [i for i in range(table.n_outputs) if i not in matches]
    rest_references = [j for j in range(table.n_references) if j not in paired_references]
    if not rest_outputs or not rest_references:
        return matches
    similarity = table.similarity(rest_outputs, rest_references)
    # Among equally good pairings prefer the one with more equal keys; the bonus summed over a
    # whole pairing stays below 1e-7, far under any real difference of pair scores.
    bonus = 1e-7 / ((similarity.n_keys + 1) * (min(len(rest_outputs), len(rest_references)) + 1))
    scores = np.empty((len(rest_outputs), len(rest_references)), dtype=np.float64)
    for rows, equal, compared_keys in similarity.blocks():
        if all_or_nothing:
            block = (equal >= compared_keys).astype(np.float64)
        else:
            block = np.divide(
                equal,
                compared_keys,
                out=np.ones(equal.shape, dtype=np.float64),
                where=compared_keys > 0,
            )
        block += equal * bonus
        scores[rows] = block
    for row, column in best_matches(scores).items():
        matches[rest_outputs[row]] = rest_references[column]
    return matches


def _greedy_item_matches(table: ValueTable, mode: str) -> dict[int, int]:
    """openevals' pairing by the number of equal keys.

    In ``same_elements`` mode openevals first tries to pair every output with an identical
    reference (ignoring judged keys) and keeps that pairing only if it covers both lists entirely.
    """
    if mode == "same_elements" and table.n_outputs == table.n_references:
        exact = table.identical_matches(compared_only=True)
        if len(exact) == table.n_outputs:
            return exact
    if not table.n_outputs or not table.n_references:
        return {}
    equal = table.similarity(range(table.n_outputs), range(table.n_references)).equal_matrix()
    return greedy_matches(equal, drivers_are_references=mode == "superset")
