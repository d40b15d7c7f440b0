"""Positions in a reference with patterns, and the moves between them, shared by strict matching
(``_match``) and partial credit (``_alignment``).

A reference with optional steps or ``Repeat`` is an automaton over positions ``(element,
iteration, body index)``; ``(len(elements), 0, 0)`` is the end. An actual step (a superstep, an
assistant turn) is consumed by the step at a position (:func:`step_at`, then :func:`advance`);
moves that consume none skip a step or leave a Repeat (:func:`skips`). Strict matching walks
the run one actual step at a time over the positions reached so far (:meth:`Moves.layer`).

Iteration counts of a Repeat without ``max`` stop at ``min`` (more iterations behave alike),
which keeps the positions finite. With a ``max``, :class:`Dominance` drops a position that met
``min`` when one with fewer iterations reached the same body step: that one can do all the other
can, so a Repeat never holds more than ``(min + 1) × len(body)`` positions (partial credit
applies the same rule inside its Pareto frontiers, where the iteration count is one more
criterion beside the scores).

>>> from matchevals.graph_trajectory._reference import read_reference
>>> elements = read_reference({"steps": [{"repeat": [["a"]], "min": 1}]}, "r").elements
>>> step_at(elements, (0, 0, 0)).nodes, advance(elements, (0, 0, 0))
(['a'], (0, 1, 0))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

from matchevals._patterns._elements import Loop, PatternStep

__all__ = [
    "Dominance",
    "Moves",
    "Position",
    "advance",
    "expected_length",
    "position_count",
    "skips",
    "step_at",
]

Position = tuple[int, int, int]
"""(element index, completed iterations of a Repeat, index in its body); (len, 0, 0) is the end."""
S = TypeVar("S", bound=PatternStep)
A = TypeVar("A")
T = TypeVar("T")
Elements = Sequence[S | Loop[S]]


def expected_length(elements: Elements[S]) -> tuple[int, int | None]:
    """The fewest and most actual steps a reference accepts (None: no upper bound)."""
    low, high = 0, 0
    unbounded = False
    for element in elements:
        if not isinstance(element, Loop):
            low += not element.optional
            high += 1
        else:
            low += element.min * sum(not step.optional for step in element.body)
            if element.max is None:
                unbounded = True
            else:
                high += element.max * len(element.body)
    return low, None if unbounded else high


def position_count(elements: Elements[S]) -> int:
    """About how many positions a matcher keeps per actual step."""
    return 1 + sum(
        (element.min + 1) * len(element.body) if isinstance(element, Loop) else 1
        for element in elements
    )


def step_at(elements: Elements[S], position: Position) -> S | None:
    """The reference step that consumes the next actual step at ``position`` (None: none can)."""
    element_index, iteration, body_index = position
    if element_index == len(elements):
        return None
    element = elements[element_index]
    if not isinstance(element, Loop):
        return element
    if element.max is not None and iteration >= element.max:
        return None
    return element.body[body_index]


def advance(elements: Elements[S], position: Position) -> Position:
    """The position after the step at ``position`` is consumed (or skipped)."""
    element_index, iteration, body_index = position
    element = elements[element_index]
    if not isinstance(element, Loop):
        return (element_index + 1, 0, 0)
    if body_index + 1 < len(element.body):
        return (element_index, iteration, body_index + 1)
    iteration += 1
    if element.max is None and iteration > element.min:
        iteration = element.min
    return (element_index, iteration, 0)


def skips(elements: Elements[S], position: Position) -> list[tuple[Position, S | None]]:
    """Moves that consume no actual step: (next position, the step skipped or None for a
    Repeat's exit). Strict matching skips only optional steps; partial credit also skips
    required ones, at a cost."""
    element_index, iteration, body_index = position
    if element_index == len(elements):
        return []
    element = elements[element_index]
    if not isinstance(element, Loop):
        return [((element_index + 1, 0, 0), element)]
    moves: list[tuple[Position, S | None]] = []
    if body_index == 0 and iteration >= element.min:
        moves.append(((element_index + 1, 0, 0), None))
    if element.max is None or iteration < element.max:
        moves.append((advance(elements, position), element.body[body_index]))
    return moves


class Moves(Generic[S]):
    """The move that consumes an actual step from each position (the step there and the position
    after), worked out once per position and kept for the whole run.

    >>> from matchevals.graph_trajectory._reference import Loop, Step
    >>> moves = Moves([Loop((Step(["a"], "unordered", False, "r"),), 1, None, "r")])
    >>> layer = moves.layer([(0, 0, 0)], ["a"], lambda actual, step: len(actual))
    >>> [(p, s.nodes if s else None, t, v) for p, s, t, v in layer]
    [((0, 0, 0), ['a'], (0, 1, 0), 1)]
    """

    __slots__ = ("_known", "elements")

    def __init__(self, elements: Elements[S]) -> None:
        self.elements = elements
        self._known: dict[Position, tuple[S | None, Position | None]] = {}

    def _move(self, position: Position) -> tuple[S | None, Position | None]:
        step = step_at(self.elements, position)
        move = (step, None if step is None else advance(self.elements, position))
        self._known[position] = move
        return move

    def layer(
        self,
        positions: Iterable[Position],
        actual: A,
        measure: Callable[[A, S], T],
    ) -> Iterator[tuple[Position, S | None, Position | None, T | None]]:
        """For each position reached before the actual step ``actual``: the step that would
        consume it, the position after, and ``measure(actual, step)`` (how well it meets the
        step, computed once per step); ``(position, None, None, None)`` where no step can."""
        known = self._known
        measured: dict[int, T] = {}
        for position in positions:
            move = known.get(position)
            step, target = self._move(position) if move is None else move
            if step is None:
                yield position, None, None, None
                continue
            key = id(step)
            if key in measured:
                value = measured[key]
            else:
                value = measured[key] = measure(actual, step)
            yield position, step, target, value


class Dominance:
    """In a Repeat with a ``max``, of two positions at one body step that both met ``min``, the
    one with fewer iterations can do all the other can: only it is kept.

    >>> from matchevals.graph_trajectory._reference import Loop, Step
    >>> loop = Loop((Step(["a"], "unordered", False, "r"),), 1, 5, "r")
    >>> dominance = Dominance.of([loop]).start()
    >>> dominance.admits((0, 2, 0)), dominance.admits((0, 3, 0)), dominance.admits((0, 1, 0))
    (True, False, True)
    """

    __slots__ = ("fewest", "mins")

    def __init__(self, mins: dict[int, int]) -> None:
        self.mins = mins  # the min of each Repeat with a max, by element index
        self.fewest: dict[tuple[int, int], int] = {}  # (Repeat, body step) -> fewest iterations

    @classmethod
    def of(cls, elements: Elements[S]) -> Dominance | None:
        """The pruning for a reference, made once per match; None without a Repeat with a
        ``max`` (then no position dominates another)."""
        mins = {
            index: element.min
            for index, element in enumerate(elements)
            if isinstance(element, Loop) and element.max is not None
        }
        return cls(mins) if mins else None

    def start(self) -> Dominance:
        """Forget the positions noted so far (a new layer begins)."""
        self.fewest = {}
        return self

    def note(self, position: Position) -> None:
        """Count ``position`` among those reached (whatever the order)."""
        element_index, iteration, body_index = position
        low = self.mins.get(element_index)
        if low is not None and iteration >= low:
            key = (element_index, body_index)
            self.fewest[key] = min(iteration, self.fewest.get(key, iteration))

    def admits(self, position: Position) -> bool:
        """False when a position reached earlier dominates ``position``; else it is noted."""
        element_index, iteration, body_index = position
        low = self.mins.get(element_index)
        if low is None or iteration < low:
            return True
        key = (element_index, body_index)
        if self.fewest.get(key, iteration + 1) <= iteration:
            return False
        self.fewest[key] = iteration
        return True

    def keeps(self, position: Position) -> bool:
        """Whether ``position`` survives among all noted ones."""
        element_index, iteration, body_index = position
        low = self.mins.get(element_index)
        if low is None or iteration < low:
            return True
        return self.fewest[(element_index, body_index)] == iteration
