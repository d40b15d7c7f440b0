"""Partial credit: the best alignment of a run's supersteps to its reference's steps.

An alignment pairs supersteps with the steps of one reference path in order; the rest are gaps.
With a pattern the path is chosen too: each optional step present or absent, each Repeat run
between its ``min`` and ``max``. The score is the summed similarity of the pairs (see
``_superstep``) over the longer of the run and the path, ``S / max(n, L)``, maximized over every
path and alignment; it is 1.0 exactly when the strict match passes. With results compared they
count as one more aligned item: ``(S + r) / (max(n, L) + 1)``, maximized as such.

A reference with patterns goes to :func:`~matchevals.graph_trajectory._alignment.align_pattern`
(exact Pareto frontiers over (superstep, position)). A reference without patterns has one path,
so the best alignment is the most similar one: it takes the fast path, trimmed of its matching
prefix and suffix and filled as a numpy table (see ``_align_plain``), with the same score as the
general alignment (``tests/graph_trajectory/test_fast_paths.py`` checks it against
``partial_credit(..., fast=False)`` on random inputs). Past ``CELL_LIMIT`` / ``DISTINCT_LIMIT``
(no patterns) or the pattern engine's ``PATTERN_CELL_LIMIT`` (patterns), partial credit is a
``ValueError`` instead of minutes of work.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from matchevals._patterns import check_alignment_size
from matchevals.graph_trajectory._alignment import Alignment, align_pattern, pair_record
from matchevals.graph_trajectory._reference import Loop, Reference, Step
from matchevals.graph_trajectory._superstep import matches, similarity_table

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Alignment", "partial_credit"]

_GAP = 0.5
CELL_LIMIT = 25_000_000
"""Most (superstep, reference step) cells a reference without patterns may align, after the
matching prefix and suffix are trimmed (25 MB of back-pointers)."""
DISTINCT_LIMIT = 1_000_000
"""Most distinct (superstep, reference step) contents whose similarity is computed."""


def partial_credit(
    steps: Sequence[Sequence[str]],
    reference: Reference,
    *,
    results: float | None = None,
    fast: bool = True,
) -> Alignment:
    """Score one validated run against its validated reference; ``results`` is the score of the
    run's results when they count as one more item (``fast=False``: always the general
    alignment, the oracle of the fast path's tests).

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["b"]]}, {"steps": [["a"], ["b"], ["c"]]})[0]
    >>> partial_credit(pair.steps, pair.reference).score
    0.6666666666666666
    """
    elements = reference.elements
    count = len(steps)
    if not fast or reference.has_patterns:
        check_alignment_size(
            count, elements, steps="supersteps", pattern="a reference pattern", runs="runs"
        )
        return Alignment.of(align_pattern(steps, elements, results), count, results)
    head = 0
    limit = min(count, len(elements))
    while head < limit and _same(steps[head], elements[head]):
        head += 1
    tail = 0
    while tail < limit - head and _same(steps[-1 - tail], elements[-1 - tail]):
        tail += 1
    middle_elements = elements[head : len(elements) - tail]
    pairs = [pair_record(index, elements[index], 1.0) for index in range(head)]
    pairs += _align_plain(
        steps[head : count - tail], [e for e in middle_elements if isinstance(e, Step)], head
    )
    for offset in range(tail, 0, -1):
        pairs.append(pair_record(count - offset, elements[len(elements) - offset], 1.0))
    return Alignment.of(pairs, count, results)


def _align_plain(
    steps: Sequence[Sequence[str]], elements: Sequence[Step], offset: int
) -> list[dict[str, Any]]:
    """The pairs of the best alignment to a reference without patterns, as a table filled row
    by row with numpy.

    Every reference step is required, so an alignment's cost is ``(n + m) / 2`` minus its summed
    similarity, and the cheapest one is the most similar. ``D[i][j]``, the cheapest way to use
    ``i`` supersteps and ``j`` reference steps, is the best of a pair ``D[i-1][j-1] + 1 - s``, a
    superstep left out ``D[i-1][j] + 1/2`` and a reference step left out ``D[i][j-1] + 1/2``; the
    last is a running minimum along the row (``np.minimum.accumulate``). Ties prefer the pair,
    then leaving out the superstep. Time O(n × m) in C, plus one similarity per distinct
    (superstep, reference step) content; inputs past ``CELL_LIMIT`` or ``DISTINCT_LIMIT`` are a
    ``ValueError`` rather than minutes of work.
    """
    import numpy as np

    n, m = len(steps), len(elements)
    if n * m > CELL_LIMIT:
        raise ValueError(
            f"partial credit would align {n} supersteps with {m} reference steps that differ "
            f"({n * m:,} cells, more than {CELL_LIMIT:,}); use strict matching for runs this long"
        )
    table, rows, columns = _similarity_table(steps, elements)
    skips = np.arange(m + 1) * _GAP
    previous = skips.copy()
    moves = np.empty((n, m + 1), dtype=np.uint8)  # 0 pair, 1 superstep left out, 2 step left out
    diagonal = np.empty(m + 1)
    diagonal[0] = np.inf
    for index in range(n):
        diagonal[1:] = previous[:-1] + (1.0 - table[rows[index], columns])
        up = previous + _GAP
        best = np.minimum(diagonal, up)
        shifted = best - skips
        running = np.minimum.accumulate(shifted)
        left = running < shifted
        moves[index] = np.where(left, 2, np.where(diagonal <= up, 0, 1))
        previous = np.where(left, running + skips, best)
    return _plain_pairs(moves, table, rows, columns, elements, offset)


def _similarity_table(
    steps: Sequence[Sequence[str]], elements: Sequence[Step]
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """``similarity_table`` within ``DISTINCT_LIMIT``, else a ``ValueError``."""
    table, rows, columns = similarity_table(steps, elements, DISTINCT_LIMIT)
    if table is not None:
        return table, rows, columns
    raise ValueError(
        f"partial credit would compare {_distinct(rows)} distinct supersteps with "
        f"{_distinct(columns)} distinct reference steps (more than {DISTINCT_LIMIT:,} pairs); "
        "use strict matching for runs this long"
    )


def _distinct(ids: NDArray[Any]) -> int:
    return int(ids.max()) + 1 if len(ids) else 0


def _plain_pairs(
    moves: NDArray[Any],
    table: NDArray[Any],
    rows: NDArray[Any],
    columns: NDArray[Any],
    elements: Sequence[Step],
    offset: int,
) -> list[dict[str, Any]]:
    """The alignment's pairs, followed back from the table's last cell."""
    pairs: list[dict[str, Any]] = []
    i, j = len(moves), len(elements)
    while i or j:
        move = 2 if i == 0 else moves[i - 1, j]
        if move == 0:
            score = float(table[rows[i - 1], columns[j - 1]])
            pairs.append(pair_record(i - 1 + offset, elements[j - 1], score))
            i, j = i - 1, j - 1
        elif move == 1:
            pairs.append(pair_record(i - 1 + offset, None, 0.0))
            i -= 1
        else:
            pairs.append(pair_record(None, elements[j - 1], 0.0))
            j -= 1
    pairs.reverse()
    return pairs


def _same(actual: Sequence[str], step: Step | Loop[Step]) -> bool:
    return isinstance(step, Step) and matches(actual, step.nodes, step.mode)
