"""The pattern model the engine works on: reference steps of any kind, :class:`Loop` (a
validated ``Repeat``), and the :class:`Comparator` that says how one reference step meets one
actual step.

A reference is a sequence of elements, each a step or a :class:`Loop` of steps. A step is
anything with ``optional`` and ``path`` (:class:`PatternStep`): a superstep of node names in the
graph package, an assistant turn of tool calls in the trajectory package. Everything the
engine needs to know about the content of steps comes from the :class:`Comparator`.

>>> from dataclasses import dataclass
>>> @dataclass
... class Letter:
...     letter: str
...     optional: bool
...     path: str
>>> loop = Loop((Letter("a", False, "r[0].steps[0]"),), 1, None, "r[0]")
>>> loop.body[0].letter, loop.min
('a', 1)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Comparator", "Difference", "Loop", "PatternStep", "Table"]


class PatternStep(Protocol):
    """A reference step as the engine sees it: whether it may be absent, and its path."""

    @property
    def optional(self) -> bool: ...

    @property
    def path(self) -> str: ...


S = TypeVar("S", bound=PatternStep)
A = TypeVar("A")

Difference = tuple[list[Any], list[Any]]
"""(missing, extra): what an actual step lacks and has too many of, for explanations."""
Table = tuple["NDArray[Any] | None", "NDArray[Any]", "NDArray[Any]"]
"""One similarity per distinct (actual, reference step) content (None past a limit), each actual
step's row and each reference step's column in it."""


@dataclass(slots=True)
class Loop(Generic[S]):
    """A validated ``Repeat``: its body repeats ``min`` to ``max`` (None: any) times."""

    body: tuple[S, ...]
    min: int
    max: int | None
    path: str


@dataclass(frozen=True, slots=True)
class Comparator(Generic[A, S]):
    """How one reference step compares to one actual step.

    ``matches`` is the strict verdict; ``similarity`` a score in [0, 1] that is 1.0 exactly
    when it matches; ``difference`` (missing, extra) for explanations (actual None: the run
    had ended); ``content`` a key equal for steps that compare alike (alternatives are grouped
    by it); ``table`` the similarities of many pairs at once, each distinct content computed
    once (see :data:`Table`).
    """

    matches: Callable[[A, S], bool]
    similarity: Callable[[A, S], float]
    difference: Callable[[A | None, S], Difference]
    content: Callable[[S], Hashable]
    table: Callable[[Sequence[A], Sequence[S], int], Table]
