"""Every path a small pattern allows, every in-order alignment and a step's similarity, by
enumeration: what the exhaustive oracles of graph runs and turn patterns share (each reads its
own steps and says when one item fits another: a node name, a tool call). Written from the
documented definition, not the production code.

A path takes each optional step or leaves it out and runs each Repeat every allowed number of
times; a Repeat without ``max`` runs at most ``max(min, items) + 1`` times: past ``min``, an
iteration with no pair can be dropped without lowering the score (the path gets shorter, the
pairs stay), so more iterations than pairs never help.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar

from matchevals.graph_trajectory import Repeat

Step = TypeVar("Step", bound=Hashable)
ReadStep = Callable[[Any, str], tuple[Step, bool]]
"""One pattern item at its path: the oracle's step, and whether it is optional."""
Fits = Callable[[Any, Any], bool]
"""Whether an actual item fits an expected one."""


def most_pairs(actual: Sequence[Any], expected: Sequence[Any], fits: Fits) -> int:
    """The most one-to-one pairs of fitting items, by trying every assignment."""
    for size in range(min(len(actual), len(expected)), 0, -1):
        for chosen in itertools.combinations(range(len(expected)), size):
            for targets in itertools.permutations(range(len(actual)), size):
                if all(fits(actual[a], expected[e]) for e, a in zip(chosen, targets, strict=True)):
                    return size
    return 0


def common_subsequence(actual: Sequence[Any], expected: Sequence[Any], fits: Fits) -> int:
    """The longest sequence of fitting items in order, by trying every subsequence."""
    for size in range(min(len(actual), len(expected)), 0, -1):
        for chosen in itertools.combinations(expected, size):
            remaining = iter(actual)
            if all(any(fits(got, want) for got in remaining) for want in chosen):
                return size
    return 0


@functools.cache
def similarity(actual: tuple[Any, ...], expected: tuple[Any, ...], mode: str, fits: Fits) -> float:
    """unordered: multiset Jaccard; subset: share of actual items allowed; superset: share of
    expected items present; exact: longest common subsequence over the longer length."""
    if mode == "exact":
        longest = max(len(actual), len(expected))
        return 1.0 if longest == 0 else common_subsequence(actual, expected, fits) / longest
    paired = most_pairs(actual, expected, fits)
    if mode == "unordered":
        union = len(actual) + len(expected) - paired
        return 1.0 if union == 0 else paired / union
    if mode == "subset":
        return 1.0 if not actual else paired / len(actual)
    assert mode == "superset"
    return 1.0 if not expected else paired / len(expected)


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
