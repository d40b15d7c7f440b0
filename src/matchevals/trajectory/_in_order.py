"""``in_order`` mode: every reference call paired with its own output call, reference turns
kept in order.

A *turn* is a message with tool calls; the calls of one turn are concurrent (their order never
matters, on either side). A pairing keeps the order when, for reference turns ``s`` before
``t``, every output call paired with a call of ``s`` is in an output turn strictly before every
output call paired with a call of ``t``: the output turns each reference turn uses lie in
disjoint intervals, in reference order. Extra output calls and messages are allowed anywhere.

- :func:`covering_pairing` decides the mode: each reference turn in order takes the *earliest
  end* of an interval of output turns, starting after the previous turn's end, in which a
  maximum pairing covers its calls (found by galloping, then bisecting, over the end). This is
  optimal: a bigger interval only adds output calls, so coverage is monotone in its end; if
  some in-order pairing uses intervals ``[a_t, b_t]``, then by induction ``e_t <= b_t`` (the
  window ``[e_(t-1) + 1, b_t]`` contains ``[a_t, b_t]``, since ``e_(t-1) <= b_(t-1) < a_t``),
  so the earliest ends never run out where that pairing does not.
- :func:`best_pairing` is the exact maximum number of reference calls an in-order pairing
  covers (graded scores and explanations): a dynamic programme over reference turns and output
  turn boundaries, ``best[t][x]`` the most calls of reference turns ``< t`` paired within
  output turns ``< x``. Turn ``t`` may take any interval ``[b, j]``; only starts ``b`` where
  ``best[t]`` first reaches a value are tried (an earlier start of equal value sees a superset
  of calls), and each start's interval grows one output turn at a time, a maximum pairing kept
  by one augmenting search per new output call (:class:`_Growing`), until it covers the turn.
  Polynomial: at most ``turns × turns`` growth steps per reference turn, each ``O(edges)``.
- :func:`first_fit_pairing` is ``alignment="greedy"``: each reference call, turn by turn, takes
  the first free compatible output call after the previous turn's last partner.

Compatibility is :func:`._pairing.compatible` (a user's matcher is asked about every pair a
pairing relies on, once per evaluation) or :func:`._pairing.maximum_pairing` on an interval.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from matchevals.trajectory._args import ArgsRules
from matchevals.trajectory._pairing import (
    Pair,
    call_signature,
    compatible,
    greedy_pairing,
    maximum_pairing,
)
from matchevals.trajectory._types import ToolCall, Trajectory

__all__ = ["Turns", "best_pairing", "covering_pairing", "first_fit_pairing"]


@dataclass(frozen=True, slots=True)
class Turns:
    """The turns of one side: ``starts[u]`` is the index (in ``calls``) of turn ``u``'s first
    call, ``starts[-1] == len(calls)``; ``turn_of[i]`` the turn of call ``i``, ``by_name`` the
    indices of each tool's calls."""

    calls: tuple[ToolCall, ...]
    starts: tuple[int, ...]
    turn_of: tuple[int, ...] = field(init=False)
    by_name: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        turn_of: list[int] = []
        for turn in range(len(self.starts) - 1):
            turn_of += [turn] * (self.starts[turn + 1] - self.starts[turn])
        by_name: dict[str, list[int]] = {}
        for index, call in enumerate(self.calls):
            by_name.setdefault(call.name, []).append(index)
        object.__setattr__(self, "turn_of", tuple(turn_of))
        object.__setattr__(self, "by_name", by_name)

    @classmethod
    def of(cls, trajectory: Trajectory) -> Turns:
        starts, total = [], 0
        for calls in trajectory.message_calls:
            if calls:
                starts.append(total)
                total += len(calls)
        starts.append(total)
        return cls(tuple(trajectory.calls), tuple(starts))

    def __len__(self) -> int:
        return len(self.starts) - 1

    def span(self, first: int, last: int) -> range:
        """The call indices of turns ``first`` to ``last`` (inclusive)."""
        return range(self.starts[first], self.starts[last + 1])


def _pair_span(
    outputs: Turns, first: int, last: int, references: Sequence[ToolCall], rules: ArgsRules
) -> list[Pair]:
    """A maximum pairing of ``references`` with the output calls of turns ``first..last``;
    output indices are the trajectory's."""
    span = outputs.span(first, last)
    found = maximum_pairing(outputs.calls[span.start : span.stop], references, rules)
    return [(span.start + i, j) for i, j in found]


