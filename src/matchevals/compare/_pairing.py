"""Which examples of two runs are the same example, in three ways that give the same pairs in
the same order: the new run's keys in its order (with the base's trials; none where the base
lacks the key), then the keys only the base has, in its order.

- :func:`merged_pairs`: both runs streamed together, for runs of one run each whose keys
  (positions) only grow: nothing is held.
- :func:`streamed_pairs`: the base indexed, the new run streamed, for a new side of one run:
  memory holds the base's index.
- :func:`pairs`: both sides indexed, for any sides (several runs, examples given in Python).

A streaming way that meets what it cannot stream (a second run, a key out of order, a
duplicate) raises :class:`Replan`: the comparison starts again the next way.

A side holds one run or several (its trials): the same key in several runs is one example
tried several times; the same key twice in one run is a duplicate. An index keeps, per key, a
handle (whatever finds the example again: the example itself, or where its line is in a file)
or a list of handles for several trials, never more.

>>> base, new = SideIndex(run_of=lambda handle: handle[0]), SideIndex(run_of=lambda h: h[0])
>>> [base.add(key, (0, key)) for key in "abc"], new.add("a", (0, "a1")), new.add("a", (1, "a2"))
([None, None, None], None, None)
>>> new.add("a", (1, "a3"))  # a second "a" in run 1: the first one's handle
(1, 'a2')
>>> [(key, b, n) for key, b, n in pairs(base, new)]
[('a', [(0, 'a')], [(0, 'a1'), (1, 'a2')]), ('b', [(0, 'b')], []), ('c', [(0, 'c')], [])]
>>> list(merged_pairs(iter([(0, "b0"), (2, "b2")]), iter([(1, "n1"), (2, "n2")])))
[(0, ['b0'], []), (1, [], ['n1']), (2, ['b2'], ['n2'])]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Generic, TypeVar

__all__ = ["Replan", "SideIndex", "merged_pairs", "pairs", "streamed_pairs"]

Handle = TypeVar("Handle")
Pairs = Iterator[tuple[Hashable, list[Any], list[Any]]]


class Replan(Exception):
    """The runs cannot be paired this way: pair them the next way."""


class _Claimed:
    """An index entry the other side's example took: that example's handle."""

    __slots__ = ("handle",)

    def __init__(self, handle: Any) -> None:
        self.handle = handle


class SideIndex(Generic[Handle]):
    """Each key's handles, in the order its runs came; ``run_of(handle)`` says which run a
    handle's example is in (runs are read one after the other)."""

    def __init__(self, run_of: Callable[[Handle], int]) -> None:
        self.run_of = run_of
        self._held: dict[Hashable, Any] = {}  # key -> handle, a list of them, or _Claimed
        self._only_other: dict[Hashable, Any] = {}  # claimed keys this side lacks

    def __len__(self) -> int:
        return len(self._held)

    def add(self, key: Hashable, handle: Handle) -> Handle | None:
        """Index one example; a duplicate (the key already in the handle's run) is not
        indexed, and the handle of the first one in that run is returned."""
        held = self._held.get(key)
        if held is None:
            self._held[key] = handle
            return None
        last = held[-1] if type(held) is list else held
        if self.run_of(last) == self.run_of(handle):
            return last  # type: ignore[no-any-return]
        if type(held) is list:
            held.append(handle)
        else:
            self._held[key] = [held, handle]
        return None

    def pop(self, key: Hashable) -> list[Handle]:
        """The key's handles (none when it has none), taken out of the index."""
        held = self._held.pop(key, None)
        if held is None:
            return []
        return held if type(held) is list else [held]

    def claim(self, key: Hashable, other: Any) -> tuple[list[Handle], Any]:
        """The key's handles, for the other side's example ``other`` (a handle of its own);
        a second claim of one key gets no handles and the first claim's ``other``."""
        held = self._held.get(key)
        if type(held) is _Claimed:
            return [], held.handle
        if held is None:
            first = self._only_other.setdefault(key, other)
            return [], None if first is other else first
        self._held[key] = _Claimed(other)
        return held if type(held) is list else [held], None

    def unclaimed(self) -> Iterator[tuple[Hashable, list[Handle]]]:
        """Every key no :meth:`claim` took, with its handles, in the order they were added."""
        for key, held in self._held.items():
            if type(held) is not _Claimed:
                yield key, held if type(held) is list else [held]

    def key_list(self) -> list[Hashable]:
        return list(self._held)


def pairs(base: SideIndex[Any], new: SideIndex[Any]) -> Pairs:
    """Both sides indexed: ``(key, base handles, new handles)`` for every key. Both indexes
    are emptied as the pairs are taken."""
    for key in new.key_list():  # a copy: the index changes meanwhile
        yield key, base.pop(key), new.pop(key)
    for key in base.key_list():
        yield key, base.pop(key), []


def streamed_pairs(
    base: SideIndex[Any],
    new: Iterable[tuple[Hashable, Any]],
    duplicate: Callable[[Hashable, Any, Any], None],
) -> Pairs:
    """The base indexed, the new run's ``(key, handle)`` streamed; a key twice in the new run
    is ``duplicate(key, handle, first handle)``, and left out."""
    for key, handle in new:
        handles, first = base.claim(key, handle)
        if first is not None:
            duplicate(key, handle, first)
            continue
        yield key, handles, [handle]
    for key, handles in base.unclaimed():
        yield key, handles, []


def merged_pairs(
    base: Iterator[tuple[Hashable, Any]], new: Iterator[tuple[Hashable, Any]]
) -> Pairs:
    """Two runs streamed together by their keys, whole numbers that only grow in each; a
    :class:`Replan` at the first key that does not."""
    end: Any = object()
    taken = {"base": -1, "new": -1}

    def step(stream: Iterator[tuple[Hashable, Any]], side: str) -> Any:
        item = next(stream, end)
        if item is not end:
            key = item[0]
            if type(key) is not int or key <= taken[side]:
                raise Replan(f"the {side} run's keys are not whole numbers in order")
            taken[side] = key
        return item

    left, right = step(base, "base"), step(new, "new")
    while left is not end or right is not end:
        if right is end or (left is not end and left[0] < right[0]):
            yield left[0], [left[1]], []
            left = step(base, "base")
        elif left is end or right[0] < left[0]:
            yield right[0], [], [right[1]]
            right = step(new, "new")
        else:
            yield left[0], [left[1]], [right[1]]
            left, right = step(base, "base"), step(new, "new")
