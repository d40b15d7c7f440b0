"""Partial credit by exhaustive search, written from its documented definition alone.

Every path a small pattern allows (each optional step present or absent, each Repeat run every
allowed number of times), every alignment of the run to each path (every way to pair supersteps
with steps in order), each scored ``(summed similarity) / max(supersteps, path steps)``, or
``(summed similarity + results) / (max(...) + 1)`` with the results' score; the best is the
partial credit. Superstep similarity is recomputed here by brute force too: nothing comes from
the production code. The paths and alignments are enumerated by :mod:`tests.exhaustive_patterns`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.graph_trajectory import ReferenceStep
from tests.exhaustive_patterns import alignments, similarity
from tests.exhaustive_patterns import paths as pattern_paths

WILDCARD = "*"


@dataclass(frozen=True)
class PathStep:
    path: str
    nodes: tuple[str, ...]
    mode: str


def fits(actual: str, expected: str) -> bool:
    return expected in (WILDCARD, actual)


def step_similarity(actual: tuple[str, ...], expected: tuple[str, ...], mode: str) -> float:
    """A superstep's similarity to a reference step (``"*"`` fits any node)."""
    return similarity(actual, expected, mode, fits)


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
