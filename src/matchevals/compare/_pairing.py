"""Which examples of two runs are the same example: an index per side from each example's key
(its id, or its position) to its trials, and the pairs in order.

A side holds one run or several (its trials): the same key in several runs is one example
tried several times; the same key twice in one run is a duplicate. The index keeps, per key,
a handle (whatever finds the example again: the example itself, or where its line is in a
file) or a list of handles for several trials, never more, so memory grows with the number of
keys alone.

>>> base, new = SideIndex(run_of=lambda handle: handle[0]), SideIndex(run_of=lambda h: h[0])
>>> [base.add(key, (0, key)) for key in "abc"], new.add("a", (0, "a1")), new.add("a", (1, "a2"))
([None, None, None], None, None)
>>> new.add("a", (1, "a3"))  # a second "a" in run 1: the first one's handle
(1, 'a2')
>>> [(key, b, n) for key, b, n in pairs(base, new)]
[('a', [(0, 'a')], [(0, 'a1'), (1, 'a2')]), ('b', [(0, 'b')], []), ('c', [(0, 'c')], [])]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

__all__ = ["SideIndex", "pairs"]

Handle = TypeVar("Handle")


class SideIndex(Generic[Handle]):
    """Each key's handles, in the order its runs came; ``run_of(handle)`` says which run a
    handle's example is in (runs are read one after the other)."""

    def __init__(self, run_of: Callable[[Handle], int]) -> None:
        self.run_of = run_of
        self._held: dict[Hashable, Any] = {}  # key -> handle, or a list of handles (trials)
        self.runs = 0

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

    def key_list(self) -> list[Hashable]:
        return list(self._held)

    def trials(self) -> Iterator[int]:
        """How many trials each key has."""
        for held in self._held.values():
            yield len(held) if type(held) is list else 1


def pairs(
    base: SideIndex[Any], new: SideIndex[Any]
) -> Iterator[tuple[Hashable, list[Any], list[Any]]]:
    """``(key, base handles, new handles)`` for every key: the new run's keys in its order
    (those the base lacks with no base handles), then the keys only the base has, in its order.
    Both indexes are emptied as the pairs are taken."""
    for key in new.key_list():  # a copy: the index changes meanwhile
        yield key, base.pop(key), new.pop(key)
    for key in base.key_list():
        yield key, base.pop(key), []
