"""A side given in Python: one run (a list of examples in any shape the HTML report takes:
results, ``{"id", "score", "results", ...}`` dicts, ``langsmith.evaluate`` rows) or several
(:class:`Trials`).

Examples carrying ids (an ``"id"``, a LangSmith example's id) are keyed by them, others by their
position in their run; a side mixing the two is a ``ValueError``. In ``langsmith.evaluate``
rows, an example's rows after its first are its repetitions (``num_repetitions``): LangSmith's
example ids are unique, so a repeated one is a repetition, never a duplicate.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from matchevals._scoring import Problem
from matchevals._values import describe_type
from matchevals.compare._pairing import SideIndex
from matchevals.compare._sides import SideFacts
from matchevals.report._examples import ReportExample, example_from

__all__ = ["GivenSide", "Held", "Trials"]


class Trials:
    """Several runs of the same examples, as one side of a comparison: each run a path to a
    saved run or a list of examples; an example's trials are its entries in the runs.

    >>> Trials([{"id": "a", "results": [{"key": "k", "score": 1}]}],
    ...        [{"id": "a", "results": [{"key": "k", "score": 0}]}]).runs[1][0]["id"]
    'a'
    """

    def __init__(self, *runs: Any) -> None:
        if not runs:
            raise ValueError("Trials needs at least one run")
        self.runs = runs

    def __repr__(self) -> str:
        return f"Trials(<{len(self.runs)} runs>)"


@dataclass(frozen=True, slots=True)
class Held:
    """One example of a side given in Python, with its run and where it was given."""

    run: int
    given_at: str
    example: ReportExample


def _held_run(held: Held) -> int:
    return held.run


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _explicit_id(item: Any, where: str) -> Hashable | None:
    """The id an item carries itself (a string or a number), or None."""
    if isinstance(item, Mapping):
        if "evaluation_results" in item:
            ident = getattr(item.get("example"), "id", None)
            return None if ident is None else str(ident)
        if "results" in item and "key" not in item:
            ident = item.get("id")
            if ident is None or (
                isinstance(ident, (str, int, float)) and not isinstance(ident, bool)
            ):
                return ident
            raise TypeError(
                f"{where}['id'] is {_a(describe_type(ident))}; an id is a string or a number"
            )
    return None


class GivenSide:
    """A side given in Python: its examples read at once (they are in memory already)."""

    def __init__(self, runs: Iterable[Iterable[Any]], name: str) -> None:
        self.name = name
        self.facts = SideFacts(name)
        self._examples: list[tuple[int, int, Hashable | None, Held]] = []
        for run, items in enumerate(runs):
            self._read_run(run, items)
        self.facts.runs = len({run for run, *_ in self._examples})

    def _read_run(self, run: int, items: Iterable[Any]) -> None:
        if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
            raise TypeError(
                f"{self.name} is {type(items).__name__}; expected a list of examples (results, "
                "dicts with 'results', langsmith.evaluate rows), a path to a saved run, or Trials"
            )
        repeats: dict[Hashable, int] = {}
        for position, item in enumerate(items):
            where = f"{self.name}[{position}]" if run == 0 else f"{self.name} run {run}[{position}]"
            example = example_from(item, position, subject=where)
            ident = _explicit_id(item, where)
            trial = run
            if isinstance(item, Mapping) and "evaluation_results" in item and ident is not None:
                trial = repeats[ident] = repeats.get(ident, -1) + 1  # LangSmith repetitions
            self._examples.append((trial, position, ident, Held(trial, where, example)))

    def index(self) -> SideIndex[Held]:
        """Every example by its key: its id where examples carry ids, else its position."""
        with_ids = {ident is not None for *_, ident, _ in self._examples}
        if len(with_ids) > 1:
            first = next(held.given_at for *_, ident, held in self._examples if ident is None)
            raise ValueError(
                f"{self.name} mixes examples with ids and without ({first} has none): pair "
                "them all by id, or all by position"
            )
        if with_ids:  # an empty run says nothing of how it is keyed
            self.facts.keyed = "id" if with_ids == {True} else "position"
        index: SideIndex[Held] = SideIndex(_held_run)
        for _, position, ident, held in self._examples:
            key = position if ident is None else ident
            earlier = index.add(key, held)
            if earlier is not None:
                self.facts.problems.append(
                    Problem(held.given_at, f"duplicate id {key!r} (first at {earlier.given_at})")
                )
        self._examples.clear()
        return index

    def load(self, held: Held, key: Hashable) -> ReportExample | Problem:
        return held.example

    def close(self) -> None:
        pass
