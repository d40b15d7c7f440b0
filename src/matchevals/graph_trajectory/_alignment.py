"""The best alignment of a run of supersteps to a reference with patterns: the shared engine's
best-first search (:mod:`matchevals._patterns`) over node-name supersteps (``_superstep``).

The score of an alignment is ``S / max(n, L)`` over every path the pattern allows, see
:func:`~matchevals._patterns.alignment_score`.

>>> from matchevals.graph_trajectory._reference import read_reference
>>> elements = read_reference({"steps": [{"repeat": [["a"]], "min": 0}]}, "r").elements
>>> [pair["score"] for pair in align_pattern([["a"], ["a", "b"]], elements, None)]
[1.0, 0.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matchevals._patterns import (
    LOOSE_BOUND_BUDGET,
    Alignment,
    Elements,
    alignment_score,
    pair_record,
)
from matchevals._patterns import align_pattern as _align_pattern
from matchevals.graph_trajectory._reference import Step
from matchevals.graph_trajectory._superstep import COMPARATOR

__all__ = ["Alignment", "align_pattern", "alignment_score", "pair_record"]

_LOOSE_BOUND_BUDGET = LOOSE_BOUND_BUDGET
"""Entries queued per superstep and reference element before the search computes its tighter
bounds; read at each call, so tests may lower it to exercise those bounds from the start."""


def align_pattern(
    steps: Sequence[Sequence[str]], elements: Elements[Step], results: float | None
) -> list[dict[str, Any]]:
    """The pairs of a best alignment of ``steps`` to the pattern ``elements``."""
    return _align_pattern(steps, elements, results, COMPARATOR, _LOOSE_BOUND_BUDGET)
