"""Pairing list items of outputs with list items of references.

``ordered`` pairs by index. The set modes pair items one to one:

- ``superset``: every reference item gets a distinct output item (extra outputs are ignored);
- ``subset``: every output item gets a distinct reference item (extra references are ignored);
- ``same_elements``: as ``subset``, and every reference item left over is reported unmatched.

``optimal`` alignment pairs identical items by hashing, then solves the rest as an assignment
problem (``scipy.optimize.linear_sum_assignment``) on a similarity matrix built with numpy in
blocks of rows, never with a Python loop over pairs. ``greedy`` reproduces openevals' pairing: each
driving item in turn takes the first free partner with the most equal keys.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from matchevals._values import freeze
from matchevals.json_match._options import Alignment, ListMatchMode

__all__ = ["Pair", "align_items", "checked_score"]

Pair = tuple[int | None, int | None]
"""``(output_index, reference_index)``; ``None`` on the side where an item has no partner."""

Item = Mapping[str, Any]


def checked_score(
    comparator: Any,
    output_value: Any,
    reference_value: Any,
    path: str,
    where: Callable[[], str],
) -> float:
    """Call a comparator and check its answer: a bool, or a number in [0, 1].

    Raises ValueError naming the path (and, through ``where``, the values' locations).
    """
    try:
        result = comparator(output_value, reference_value)
    except Exception as error:
        raise ValueError(
            f"the comparator for {path!r} failed at {where()}: {type(error).__name__}: {error}"
        ) from error
    if result is True:
        return 1.0
    if result is False:
        return 0.0
    result_type = type(result)
    if result_type is float or result_type is int or isinstance(result, (int, float)):
        number = float(result)
        if 0.0 <= number <= 1.0:
            return number
        problem = "outside [0, 1]"
    else:
        problem = f"a {result_type.__name__}"
    raise ValueError(
        f"the comparator for {path!r} returned {result!r} at {where()}: {problem}; "
        "expected a bool or a number in [0, 1]"
    )


def align_items(
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
    key_prefix: str = "",
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
    table = _ValueTable(
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
        matches = _greedy_matches(table, mode)
    else:
        matches = _optimal_matches(table, all_or_nothing)
    return _arrange(matches, n_outputs, n_references, mode)


class _ValueTable:
    """Both lists as one dense int32 matrix: a row per item, a column per key.

    A cell holds a code for the item's value under that key (equal codes in a column mean
    JSON-equal values) or -1 where the item lacks the key. Rows 0..n_outputs-1 are the outputs.
    """

    MISSING = -1

    def __init__(
        self,
        outputs: Sequence[Item],
        references: Sequence[Item],
        ignored_keys: frozenset[str],
        judged_keys: frozenset[str],
        *,
        comparators: Mapping[str, Any] | None = None,
        none_is_missing: bool = False,
        extra_ignored: bool = False,
        names: tuple[str, str] = ("outputs", "reference_outputs"),
        key_prefix: str = "",
    ) -> None:
        columns: dict[str, int] = {}
        for item in (*outputs, *references):
            for key in item:
                if key not in ignored_keys and key not in columns:
                    columns[key] = len(columns)
        self.n_outputs = len(outputs)
        self.names = names
        self.key_prefix = key_prefix
        self.extra_ignored = extra_ignored
        self.cells = np.full(
            (len(outputs) + len(references), max(len(columns), 1)), self.MISSING, dtype=np.int32
        )
        value_codes: list[dict[Hashable, int]] = [{} for _ in columns]
        # Comparator columns also keep each code's value (the first seen) to call the comparator.
        self.comparators: dict[int, tuple[str, Any, list[Any]]] = {
            columns[key]: (key, comparator, [])
            for key, comparator in (comparators or {}).items()
            if key in columns and key not in judged_keys
        }
        for row, item in enumerate((*outputs, *references)):
            cells = self.cells[row]
            for key, value in item.items():
                column = columns.get(key)
                if column is None or (none_is_missing and value is None):
                    continue
                try:
                    frozen = freeze(value)
                except TypeError as error:
                    raise TypeError(f"{self.where(row, key)}: {error}") from None
                codes = value_codes[column]
                code = codes.get(frozen)
                if code is None:
                    code = codes[frozen] = len(codes)
                    if column in self.comparators:
                        self.comparators[column][2].append(value)
                cells[column] = code
        self.compared_columns = [
            column for key, column in columns.items() if key not in judged_keys
        ]
        self.has_judged_columns = len(self.compared_columns) < len(columns)
        self.exact_columns = [
            column for column in self.compared_columns if column not in self.comparators
        ]

    def similarity(self, output_rows: Sequence[int], reference_rows: Sequence[int]) -> _Similarity:
        """Pair similarity of the given output rows and reference rows (compared keys only)."""
        compared = self.rows(compared_only=True)
        outputs = compared[list(output_rows)]
        references = compared[[self.n_outputs + j for j in reference_rows]]
        exact = None
        if self.comparators:
            exact = np.array(
                [column not in self.comparators for column in self.compared_columns]
                if self.has_judged_columns
                else [column not in self.comparators for column in range(self.cells.shape[1])],
                dtype=bool,
            )
        return _Similarity(
            outputs,
            references,
            exact,
            self.comparator_scores(output_rows, reference_rows),
            self.extra_ignored,
        )

    def _pair_where(self, output_row: int, reference_row: int, key: str) -> str:
        return f"{self.where(output_row, key)} vs {self.where(self.n_outputs + reference_row, key)}"

    def where(self, row: int, key: str = "") -> str:
        """The location of a row's key in messages, e.g. ``reference_outputs[3].city``."""
        if row < self.n_outputs:
            base = f"{self.names[0]}[{row}]"
        else:
            base = f"{self.names[1]}[{row - self.n_outputs}]"
        if key.startswith(self.key_prefix):
            key = key[len(self.key_prefix) :]
        if not key:
            return base
        return base + (key if key.startswith((".", "[")) else "." + key)

    def comparator_scores(
        self, output_rows: Sequence[int], reference_rows: Sequence[int]
    ) -> NDArray[np.float64] | None:
        """Summed comparator scores per output/reference row pair, or None without comparators.

        Each distinct pair of values is compared once; equal codes score 1, a side without the
        key scores 0.
        """
        if not self.comparators:
            return None
        total = np.zeros((len(output_rows), len(reference_rows)), dtype=np.float64)
        for column, (key, comparator, values) in self.comparators.items():
            out_codes = self.cells[list(output_rows), column]
            ref_codes = self.cells[[self.n_outputs + j for j in reference_rows], column]
            unique_out, out_first, out_inverse = np.unique(
                out_codes, return_index=True, return_inverse=True
            )
            unique_ref, ref_first, ref_inverse = np.unique(
                ref_codes, return_index=True, return_inverse=True
            )
            table = np.zeros((len(unique_out), len(unique_ref)), dtype=np.float64)
            ref_pairs = list(zip(unique_ref.tolist(), ref_first.tolist(), strict=True))
            for a, (out_code, out_at) in enumerate(
                zip(unique_out.tolist(), out_first.tolist(), strict=True)
            ):
                if out_code < 0:
                    continue
                out_value = values[out_code]
                for b, (ref_code, ref_at) in enumerate(ref_pairs):
                    if ref_code < 0:
                        continue
                    if out_code == ref_code:
                        table[a, b] = 1.0
                        continue
                    table[a, b] = checked_score(
                        comparator,
                        out_value,
                        values[ref_code],
                        key,
                        partial(self._pair_where, output_rows[out_at], reference_rows[ref_at], key),
                    )
            total += table[np.ix_(out_inverse.ravel(), ref_inverse.ravel())]
        return total

    @property
    def n_references(self) -> int:
        return len(self.cells) - self.n_outputs

    def rows(self, compared_only: bool = False) -> NDArray[np.int32]:
        if compared_only and self.has_judged_columns:
            return self.cells[:, self.compared_columns]
        return self.cells