def covering_pairing(outputs: Turns, references: Turns, rules: ArgsRules) -> list[Pair] | None:
    """An in-order pairing covering every reference call (sorted), or None when none exists.

    >>> from matchevals.trajectory._messages import read_trajectory
    >>> from matchevals.trajectory._rules import build_rules
    >>> ai = lambda *names: {"role": "ai", "tool_calls": [{"name": n, "args": {}} for n in names]}
    >>> out = Turns.of(read_trajectory([ai("a"), ai("x", "b"), ai("c")], "outputs"))
    >>> ref = Turns.of(read_trajectory([ai("b", "a"), ai("c")], "reference_outputs"))
    >>> covering_pairing(out, ref, build_rules("exact", None))
    [(0, 1), (2, 0), (3, 2)]
    >>> covering_pairing(out, Turns.of(read_trajectory([ai("b"), ai("a")], "r")),
    ...                  build_rules("exact", None)) is None
    True
    """
    pairs: list[Pair] = []
    start, last = 0, len(outputs) - 1
    for turn in range(len(references)):
        span = references.span(turn, turn)
        calls = references.calls[span.start : span.stop]
        found = _earliest_cover(outputs, start, last, calls, rules)
        if found is None:
            return None
        end, within = found
        pairs += [(i, span.start + j) for i, j in within]
        start = end + 1
    pairs.sort()
    return pairs


def _earliest_cover(
    outputs: Turns, start: int, last: int, calls: Sequence[ToolCall], rules: ArgsRules
) -> tuple[int, list[Pair]] | None:
    """The least end ``e`` such that turns ``start..e`` cover ``calls``, with that pairing."""
    if start > last:
        return None
    low, step, covering = start - 1, 1, None  # turns start..low do not cover
    high = start
    while True:  # gallop: ends start, start+1, start+3, ... until one covers
        if len(outputs.span(start, high)) >= len(calls):
            found = _pair_span(outputs, start, high, calls, rules)
            if len(found) == len(calls):
                covering = (high, found)
                break
        if high == last:
            return None
        low, high, step = high, min(last, high + step), step * 2
    while covering[0] - low > 1:  # bisect between an end that fails and one that covers
        middle = (low + covering[0]) // 2
        found = _pair_span(outputs, start, middle, calls, rules)
        if len(found) == len(calls):
            covering = (middle, found)
        else:
            low = middle
    return covering


def first_fit_pairing(outputs: Turns, references: Turns, rules: ArgsRules) -> list[Pair]:
    """``alignment="greedy"``: reference turns in order, each reference call taking the first
    free compatible output call after the previous turn's partners (a call without one is left
    out). The pairs keep the order; sorted."""
    pairs: list[Pair] = []
    start = 0  # the first output call a turn may use
    for turn in range(len(references)):
        span = references.span(turn, turn)
        found = greedy_pairing(
            outputs.calls[start:], references.calls[span.start : span.stop], rules, "references"
        )
        if found:
            pairs += [(start + i, span.start + j) for i, j in found]
            end_message = max(outputs.calls[start + i].message for i, _ in found)
            while start < len(outputs.calls) and outputs.calls[start].message <= end_message:
                start += 1
    pairs.sort()
    return pairs


class _Growing:
    """A maximum pairing of one reference turn's calls (left) with output calls (right) added
    one at a time: after each addition, one augmenting search from the new call keeps it
    maximum (an augmenting path must end at a free output call; one ending at an earlier call
    would have been found when that call came)."""

    __slots__ = ("neighbours", "partner", "size")

    def __init__(self, left_count: int, neighbours: dict[int, list[int]]) -> None:
        self.neighbours = neighbours  # right -> its compatible left calls
        self.partner = [-1] * left_count  # left -> its right, or -1
        self.size = 0

    def add(self, right: int) -> None:
        """Add output call ``right``; the pairing grows by one when an augmenting path ends
        there (an iterative depth-first search over alternating paths)."""
        visited: set[int] = set()
        stack = [right]  # right vertices on the path
        positions = [0]  # the next neighbour each of them tries
        via: list[int] = []  # the left vertex taken from each right vertex but the last
        while stack:
            vertex, position = stack[-1], positions[-1]
            options = self.neighbours[vertex]
            if position == len(options):
                stack.pop()
                positions.pop()
                if via:
                    via.pop()
                continue
            positions[-1] = position + 1
            left = options[position]
            if left in visited:
                continue
            visited.add(left)
            via.append(left)
            owner = self.partner[left]
            if owner < 0:
                for right_vertex, left_vertex in zip(stack, via, strict=True):
                    self.partner[left_vertex] = right_vertex
                self.size += 1
                return
            stack.append(owner)
            positions.append(0)


