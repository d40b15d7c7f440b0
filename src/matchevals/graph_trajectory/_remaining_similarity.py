"""The upper bounds of partial credit's search for supersteps: the shared engine's
(:mod:`matchevals._patterns`), computed from the similarities of supersteps and reference steps
(``_superstep``).

>>> from matchevals.graph_trajectory._reference import read_reference
>>> elements = read_reference({"steps": [["a"], ["b"]]}, "r").elements
>>> remaining_similarity([["b"], ["a"]], elements, 100).at(0, (0, 0, 0))[0]
1.0
"""

from __future__ import annotations

from collections.abc import Sequence

from matchevals._patterns import WEIGHTS, Elements, RemainingSimilarity
from matchevals._patterns import remaining_similarity as _remaining_similarity
from matchevals.graph_trajectory._reference import Step
from matchevals.graph_trajectory._superstep import COMPARATOR

__all__ = ["WEIGHTS", "RemainingSimilarity", "remaining_similarity"]


def remaining_similarity(
    supersteps: Sequence[Sequence[str]], elements: Elements[Step], limit: int
) -> RemainingSimilarity[Step] | None:
    """The bounds for ``supersteps`` against the pattern ``elements`` (None past ``limit``
    distinct pairs of contents)."""
    return _remaining_similarity(supersteps, elements, limit, COMPARATOR)
