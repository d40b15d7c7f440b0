"""The five trajectory modes, on normalized trajectories.

- ``unordered`` / ``subset`` / ``superset`` look only at the tool calls of the whole trajectory:
  ``superset`` holds when every reference call has its own compatible output call, ``subset``
  when every output call has its own compatible reference call, ``unordered`` when both
  (one pairing covering every call of both sides).
- ``strict`` (as openevals): the same number of messages; at each position the same role, tool
  calls on both sides or neither, as many on each side, and the calls of the two messages
  paired as a set. Message text and tool-call ids are not compared.
- ``in_order`` (a matchevals extension): every reference call has its own compatible output
  call, and the reference's turns (messages with calls) keep their order in the outputs
  (:mod:`._in_order`); extra output calls are fine anywhere.

With ``alignment="optimal"`` pairings are maximum pairings (:func:`maximum_pairing`); with
``"greedy"`` they are openevals' (:func:`greedy_pairing`; unordered runs its two greedy
checks, as openevals does; in_order its first fit turn by turn). Graded scores use the same
pairing; for strict mode the messages are then aligned by :func:`align_messages` when the
positions do not line up, for in_order the pairing is the in-order one covering the most
reference calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matchevals.trajectory._args import ArgsRules
from matchevals.trajectory._in_order import (
    Turns,
    best_pairing,
    covering_pairing,
    first_fit_pairing,
)
from matchevals.trajectory._pairing import Pair, greedy_pairing, maximum_pairing
from matchevals.trajectory._types import (
    Alignment,
    ToolCall,
    Trajectory,
    TrajectoryMatchMode,
)

__all__ = ["Matching", "align_messages", "match_trajectories"]

MessagePair = tuple[int | None, int | None]


@dataclass(slots=True)
class Matching:
    """A mode's verdict and the pairing behind it.

    ``pairs`` index ``output_calls`` and ``reference_calls`` (every call of each trajectory, in
    order); ``message_pairs`` (strict mode only) pair message positions, ``None`` for a message
    without a partner.
    """

    match: bool
    output_calls: tuple[ToolCall, ...]
    reference_calls: tuple[ToolCall, ...]
    pairs: tuple[Pair, ...]
    message_pairs: tuple[MessagePair, ...] | None = None

    @property
    def precision(self) -> float:
        """Paired output calls / output calls (1.0 without output calls)."""
        return len(self.pairs) / len(self.output_calls) if self.output_calls else 1.0

    @property
    def recall(self) -> float:
        """Paired reference calls / reference calls (1.0 without reference calls)."""
        return len(self.pairs) / len(self.reference_calls) if self.reference_calls else 1.0

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall (1.0 when neither side calls a tool)."""
        precision, recall = self.precision, self.recall
        total = precision + recall
        return 2 * precision * recall / total if total else 0.0


def match_trajectories(
    outputs: Trajectory,
    references: Trajectory,
    *,
    mode: TrajectoryMatchMode,
    rules: ArgsRules,
    alignment: Alignment,
    graded: bool = False,
) -> Matching:
    """Decide ``mode`` for two normalized trajectories.

    >>> from matchevals.trajectory._rules import build_rules
    >>> from matchevals.trajectory._messages import read_trajectory
    >>> out = read_trajectory([{"role": "ai", "tool_calls": [
    ...     {"name": "a", "args": {}}, {"name": "b", "args": {}}]}], "outputs")
    >>> ref = read_trajectory([{"role": "ai", "tool_calls": [{"name": "b", "args": {}}]}],
    ...                       "reference_outputs")
    >>> match_trajectories(out, ref, mode="superset", rules=build_rules("exact", None),
    ...                    alignment="optimal").match
    True
    """
    if mode == "strict":
        return _strict(outputs, references, rules, alignment, graded)
    if mode == "in_order":
        return _in_order(outputs, references, rules, alignment)
    output_calls, reference_calls = tuple(outputs.calls), tuple(references.calls)
    if alignment == "optimal":
        pairs = maximum_pairing(output_calls, reference_calls, rules)
        covers_references = len(pairs) == len(reference_calls)
        covers_outputs = len(pairs) == len(output_calls)
    elif mode == "subset":
        pairs = greedy_pairing(output_calls, reference_calls, rules, "outputs")
        covers_references, covers_outputs = False, len(pairs) == len(output_calls)
    else:
        pairs = greedy_pairing(output_calls, reference_calls, rules, "references")
        covers_references, covers_outputs = len(pairs) == len(reference_calls), False
        if mode == "unordered" and covers_references:
            # openevals' second check, with its own greedy pairing driven by the outputs
            driven = greedy_pairing(output_calls, reference_calls, rules, "outputs")
            covers_outputs = len(driven) == len(output_calls)
            if not covers_outputs:
                pairs = driven
    if mode == "superset":
        verdict = covers_references
    elif mode == "subset":
        verdict = covers_outputs
    else:
        verdict = covers_references and covers_outputs
    return Matching(verdict, output_calls, reference_calls, tuple(pairs))


