"""Partial credit by exhaustive search, written from its documented definition alone.

Every path a small pattern allows (each optional step present or absent, each Repeat run every
allowed number of times), every alignment of the run to each path (every way to pair supersteps
with steps in order), each scored ``(summed similarity) / max(supersteps, path steps)``, or
``(summed similarity + results) / (max(...) + 1)`` with the results' score; the best is the
partial credit. Superstep similarity is recomputed here by brute force too: nothing comes from
the production code. A Repeat without ``max`` runs at most ``max(min, supersteps) + 1`` times:
past ``min``, an iteration with no pair can be dropped without lowering the score (the path
gets shorter, the pairs stay), so more iterations than pairs never help.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.graph_trajectory import ReferenceStep, Repeat

WILDCARD = "*"


@dataclass(frozen=True)
class PathStep:
    path: str
    nodes: tuple[str, ...]
    mode: str


def pairs_of_nodes(actual: Sequence[str], expected: Sequence[str]) -> int:
    """The most one-to-one pairs of an actual node with a reference node of the same name or
    ``"*"``, by trying every assignment of reference nodes to actual nodes."""
    for size in range(min(len(actual), len(expected)), 0, -1):
        for chosen in itertools.combinations(range(len(expected)), size):
            for targets in itertools.permutations(range(len(actual)), size):
                if all(
                    expected[e] in (WILDCARD, actual[a])
                    for e, a in zip(chosen, targets, strict=True)
                ):
                    return size
    return 0


def common_subsequence(actual: Sequence[str], expected: Sequence[str]) -> int:
    """The longest common subsequence (``"*"`` matching any node), by trying every
    subsequence of the reference nodes."""
    for size in range(min(len(actual), len(expected)), 0, -1):
        for chosen in itertools.combinations(expected, size):
            remaining = iter(actual)
            if all(any(want in (WILDCARD, got) for got in remaining) for want in chosen):
                return size
    return 0


@functools.cache
def step_similarity(actual: tuple[str, ...], expected: tuple[str, ...], mode: str) -> float:
    """unordered: multiset Jaccard; subset: share of actual nodes allowed; superset: share of
    reference nodes present; exact: longest common subsequence over the longer length."""
    if mode == "exact":
        longest = max(len(actual), len(expected))
        return 1.0 if longest == 0 else common_subsequence(actual, expected) / longest
    paired = pairs_of_nodes(actual, expected)
    if mode == "unordered":
        union = len(actual) + len(expected) - paired
        return 1.0 if union == 0 else paired / union
    if mode == "subset":
        return 1.0 if not actual else paired / len(actual)
    assert mode == "superset"
    return 1.0 if not expected else paired / len(expected)


def _step(item: Any, path: str) -> tuple[PathStep, bool]:
    if isinstance(item, ReferenceStep):
        return PathStep(path, tuple(item.steps), item.match_mode), item.optional
    return PathStep(path, tuple(item), "unordered"), False


def _one_pass(items: Sequence[Any], path: str) -> set[tuple[PathStep, ...]]:
    """Every way through ``items`` once (optional steps present or absent)."""
    found: set[tuple[PathStep, ...]] = {()}
    for index, item in enumerate(items):
        step, optional = _step(item, f"{path}[{index}]")
        grown = {(*prefix, step) for prefix in found}
        found = grown | found if optional else grown
    return found


def paths(reference: Sequence[Any], supersteps: int) -> set[tuple[PathStep, ...]]:
    """Every path the pattern allows (unbounded Repeats up to ``max(min, supersteps) + 1``)."""
    found: set[tuple[PathStep, ...]] = {()}
    for index, item in enumerate(reference):
        path = f"reference_outputs.steps[{index}]"
        if not isinstance(item, Repeat):
            step, optional = _step(item, path)
            grown = {(*prefix, step) for prefix in found}
            found = grown | found if optional else grown
            continue
        once = _one_pass(list(item.steps), f"{path}.steps")
        most = item.max if item.max is not None else max(item.min, supersteps) + 1
        blocks: set[tuple[PathStep, ...]] = set()
        repeated: set[tuple[PathStep, ...]] = {()}
        for count in range(most + 1):
            if count >= item.min:
                blocks |= repeated
            repeated = {prefix + body for prefix in repeated for body in once}
        found = {prefix + block for prefix in found for block in blocks}
    return found


def alignments(supersteps: int, steps: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every order-preserving pairing of supersteps with steps."""
    for size in range(min(supersteps, steps) + 1):
        for chosen in itertools.combinations(range(supersteps), size):
            for targets in itertools.combinations(range(steps), size):
                yield tuple(zip(chosen, targets, strict=True))


def score(similarity_sum: float, run_length: int, path_length: int, results: float | None) -> float:
    longest = max(run_length, path_length)
    if results is not None:
        return (similarity_sum + results) / (longest + 1)
    return 1.0 if longest == 0 else similarity_sum / longest


def best_score(
    run: Sequence[Sequence[str]], reference: Sequence[Any], results: float | None = None
) -> float:
    """The partial credit of ``run`` against ``reference``, by trying everything."""
    best = 0.0
    contents = {tuple((s.nodes, s.mode) for s in path) for path in paths(reference, len(run))}
    for path in contents:
        table = [
            [step_similarity(tuple(actual), nodes, mode) for nodes, mode in path] for actual in run
        ]
        for pairs in alignments(len(run), len(path)):
            total = sum(table[i][j] for i, j in pairs)
            best = max(best, score(total, len(run), len(path), results))
    return best


def is_a_path(reference: Sequence[Any], supersteps: int, listed: list[str]) -> bool:
    """Whether ``listed``, a sequence of reference step paths, is a path of the pattern."""
    return any([step.path for step in path] == listed for path in paths(reference, supersteps))
