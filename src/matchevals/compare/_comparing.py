"""Two runs compared: each side opened (saved runs, or examples given in Python), indexed,
paired, and every pair fed to the comparison (:mod:`matchevals.compare._builder`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from matchevals._scoring import Problem
from matchevals.compare._builder import DEFAULT_LISTED, DEFAULT_WORST, ComparisonBuilder
from matchevals.compare._given import GivenSide, Trials
from matchevals.compare._model import Comparison
from matchevals.compare._pairing import Pairs, Replan, merged_pairs, pairs, streamed_pairs
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
    plans = _PLANS if _is_saved(base) and _is_saved(new) else (_indexed,)
    for plan in plans:
        opened: list[Side] = []
        try:
            opened.append(_side(base, "base"))
            opened.append(_side(new, "new"))
            builder = ComparisonBuilder(
                pass_threshold=pass_threshold, alpha=alpha, worst=worst, listed=listed
            )
            return _compare(opened[0], opened[1], builder, plan, id_key)
        except Replan:
            continue  # the next plan, from the start
        finally:
            for side in opened:
                side.close()
    raise AssertionError("the last plan pairs any runs")  # pragma: no cover


def _is_saved(value: Any) -> bool:
    return _is_path(value) or (isinstance(value, Trials) and all(map(_is_path, value.runs)))


Plan = Callable[[Side, Side], Pairs]


def _merged(base: Side, new: Side) -> Pairs:
    """Both runs streamed together (each one run, its keys growing): nothing held."""
    assert isinstance(base, SavedSide) and isinstance(new, SavedSide)
    return merged_pairs(base.one_run(), new.one_run())


def _streamed(base: Side, new: Side) -> Pairs:
    """The base indexed, the new run (one run) streamed: memory holds the base's index."""
    assert isinstance(base, SavedSide) and isinstance(new, SavedSide)
    return streamed_pairs(base.index(), new.one_run(), new.duplicate)


def _indexed(base: Side, new: Side) -> Pairs:
    """Both sides indexed: any runs."""
    return pairs(base.index(), new.index())


_PLANS: tuple[Plan, ...] = (_merged, _streamed, _indexed)


def _compare(
    base: Side, new: Side, builder: ComparisonBuilder, plan: Plan, id_key: str | None
) -> Comparison:
    """The sides paired by ``plan`` and every pair fed to ``builder``; a ValueError when the
    runs cannot be compared (said before reading them where their last lines say so)."""
    if isinstance(base, SavedSide) and isinstance(new, SavedSide):
        pairing(base.hint(), new.hint(), id_key)  # runs that cannot be compared: said at once
    load_base, load_new, add = base.load, new.load, builder.add
    for example, base_handles, new_handles in plan(base, new):
        base_trials = [load_base(handle, example) for handle in base_handles]
        new_trials = [load_new(handle, example) for handle in new_handles]
        bad = [t for t in (*base_trials, *new_trials) if isinstance(t, Problem)]
        if bad:
            for problem in bad:
                builder.problem(problem)
            continue
        add(example, base_trials, new_trials)  # type: ignore[arg-type]  # no Problem left
    paired_by, key, kind = pairing(base.facts, new.facts, id_key)
    if paired_by == "position":
        _check_positions(base, new)
    builder.problems[:0] = [*base.facts.problems, *new.facts.problems]
    return builder.result(
        base=base.name,
        new=new.name,
        kind=kind,
        paired_by=paired_by,
        id_key=key,
        warnings=[*base.facts.warnings, *new.facts.warnings],
    )


def _check_positions(*sides: Side) -> None:
    """Runs paired by position must number their examples by position."""
    for side in sides:
        if isinstance(side, SavedSide) and side.first_unpositioned is not None:
            others = side.unpositioned - 1
            more = f" (and {others} more)" if others else ""
            raise ValueError(f"{side.first_unpositioned}{more}")
