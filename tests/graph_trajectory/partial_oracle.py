"""Partial credit by exhaustive search, written from its documented definition alone.

Every path a small pattern allows (each optional step present or absent, each Repeat run every
allowed number of times), every alignment of the run to each path (every way to pair supersteps
with steps in order), each scored ``(summed similarity) / max(supersteps, path steps)``, or
``(summed similarity + results) / (max(...) + 1)`` with the results' score; the best is the
partial credit. Superstep similarity is recomputed here by brute force too: nothing comes from
the production code. The paths and alignments are enumerated by :mod:`tests.pattern_paths`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.graph_trajectory import ReferenceStep
from tests.pattern_paths import alignments
from tests.pattern_paths import paths as pattern_paths

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


def paths(reference: Sequence[Any], supersteps: int) -> set[tuple[PathStep, ...]]:
    """Every path the pattern allows (unbounded Repeats up to ``max(min, supersteps) + 1``)."""
    return pattern_paths(reference, supersteps, _step, "reference_outputs.steps")


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
