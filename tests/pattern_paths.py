"""Every path a small pattern allows, and every in-order alignment, by enumeration: the half of
the exhaustive oracles that graph runs and turn patterns share (each oracle reads its own steps
and brings its own similarity). Written from the documented definition, not the production code.

A path takes each optional step or leaves it out and runs each Repeat every allowed number of
times; a Repeat without ``max`` runs at most ``max(min, items) + 1`` times: past ``min``, an
iteration with no pair can be dropped without lowering the score (the path gets shorter, the
pairs stay), so more iterations than pairs never help.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar

from matchevals.graph_trajectory import Repeat

Step = TypeVar("Step", bound=Hashable)
ReadStep = Callable[[Any, str], tuple[Step, bool]]
"""One pattern item at its path: the oracle's step, and whether it is optional."""


def _one_pass(items: Sequence[Any], path: str, read: ReadStep[Step]) -> set[tuple[Step, ...]]:
    """Every way through ``items`` once (optional steps present or absent)."""
    found: set[tuple[Step, ...]] = {()}
    for index, item in enumerate(items):
        step, optional = read(item, f"{path}[{index}]")
        grown = {(*prefix, step) for prefix in found}
        found = grown | found if optional else grown
    return found


def paths(
    pattern: Sequence[Any], items: int, read: ReadStep[Step], base: str
) -> set[tuple[Step, ...]]:
    """Every path ``pattern`` allows against ``items`` output items; ``base`` is the pattern's
    path (``reference_outputs.steps``)."""
    found: set[tuple[Step, ...]] = {()}
    for index, item in enumerate(pattern):
        path = f"{base}[{index}]"
        if not isinstance(item, Repeat):
            step, optional = read(item, path)
            grown = {(*prefix, step) for prefix in found}
            found = grown | found if optional else grown
            continue
        once = _one_pass(list(item.steps), f"{path}.steps", read)
        most = item.max if item.max is not None else max(item.min, items) + 1
        blocks: set[tuple[Step, ...]] = set()
        repeated: set[tuple[Step, ...]] = {()}
        for count in range(most + 1):
            if count >= item.min:
                blocks |= repeated
            repeated = {prefix + body for prefix in repeated for body in once}
        found = {prefix + block for prefix in found for block in blocks}
    return found


def alignments(left: int, right: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every order-preserving pairing of ``left`` items with ``right`` steps."""
    for size in range(min(left, right) + 1):
        for chosen in itertools.combinations(range(left), size):
            for targets in itertools.combinations(range(right), size):
                yield tuple(zip(chosen, targets, strict=True))
