"""Strict matching of one run against its reference, superstep by superstep.

The general path is the shared pattern engine's (:func:`matchevals._patterns.match_pattern`,
an automaton over positions walked superstep by superstep, O(supersteps × positions)), with
supersteps compared by ``_superstep``; each matched superstep is traced back to the reference
step it matched (``alignment``).

A reference without patterns (no optional step, no Repeat) takes the fast path instead,
:func:`match_positional`: superstep ``i`` against reference step ``i``, and a run equal to a
plain reference is a match at once. It reports supersteps past the reference's end as
``extra`` and no alignment; otherwise it agrees with :func:`match_pattern` on the verdict and
the divergence (``tests/graph_trajectory/test_fast_paths.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from matchevals import _patterns
from matchevals.graph_trajectory._reference import Loop, Reference, Step
from matchevals.graph_trajectory._superstep import COMPARATOR, difference, matches

__all__ = ["Divergence", "RunMatch", "match_pattern", "match_positional", "match_run"]


if TYPE_CHECKING:
    Divergence = _patterns.Divergence[Sequence[str], Step]
    RunMatch = _patterns.RunMatch[Sequence[str], Step]
else:  # the classes themselves: a subscripted alias costs a call through typing each time
    Divergence = _patterns.Divergence
    RunMatch = _patterns.RunMatch


def match_run(
    steps: Sequence[Sequence[str]], reference: Reference, same: bool = False, *, fast: bool = True
) -> RunMatch:
    """Match one validated run against its validated reference (``fast=False``: always the
    general path, the oracle of the fast path's tests).

    >>> from matchevals.graph_trajectory._reference import pair_runs
    >>> pair = pair_runs({"steps": [["a"], ["c", "b"]]}, {"steps": [["a"], ["b", "c"]]})[0]
    >>> match_run(pair.steps, pair.reference).matched
    True
    """
    if not fast or reference.has_patterns:
        return match_pattern(steps, reference.elements)
    plain = reference.plain
    if plain is not None and (same or steps == plain):
        return RunMatch(True, ["match"] * len(steps), None, len(plain), len(plain))
    return match_positional(steps, reference)


def match_positional(steps: Sequence[Sequence[str]], reference: Reference) -> RunMatch:
    """The fast path for a reference without patterns: superstep ``i`` against step ``i``."""
    plain = reference.plain
    expected_count = len(plain) if plain is not None else len(reference.elements)
    verdicts = []
    first: int | None = None
    pairs = zip(steps, plain if plain is not None else reference.elements, strict=False)
    for index, (actual, expected) in enumerate(pairs):
        if isinstance(expected, Loop):
            raise AssertionError("a reference with patterns is not positional")
        if isinstance(expected, Step):
            ok = matches(actual, expected.nodes, expected.mode)
        else:
            ok = matches(actual, expected, "unordered")
        verdicts.append("match" if ok else "mismatch")
        if not ok and first is None:
            first = index
    verdicts.extend(["extra"] * (len(steps) - expected_count))
    divergence = None
    if first is not None:
        step = _positional(reference, first)
        missing, extra = difference(steps[first], step.nodes, step.mode)
        divergence = Divergence(first, (step,), steps[first], missing, extra)
    elif len(steps) > expected_count:
        divergence = Divergence(expected_count, (), steps[expected_count], [], [])
    elif len(steps) < expected_count:
        step = _positional(reference, len(steps))
        divergence = Divergence(len(steps), (step,), None, list(step.nodes), [])
    return RunMatch(divergence is None, verdicts, divergence, expected_count, expected_count)


def _positional(reference: Reference, index: int) -> Step:
    step = reference.elements[index]
    assert isinstance(step, Step)
    return step


def match_pattern(
    steps: Sequence[Sequence[str]], elements: Sequence[Step | Loop[Step]]
) -> RunMatch:
    """The general path: the run against the reference's automaton of positions."""
    return _patterns.match_pattern(steps, elements, COMPARATOR)
