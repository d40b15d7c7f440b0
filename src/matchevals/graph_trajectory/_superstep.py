"""One superstep against one reference step: match, partial score, and what differs.

Nodes are multisets: a ``Send`` fan-out that runs ``worker`` three times is
``["worker", "worker", "worker"]`` and the counts matter in every mode. A reference node ``"*"``
stands for any one node.

Partial scores (1.0 exactly when the step matches):

- ``unordered``: multiset Jaccard, |actual ∩ expected| / |actual ∪ expected|;
- ``subset``: the share of the actual nodes the reference allows;
- ``superset``: the share of the reference nodes that ran;
- ``exact``: longest common subsequence / the longer length.

Two empty steps score 1.0; wildcards are filled by actual nodes that matched no named node.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from matchevals._patterns import Comparator
from matchevals.graph_trajectory._reference import WILDCARD, Step
from matchevals.graph_trajectory._types import GraphTrajectoryMatchMode

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "COMPARATOR",
    "Difference",
    "difference",
    "matches",
    "similarity",
    "similarity_table",
]

Difference = tuple[list[str], list[str]]


def matches(actual: Sequence[str], expected: Sequence[str], mode: GraphTrajectoryMatchMode) -> bool:
    """Whether ``actual`` meets ``expected`` in ``mode``.

    >>> matches(["b", "a"], ["a", "b"], "unordered"), matches(["a", "a"], ["a"], "subset")
    (True, False)
    """
    if actual == expected:
        return True
    if mode == "exact":
        return len(actual) == len(expected) and all(
            want == WILDCARD or got == want for got, want in zip(actual, expected, strict=True)
        )
    if WILDCARD not in expected:
        if mode == "unordered":
            return len(actual) == len(expected) and sorted(actual) == sorted(expected)
        if mode == "subset":
            return len(actual) <= len(expected) and not Counter(actual) - Counter(expected)
        return len(actual) >= len(expected) and not Counter(expected) - Counter(actual)
    return similarity(actual, expected, mode) == 1.0


def _overlap(actual: Sequence[str], expected: Sequence[str]) -> tuple[int, int, Counter[str]]:
    """(nodes paired with a named or wildcard reference node, wildcards, unpaired named nodes)."""
    named = Counter(expected)
    wildcards = named.pop(WILDCARD, 0)
    unpaired = named - Counter(actual)
    shared = len(expected) - wildcards - sum(unpaired.values())
    return shared + min(wildcards, len(actual) - shared), wildcards, unpaired


def similarity(
    actual: Sequence[str], expected: Sequence[str], mode: GraphTrajectoryMatchMode
) -> float:
    """A score in [0, 1] for how well ``actual`` meets ``expected``; 1.0 exactly when it matches.

    >>> similarity(["a", "b"], ["a", "c"], "unordered")
    0.3333333333333333
    """
    if mode == "exact":
        longest = max(len(actual), len(expected))
        return 1.0 if longest == 0 else _common_subsequence(actual, expected) / longest
    paired, _, _ = _overlap(actual, expected)
    if mode == "unordered":
        union = len(actual) + len(expected) - paired
        return 1.0 if union == 0 else paired / union
    if mode == "subset":
        return 1.0 if not actual else paired / len(actual)
    return 1.0 if not expected else paired / len(expected)


def similarity_table(
    supersteps: Sequence[Sequence[str]], steps: Sequence[Step], limit: int
) -> tuple[NDArray[Any] | None, NDArray[Any], NDArray[Any]]:
    """One similarity per distinct (superstep, reference step) content, each superstep's row and
    each reference step's column in that table (None past ``limit`` distinct pairs: nothing is
    computed).

    >>> step = Step(["a"], "unordered", False, "r")
    >>> table, rows, columns = similarity_table([["a"], ["b"], ["a"]], [step], 10)
    >>> table[rows, columns[0]].tolist()
    [1.0, 0.0, 1.0]
    """
    import numpy as np

    row_ids: dict[tuple[str, ...], int] = {}
    rows = np.fromiter(
        (row_ids.setdefault(tuple(actual), len(row_ids)) for actual in supersteps),
        np.intp,
        len(supersteps),
    )
    column_ids: dict[tuple[tuple[str, ...], GraphTrajectoryMatchMode], int] = {}
    columns = np.fromiter(
        (column_ids.setdefault((tuple(step.nodes), step.mode), len(column_ids)) for step in steps),
        np.intp,
        len(steps),
    )
    if len(row_ids) * len(column_ids) > limit:
        return None, rows, columns
    table = np.empty((len(row_ids), len(column_ids)))
    for actual, row in row_ids.items():
        for (nodes, mode), column in column_ids.items():
            table[row, column] = similarity(actual, nodes, mode)
    return table, rows, columns


_MASK_BITS = 1 << 28  # at most 32 MB of cached bit masks per comparison


def _common_subsequence(actual: Sequence[str], expected: Sequence[str]) -> int:
    """The length of a longest common subsequence (``"*"`` in ``expected`` matches any node).

    Bit-parallel (Allison-Dix / Hyyrö): one big-integer update per actual node, so two steps of
    100,000 nodes take about a second instead of hours of cell-by-cell dynamic programming.
    The bit mask of a node name's positions is cached within a memory budget, else rebuilt.
    """
    if not actual or not expected:
        return 0
    positions: dict[str, list[int]] = {}
    wildcards = 0
    for index, want in enumerate(expected):
        if want == WILDCARD:
            wildcards |= 1 << index
        else:
            positions.setdefault(want, []).append(index)
    cache: dict[str, int] = {}
    budget = _MASK_BITS
    full = (1 << len(expected)) - 1
    row = full  # a 0 bit marks where the common subsequence grew
    for got in actual:
        mask = cache.get(got)
        if mask is None:
            mask = wildcards
            for index in positions.get(got, ()):
                mask |= 1 << index
            if budget >= len(expected):
                cache[got] = mask
                budget -= len(expected)
        match = row & mask
        row = ((row + match) | (row - match)) & full
    return len(expected) - row.bit_count()


def difference(
    actual: Sequence[str], expected: Sequence[str], mode: GraphTrajectoryMatchMode
) -> Difference:
    """(missing, extra) node names for a step that did not match; wildcards show as ``"*"``.

    ``subset`` reports only extra nodes and ``superset`` only missing ones; ``exact`` with the
    same nodes in another order reports neither.

    >>> difference(["a", "a"], ["a", "b"], "unordered")
    (['b'], ['a'])
    """
    named = Counter(expected)
    wildcards = named.pop(WILDCARD, 0)
    leftover = sorted((Counter(actual) - named).elements())
    absorbed = min(wildcards, len(leftover))
    missing = sorted((named - Counter(actual)).elements()) + [WILDCARD] * (wildcards - absorbed)
    extra = leftover[absorbed:]
    if mode == "subset":
        return [], extra
    if mode == "superset":
        return missing, []
    return missing, extra


def _step_matches(actual: Sequence[str], step: Step) -> bool:
    return matches(actual, step.nodes, step.mode)


def _step_similarity(actual: Sequence[str], step: Step) -> float:
    return similarity(actual, step.nodes, step.mode)


def _step_difference(actual: Sequence[str] | None, step: Step) -> Difference:
    if actual is None:  # the run ended: the step's nodes are missing, as written
        return list(step.nodes), []
    return difference(actual, step.nodes, step.mode)


def _step_content(step: Step) -> tuple[tuple[str, ...], str]:
    return tuple(step.nodes), step.mode


COMPARATOR: Comparator[Sequence[str], Step] = Comparator(
    _step_matches, _step_similarity, _step_difference, _step_content, similarity_table
)
"""Supersteps of node names against reference steps, for the shared pattern engine.

>>> COMPARATOR.similarity(["a", "b"], Step(["a"], "superset", False, "r"))
1.0
"""