def _arrange(matches: dict[int, int], n_outputs: int, n_references: int, mode: str) -> list[Pair]:
    if mode == "superset":
        output_of = {reference: output for output, reference in matches.items()}
        return [(output_of.get(j), j) for j in range(n_references)]
    pairs: list[Pair] = [(i, matches.get(i)) for i in range(n_outputs)]
    if mode == "same_elements":
        matched = set(matches.values())
        pairs.extend((None, j) for j in range(n_references) if j not in matched)
    return pairs


def _pair_identical(outputs: NDArray[np.int32], references: NDArray[np.int32]) -> dict[int, int]:
    """Pair each output row with the first unused identical reference row, in index order."""
    references_by_content: dict[bytes, deque[int]] = defaultdict(deque)
    for j, row in enumerate(references):
        references_by_content[row.tobytes()].append(j)
    matches: dict[int, int] = {}
    for i, row in enumerate(outputs):
        same = references_by_content.get(row.tobytes())
        if same:
            matches[i] = same.popleft()
    return matches


def _optimal_matches(table: _ValueTable, all_or_nothing: bool) -> dict[int, int]:
    """Maximum total pair score; identical items pair first (this never lowers the optimum)."""
    cells = table.rows()
    matches = _pair_identical(cells[: table.n_outputs], cells[table.n_outputs :])
    paired_references = set(matches.values())
    rest_outputs = [i for i in range(table.n_outputs) if i not in matches]
    rest_references = [j for j in range(table.n_references) if j not in paired_references]
    if not rest_outputs or not rest_references:
        return matches
    similarity = table.similarity(rest_outputs, rest_references)
    # Among equally good pairings prefer the one with more equal keys; the bonus summed over a
    # whole pairing stays below 1e-7, far under any real difference of pair scores.
    bonus = 1e-7 / ((similarity.n_keys + 1) * (min(len(rest_outputs), len(rest_references)) + 1))
    costs = np.empty((len(rest_outputs), len(rest_references)), dtype=np.float64)
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
        np.negative(block, out=costs[rows])  # minimizing the negation maximizes the score
    row_indices, column_indices = linear_sum_assignment(costs)
    for row, column in zip(row_indices.tolist(), column_indices.tolist(), strict=True):
        matches[rest_outputs[row]] = rest_references[column]
    return matches


