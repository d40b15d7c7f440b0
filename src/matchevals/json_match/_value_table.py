"""Two lists of JSON items as one numpy matrix of value codes, and pair similarity in blocks.

What :mod:`._pairing` needs to pair list items by their keys: a :class:`ValueTable` holds a row
per item and a column per key (equal codes in a column mean JSON-equal values, by
:func:`~matchevals._values.freeze`), pairs identical items by hashing their rows, and gives the
:class:`Similarity` of every output/reference pair (equal keys, compared keys, comparator scores)
block by block, never with a Python loop over pairs. numpy is imported with this module, which is
imported only when list items are paired.

>>> table = ValueTable([{"a": 1}, {"a": 2}], [{"a": 2}], frozenset(), frozenset())
>>> table.identical_matches()
{1: 0}
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Hashable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from matchevals._path_text import child_path, join_path
from matchevals._values import freeze
from matchevals.json_match._compare import checked_score

__all__ = ["Similarity", "ValueTable"]

Item = Mapping[str, Any]


class ValueTable:
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
        key_prefix: str | None = None,
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

    def similarity(self, output_rows: Sequence[int], reference_rows: Sequence[int]) -> Similarity:
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
        return Similarity(
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
        if self.key_prefix is None:  # the items' own keys
            return child_path(base, key) if key else base
        if key.startswith(self.key_prefix):
            key = key[len(self.key_prefix) :]
        return join_path(base, key)

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

    def identical_matches(self, compared_only: bool = False) -> dict[int, int]:
        """Each output paired with the first unused identical reference, in index order."""
        cells = self.rows(compared_only)
        return _pair_identical(cells[: self.n_outputs], cells[self.n_outputs :])


class Similarity:
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
        self.references = np.where(references == ValueTable.MISSING, -2, references)

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