def _in_order(
    outputs: Trajectory, references: Trajectory, rules: ArgsRules, alignment: Alignment
) -> Matching:
    """The verdict, with the in-order pairing covering the most reference calls (the covering
    one found first when there is one; the greedy first fit under ``alignment="greedy"``)."""
    output_turns, reference_turns = Turns.of(outputs), Turns.of(references)
    if alignment == "greedy":
        pairs = first_fit_pairing(output_turns, reference_turns, rules)
    else:
        covering = covering_pairing(output_turns, reference_turns, rules)
        pairs = covering if covering is not None else best_pairing(output_turns, reference_turns, rules)  # fmt: skip # noqa: E501
    verdict = len(pairs) == len(references.calls)
    return Matching(verdict, output_turns.calls, reference_turns.calls, tuple(pairs))


def _pair_messages(
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
    rules: ArgsRules,
    alignment: Alignment,
) -> list[Pair]:
    """The pairing of two messages' calls, indexed within each message."""
    if alignment == "optimal":
        return maximum_pairing(outputs, references, rules)
    return greedy_pairing(outputs, references, rules, "outputs")


def _offsets(trajectory: Trajectory) -> list[int]:
    offsets, total = [], 0
    for calls in trajectory.message_calls:
        offsets.append(total)
        total += len(calls)
    return offsets


def _strict(
    outputs: Trajectory,
    references: Trajectory,
    rules: ArgsRules,
    alignment: Alignment,
    graded: bool,
) -> Matching:
    output_roles, reference_roles = outputs.roles, references.roles
    verdict = len(output_roles) == len(reference_roles)
    shared = min(len(output_roles), len(reference_roles))
    output_offsets, reference_offsets = _offsets(outputs), _offsets(references)
    pairs: list[Pair] = []
    for position in range(shared):
        if output_roles[position] != reference_roles[position]:
            verdict = False
            continue
        output_calls = outputs.message_calls[position]
        reference_calls = references.message_calls[position]
        count, expected = len(output_calls), len(reference_calls)
        if count != expected:
            verdict = False
        if not count or not expected:
            continue
        found = _pair_messages(output_calls, reference_calls, rules, alignment)
        if len(found) != expected:
            verdict = False
        first_output, first_reference = output_offsets[position], reference_offsets[position]
        pairs += [(first_output + i, first_reference + j) for i, j in found]
    message_pairs: list[MessagePair] = [(position, position) for position in range(shared)]
    message_pairs += [(position, None) for position in range(shared, len(output_roles))]
    message_pairs += [(None, position) for position in range(shared, len(reference_roles))]
    if graded and not verdict:
        aligned, pairs = align_messages(outputs, references, rules, alignment)
        message_pairs = list(aligned)
    return Matching(
        verdict,
        tuple(outputs.calls),
        tuple(references.calls),
        tuple(sorted(pairs)),
        tuple(message_pairs),
    )


def align_messages(
    outputs: Trajectory, references: Trajectory, rules: ArgsRules, alignment: Alignment
) -> tuple[list[MessagePair], list[Pair]]:
    """The order-preserving alignment of messages (same role only, gaps allowed) that pairs the
    most tool calls, then aligns the most messages; ties go to the earliest partners.

    Returns the message pairs (every message once) and the call pairs (trajectory indices).
    """
    rows, columns = len(outputs), len(references)
    output_roles, reference_roles = outputs.roles, references.roles
    output_calls, reference_calls = outputs.message_calls, references.message_calls
    within: dict[tuple[int, int], list[Pair]] = {}
    # best[i][j]: (calls paired, messages aligned) for outputs[i:] against references[j:]
    best = [[(0, 0)] * (columns + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(columns - 1, -1, -1):
            candidate = max(below[j], row[j + 1])
            if output_roles[i] == reference_roles[j]:
                gained = 0
                if output_calls[i] and reference_calls[j]:
                    found = _pair_messages(output_calls[i], reference_calls[j], rules, alignment)
                    within[(i, j)] = found
                    gained = len(found)
                after = below[j + 1]
                candidate = max(candidate, (after[0] + gained, after[1] + 1))
            row[j] = candidate
    output_offsets, reference_offsets = _offsets(outputs), _offsets(references)
    message_pairs: list[MessagePair] = []
    pairs: list[Pair] = []
    i = j = 0
    while i < rows and j < columns:
        here = best[i][j]
        if output_roles[i] == reference_roles[j]:
            found = within.get((i, j), [])
            after = best[i + 1][j + 1]
            if (after[0] + len(found), after[1] + 1) == here:
                message_pairs.append((i, j))
                pairs += [(output_offsets[i] + a, reference_offsets[j] + b) for a, b in found]
                i, j = i + 1, j + 1
                continue
        if best[i + 1][j] == here:
            message_pairs.append((i, None))
            i += 1
        else:
            message_pairs.append((None, j))
            j += 1
    message_pairs += [(rest, None) for rest in range(i, rows)]
    message_pairs += [(None, rest) for rest in range(j, columns)]
    return message_pairs, pairs