class _Similarity:
    """Per output/reference pair: the summed key scores and how many keys are compared.

    A key is compared when either item has it (only when the reference has it, if extra keys are
    ignored), and scores 1 when both items have it with equal values; comparator keys add their
    scores from ``extra``. Pairs are compared in blocks of rows with numpy, never with a Python
    loop over pairs, and in bounded memory.
    """

    _BLOCK_ELEMENTS = 1 << 18

    def __init__(
        self,
        outputs: NDArray[np.int32],
        references: NDArray[np.int32],
        exact: NDArray[np.bool_] | None = None,
        extra: NDArray[np.float64] | None = None,
        extra_ignored: bool = False,
    ) -> None:
        self.n_keys = outputs.shape[1]
        self.extra = extra
        self.extra_ignored = extra_ignored
        self.output_has = (outputs >= 0).astype(np.float32)
        self.reference_has = (references >= 0).astype(np.float32)
        if exact is not None:
            outputs, references = outputs[:, exact], references[:, exact]
        self.outputs = outputs
        # A missing key must never count as equal: give the two sides different markers.
        self.references = np.where(references == _ValueTable.MISSING, -2, references)

    def blocks(self) -> Iterator[tuple[slice, NDArray[Any], NDArray[np.int32]]]:
        n_outputs, n_references = len(self.outputs), len(self.references)
        step = max(1, self._BLOCK_ELEMENTS // max(1, n_references * max(self.n_keys, 1)))
        output_counts = self.output_has.sum(axis=1)
        reference_counts = self.reference_has.sum(axis=1)
        for start in range(0, n_outputs, step):
            rows = slice(start, min(start + step, n_outputs))
            equal: NDArray[Any] = (self.outputs[rows, None, :] == self.references[None, :, :]).sum(
                axis=2, dtype=np.int32
            )
            if self.extra is not None:
                equal = equal + self.extra[rows]
            if self.extra_ignored:
                compared = np.broadcast_to(
                    reference_counts[None, :], (rows.stop - rows.start, n_references)
                )
            else:
                common = self.output_has[rows] @ self.reference_has.T
                compared = output_counts[rows, None] + reference_counts[None, :] - common
            yield rows, equal, compared.astype(np.int32)

    def equal_matrix(self) -> NDArray[Any]:
        dtype = np.int32 if self.extra is None else np.float64
        equal = np.empty((len(self.outputs), len(self.references)), dtype=dtype)
        for rows, block, _ in self.blocks():
            equal[rows] = block
        return equal


def _greedy_matches(table: _ValueTable, mode: str) -> dict[int, int]:
    """openevals' pairing: drivers in index order take the first free partner with most equal keys.

    In ``same_elements`` mode openevals first tries to pair every output with an identical
    reference (ignoring judged keys) and keeps that pairing only if it covers both lists entirely.
    """
    compared = table.rows(compared_only=True)
    outputs, references = compared[: table.n_outputs], compared[table.n_outputs :]
    if mode == "same_elements" and len(outputs) == len(references):
        exact = _pair_identical(outputs, references)
        if len(exact) == len(outputs):
            return exact
    if not len(outputs) or not len(references):
        return {}
    equal = table.similarity(range(len(outputs)), range(len(references))).equal_matrix()
    drivers_are_references = mode == "superset"
    scores = equal.T.copy() if drivers_are_references else equal
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