class _Fits:
    """Which output calls fit a reference call: looked up by signature for ``signature`` rules
    (each tool's output calls indexed once), else the rule asked about each output call of the
    tool (a user's matcher remembers its answers within the evaluation)."""

    __slots__ = ("indexed", "outputs", "rules")

    def __init__(self, outputs: Turns, rules: ArgsRules) -> None:
        self.outputs, self.rules = outputs, rules
        self.indexed: dict[str, dict[Hashable, list[int]]] = {}

    def of(self, reference: ToolCall) -> Sequence[int]:
        """The indices of the output calls ``reference`` fits, in order."""
        name, rule = reference.name, self.rules.rule_for(reference.name)
        calls = self.outputs.calls
        if rule.kind != "signature":
            return [i for i in self.outputs.by_name.get(name, ()) if compatible(rule, calls[i], reference)]  # fmt: skip # noqa: E501
        index = self.indexed.get(name)
        if index is None:
            index = self.indexed[name] = {}
            for i in self.outputs.by_name.get(name, ()):
                signature = call_signature(rule, calls[i])
                if signature is not None:
                    index.setdefault(signature, []).append(i)
        signature = call_signature(rule, reference)
        return () if signature is None else index.get(signature, ())


def _fitting(calls: Sequence[ToolCall], fits: _Fits) -> dict[int, list[int]]:
    """For every output call compatible with some of ``calls``: those it fits."""
    found: dict[int, list[int]] = {}
    for j, call in enumerate(calls):
        for right in fits.of(call):
            found.setdefault(right, []).append(j)
    return found


def _turn_gains(
    outputs: Turns, calls: Sequence[ToolCall], fitting: _Fits, starts: list[int], best: list[int]
) -> list[tuple[int, int, int]]:
    """``(start, end, size)`` each time the maximum pairing of ``calls`` within output turns
    ``start..end`` grows, for every start given (turns without a compatible call skipped).

    A start stops growing at the first later start whose ``best`` is ``len(calls)`` higher:
    from there on that one does at least as well (a pairing holds at most ``len(calls)``), so
    each start grows over a few starts' turns, not to the end of the outputs."""
    fits = _fitting(calls, fitting)
    rights_of_turn: dict[int, list[int]] = {}
    for right in sorted(fits):
        rights_of_turn.setdefault(outputs.turn_of[right], []).append(right)
    useful = sorted(rights_of_turn)
    gains = []
    later = 0  # the first start whose best is len(calls) above this one's (none: len(starts))
    for index, start in enumerate(starts):
        later = max(later, index + 1)
        while later < len(starts) and best[starts[later]] < best[start] + len(calls):
            later += 1
        first = bisect_left(useful, start)
        last = len(useful) if later == len(starts) else bisect_left(useful, starts[later])
        if first == last:
            continue
        growing = _Growing(len(calls), fits)
        for turn in useful[first:last]:
            before = growing.size
            for right in rights_of_turn[turn]:
                growing.add(right)
            if growing.size > before:
                gains.append((start, turn, growing.size))
                if growing.size == len(calls):
                    break
    return gains


def best_pairing(outputs: Turns, references: Turns, rules: ArgsRules) -> list[Pair]:
    """A pairing keeping the order that covers the most reference calls (sorted).

    >>> from matchevals.trajectory._messages import read_trajectory
    >>> from matchevals.trajectory._rules import build_rules
    >>> ai = lambda *names: {"role": "ai", "tool_calls": [{"name": n, "args": {}} for n in names]}
    >>> out = Turns.of(read_trajectory([ai("b"), ai("a"), ai("c")], "outputs"))
    >>> ref = Turns.of(read_trajectory([ai("a"), ai("b"), ai("c")], "reference_outputs"))
    >>> best_pairing(out, ref, build_rules("exact", None))
    [(0, 1), (2, 2)]
    """
    count = len(outputs)
    best = [0] * (count + 1)  # best[x]: the most reference calls paired within turns < x
    # how each reference turn's row was reached: -1 skip the turn, -2 carry from x - 1,
    # else the start of the interval ending at x - 1
    choices: list[list[int]] = []
    fitting = _Fits(outputs, rules)
    for turn in range(len(references)):
        span = references.span(turn, turn)
        calls = references.calls[span.start : span.stop]
        starts = [x for x in range(count) if x == 0 or best[x] > best[x - 1]]
        row, choice = list(best), [-1] * (count + 1)
        for start, end, size in _turn_gains(outputs, calls, fitting, starts, best):
            if best[start] + size > row[end + 1]:
                row[end + 1], choice[end + 1] = best[start] + size, start
        for x in range(1, count + 1):
            if row[x - 1] > row[x]:
                row[x], choice[x] = row[x - 1], -2
        best = row
        choices.append(choice)
    pairs: list[Pair] = []
    x = count
    for turn in range(len(references) - 1, -1, -1):
        choice = choices[turn]
        while choice[x] == -2:
            x -= 1
        if choice[x] >= 0:
            span = references.span(turn, turn)
            calls = references.calls[span.start : span.stop]
            found = _pair_span(outputs, choice[x], x - 1, calls, rules)
            pairs += [(i, span.start + j) for i, j in found]
            x = choice[x]
    pairs.sort()
    return pairs
