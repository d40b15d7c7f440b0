"""The pattern engine shared by graph runs and agent trajectories (private).

A reference is a sequence of steps and ``Repeat`` loops (optional steps, iterations between
``min`` and ``max``); a run is a sequence of actual steps. The engine matches a run against such
a pattern strictly (:func:`match_pattern`: positions of an automaton, one layer per actual
step) and finds its best alignment over every path the pattern allows (:func:`align_pattern`:
a best-first search over Pareto frontiers with admissible bounds). It knows nothing about what
a step holds: a :class:`Comparator` says how one reference step compares to one actual step.
The graph package compares supersteps of node names, the trajectory package assistant turns of
tool calls. Inside the engine an actual step is called a "superstep" whatever it holds.

>>> from matchevals.graph_trajectory._reference import read_reference
>>> from matchevals.graph_trajectory._superstep import COMPARATOR
>>> elements = read_reference({"steps": [["a"], {"repeat": [["b"]], "min": 0}]}, "r").elements
>>> match_pattern([["a"], ["b"], ["b"]], elements, COMPARATOR).matched
True
"""

from matchevals._patterns._alignment import (
    LOOSE_BOUND_BUDGET,
    PATTERN_CELL_LIMIT,
    Alignment,
    align_pattern,
    alignment_score,
    check_alignment_size,
    pair_record,
)
from matchevals._patterns._elements import Comparator, Difference, Loop, PatternStep, Table
from matchevals._patterns._match import Divergence, RunMatch, match_pattern
from matchevals._patterns._positions import (
    Dominance,
    Elements,
    Moves,
    Position,
    advance,
    expected_length,
    position_count,
    skips,
    step_at,
)
from matchevals._patterns._remaining_similarity import (
    WEIGHTS,
    RemainingSimilarity,
    remaining_similarity,
)
from matchevals._patterns._wording import either, names

__all__ = [
    "LOOSE_BOUND_BUDGET",
    "PATTERN_CELL_LIMIT",
    "WEIGHTS",
    "Alignment",
    "Comparator",
    "Difference",
    "Divergence",
    "Dominance",
    "Elements",
    "Loop",
    "Moves",
    "PatternStep",
    "Position",
    "RemainingSimilarity",
    "RunMatch",
    "Table",
    "advance",
    "align_pattern",
    "alignment_score",
    "check_alignment_size",
    "either",
    "expected_length",
    "match_pattern",
    "names",
    "pair_record",
    "position_count",
    "remaining_similarity",
    "skips",
    "step_at",
]
