"""Two runs compared: each side opened (saved runs, or examples given in Python), indexed,
paired, and every pair fed to the comparison (:mod:`matchevals.compare._builder`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from matchevals._scoring import Problem
from matchevals.compare._builder import DEFAULT_LISTED, DEFAULT_WORST, ComparisonBuilder
from matchevals.compare._given import GivenSide, Trials
from matchevals.compare._model import Comparison
from matchevals.compare._pairing import pairs
from matchevals.compare._saved import SavedSide
from matchevals.compare._sides import pairing

__all__ = ["compare_runs"]

Side = SavedSide | GivenSide


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _side(value: Any, name: str) -> Side:
    if _is_path(value):
        return SavedSide([Path(value)], str(value))
    if isinstance(value, Trials):
        paths = [_is_path(run) for run in value.runs]
        if all(paths):
            return SavedSide([Path(run) for run in value.runs], " + ".join(map(str, value.runs)))
        if any(paths):
            raise TypeError(
                f"{name}: Trials holds paths and lists of examples; give it one or the other"
            )
        return GivenSide(value.runs, name)
    return GivenSide([value], name)


def _check_options(pass_threshold: float, alpha: float, worst: int, listed: int) -> None:
    if isinstance(pass_threshold, bool) or not isinstance(pass_threshold, (int, float)):
        raise TypeError(f"pass_threshold must be a number in (0, 1]; got {pass_threshold!r}")
    if not 0 < pass_threshold <= 1:
        raise ValueError(f"pass_threshold must be a number in (0, 1]; got {pass_threshold!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}")
    for name, count in (("worst", worst), ("listed", listed)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} must be a whole number >= 0; got {count!r}")


def compare_runs(
    base: Any,
    new: Any,
    *,
    id_key: str | None = None,
    pass_threshold: float = 1.0,
    alpha: float = 0.05,
    worst: int = DEFAULT_WORST,
    listed: int = DEFAULT_LISTED,
) -> Comparison:
    """Compare a new run with a base run, example by example, with statistics.

    ``base`` and ``new`` are each a run saved with ``--format jsonl`` (a path; a file of several
    runs holds several trials of each example), a list of examples (evaluator results,
    ``{"id", "score", "results", ...}`` dicts, or ``langsmith.evaluate`` rows), or
    :class:`Trials` of either. Examples pair by id (their ``id``, a LangSmith example's id, a
    saved run's ``--id-key``), else by position; ``id_key`` requires pairing by id, and by that
    key where saved runs name theirs.

    An example passes at a score of at least ``pass_threshold``; the new run is significantly
    worse or better at ``alpha``; the ``worst`` biggest regressions and improvements are kept
    with what newly fails in them, and the first ``listed`` examples only one run holds.

    A file that is not a saved run, runs of different commands, or runs keyed in different
    ways are a ``ValueError``; duplicate ids and examples that cannot be read are listed in
    ``problems``, examples one run lacks in ``added`` and ``removed``.

    >>> base = [{"id": "a", "results": [{"key": "k", "score": 1}]},
    ...         {"id": "b", "results": [{"key": "k", "score": 1}]}]
    >>> new = [{"id": "b", "results": [{"key": "k", "score": 0}]},
    ...        {"id": "a", "results": [{"key": "k", "score": 1}]}]
    >>> comparison = compare_runs(base, new)
    >>> comparison.counts["regressed"], [change.id for change in comparison.regressions]
    (1, ['b'])
    """
    _check_options(pass_threshold, alpha, worst, listed)
    opened: list[Side] = []
    try:
        opened.append(_side(base, "base"))
        opened.append(_side(new, "new"))
        builder = ComparisonBuilder(
            pass_threshold=pass_threshold, alpha=alpha, worst=worst, listed=listed
        )
        return _compare(opened[0], opened[1], builder, id_key)
    finally:
        for side in opened:
            side.close()


def _compare(base: Side, new: Side, builder: ComparisonBuilder, id_key: str | None) -> Comparison:
    """Both sides indexed, paired, and every pair fed to ``builder``."""
    base_index, new_index = base.index(), new.index()
    paired_by, key, kind = pairing(base.facts, new.facts, id_key)
    for side in (base, new):
        if isinstance(side, SavedSide):
            side.by_position = paired_by == "position"
    for problem in (*base.facts.problems, *new.facts.problems):
        builder.problem(problem)
    load_base, load_new, add = base.load, new.load, builder.add
    for example, base_handles, new_handles in pairs(base_index, new_index):
        base_trials = [load_base(handle, example) for handle in base_handles]
        new_trials = [load_new(handle, example) for handle in new_handles]
        bad = [t for t in (*base_trials, *new_trials) if isinstance(t, Problem)]
        if bad:
            for problem in bad:
                builder.problem(problem)
            continue
        add(example, base_trials, new_trials)  # type: ignore[arg-type]  # no Problem left
    return builder.result(
        base=base.name,
        new=new.name,
        kind=kind,
        paired_by=paired_by,
        id_key=key,
        warnings=[*base.facts.warnings, *new.facts.warnings],
    )
