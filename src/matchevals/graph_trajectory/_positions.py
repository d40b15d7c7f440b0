"""Positions in a reference with patterns: the shared pattern engine's automaton
(:mod:`matchevals._patterns`), under the name the graph package has always used for it.

>>> from matchevals.graph_trajectory._reference import read_reference
>>> elements = read_reference({"steps": [{"repeat": [["a"]], "min": 1}]}, "r").elements
>>> step_at(elements, (0, 0, 0)).nodes, advance(elements, (0, 0, 0))
(['a'], (0, 1, 0))
"""

from matchevals._patterns import (
    Dominance,
    Moves,
    Position,
    advance,
    expected_length,
    position_count,
    skips,
    step_at,
)

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
