"""Turn patterns by exhaustive search, written from their documented definition alone.

Every path a small pattern allows (each optional turn present or absent, each Repeat run every
allowed number of times), every alignment of the output's turns to each path, each scored
``(summed similarity) / max(turns, path steps)``; the best is the partial credit, and the
strict match passes exactly when some path has as many steps as there are turns, each one
matched. Turn similarity is recomputed by brute force (every assignment of calls), with exact
argument equality: nothing comes from the production code. The paths and alignments are
enumerated by :mod:`tests.exhaustive_patterns`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.trajectory import TurnStep
from tests.exhaustive_patterns import alignments, similarity
from tests.exhaustive_patterns import paths as pattern_paths

Call = tuple[str, Any]  # (name, args as a sorted tuple of items); expected: name "*", args None
WILDCARD = "*"


@dataclass(frozen=True)
class PathStep:
    path: str
    calls: tuple[Call, ...] | None  # None: "*", any turn
    mode: str


def frozen(args: dict[str, Any] | None) -> Any:
    return None if args is None else tuple(sorted(args.items()))


def fits(actual: Call, expected: Call) -> bool:
    name, args = expected
    return (name == WILDCARD) or (actual[0] == name and (args is None or actual[1] == args))


def turn_similarity(
    actual: tuple[Call, ...], expected: tuple[Call, ...] | None, mode: str
) -> float:
    return 1.0 if expected is None else similarity(actual, expected, mode, fits)


def _step(item: Any, path: str) -> tuple[PathStep, bool]:
    if item == WILDCARD:
        return PathStep(path, None, "unordered"), False
    assert isinstance(item, TurnStep)
    calls = tuple((call["name"], frozen(call.get("args"))) for call in item.calls)
    return PathStep(path, calls, item.mode), item.optional


def paths(pattern: Sequence[Any], turns: int) -> set[tuple[PathStep, ...]]:
    """Every path the pattern allows (unbounded Repeats up to ``max(min, turns) + 1``)."""
    return pattern_paths(pattern, turns, _step, "reference_outputs")


def _tables(
    run: Sequence[tuple[Call, ...]], pattern: Sequence[Any]
) -> Iterator[tuple[int, list[list[float]]]]:
    contents = {tuple((s.calls, s.mode) for s in path) for path in paths(pattern, len(run))}
    for path in contents:
        table = [[turn_similarity(actual, calls, mode) for calls, mode in path] for actual in run]
        yield len(path), table


def best_score(run: Sequence[tuple[Call, ...]], pattern: Sequence[Any]) -> float:
    """The partial credit of the turns ``run`` against ``pattern``, by trying everything."""
    best = 0.0
    for length, table in _tables(run, pattern):
        for pairs in alignments(len(run), length):
            total = sum(table[i][j] for i, j in pairs)
            longest = max(len(run), length)
            best = max(best, 1.0 if longest == 0 else total / longest)
    return best


def strictly_matches(run: Sequence[tuple[Call, ...]], pattern: Sequence[Any]) -> bool:
    """Whether some path has one matching step per turn, in order."""
    return any(
        length == len(run) and all(table[i][i] == 1.0 for i in range(length))
        for length, table in _tables(run, pattern)
    )


def is_a_path(pattern: Sequence[Any], turns: int, listed: list[str]) -> bool:
    return any([step.path for step in path] == listed for path in paths(pattern, turns))
