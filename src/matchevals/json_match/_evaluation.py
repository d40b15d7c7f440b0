"""The state of one evaluation between ``prepare`` and ``finish``: items, their scores, pending
judge requests, and what the nested walk found in each document.

>>> item = ItemScores(0, 0, {"a": 1}, {"a": 2}, {"a": 0}, {})
>>> item.unmatched
False
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._types import Difference, JudgeRequest, Location, Pair, Score

__all__ = ["Evaluation", "ItemScores", "Leaves", "PendingLeaf", "sorted_by_key"]

PendingLeaf = tuple[list[Score | None], int, JudgeRequest, Location | None]
"""A leaf waiting for the judge: its path's occurrence list, its index there, the request and
where it sits."""


@dataclass(slots=True)
class Leaves:
    """What comparing one document leaf by leaf found (``nested=True``).

    ``occurrences`` holds every score of a path (several inside lists; None until the judge
    answers), ``listed`` the paths that lie inside a list, ``alignments`` the pairings of nested
    lists, ``differences`` every reason a score is below 1.
    """

    occurrences: dict[str, list[Score | None]] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)
    differences: list[Difference] = field(default_factory=list)
    alignments: list[dict[str, Any]] = field(default_factory=list)
    pending: list[PendingLeaf] = field(default_factory=list)
    _by_path: dict[str, list[Difference]] | None = field(default=None, repr=False)

    @property
    def requests(self) -> list[JudgeRequest]:
        return [request for _, _, request, _ in self.pending]

    def differences_at(self, path: str) -> list[Difference]:
        """The differences reported under one path (indexed once, after judging)."""
        if self._by_path is None:
            self._by_path = {}
            for difference in self.differences:
                for key in difference.covers or (difference.path,):
                    self._by_path.setdefault(cast(str, key), []).append(difference)
        return self._by_path.get(path, [])

    def forget_index(self) -> None:
        self._by_path = None


@dataclass(slots=True)
class ItemScores:
    """The scores of one counted list item (or of the single object when inputs are objects)."""

    output_index: int | None
    reference_index: int | None
    output: Mapping[str, Any]
    reference: Mapping[str, Any]
    scores: dict[str, Score | None]  # None until the judge answers
    pending: dict[str, str]  # key -> judge request id
    judge_reasons: dict[str, str | None] | None = None  # why the judge rejected a key
    judge_errors: dict[str, str] | None = None  # on_judge_error="zero": why the judge failed
    leaves: Leaves | None = None  # nested=True: leaf scores, occurrences and differences

    @property
    def unmatched(self) -> bool:
        return self.output_index is None or self.reference_index is None


@dataclass(slots=True)
class Evaluation:
    """Everything known before the judge is asked."""

    options: JsonMatchOptions
    is_list: bool
    items: list[ItemScores]
    pairs: list[Pair] | None
    judge_requests: list[JudgeRequest]
    value_list: bool = False


_T = TypeVar("_T")


def sorted_by_key(entries: Iterable[_T], evaluation: Evaluation) -> list[_T]:
    """Keys (or (key, value) pairs) in key order; a TypeError naming a non-string key if any."""
    try:
        return sorted(entries)  # type: ignore[type-var]
    except TypeError:
        for item in evaluation.items:
            for side, value, index in (
                ("outputs", item.output, item.output_index),
                ("reference_outputs", item.reference, item.reference_index),
            ):
                for key in value:
                    if not isinstance(key, str):
                        where = f"{side}[{index}]" if evaluation.is_list else side
                        raise TypeError(
                            f"{where} has the key {key!r}, a {type(key).__name__}: "
                            "JSON object keys are strings"
                        ) from None
        raise
