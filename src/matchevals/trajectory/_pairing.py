"""Pairing output tool calls with reference tool calls, one to one.

Two calls can pair when they call the same tool and the tool's rule finds their arguments
compatible. :func:`maximum_pairing` finds a largest set of such pairs, so a mode's answer is
True exactly when a valid pairing exists. It equals a search over every pairing (the tests'
brute-force oracle) because each shortcut below is taken only for rules that keep its premise:

- the built-in rules (exact, ignore, subset, superset, key lists) see arguments only through
  JSON equality (``json_equal`` and ``freeze``, which agree, and are an equivalence: NaN
  equals NaN, ``1`` equals ``1.0``, ``true`` is not ``1``): two calls whose arguments are
  equal as JSON are interchangeable for them, so calls may be grouped by value (a value that
  is not JSON compares by its own ``==`` and hash: exact as far as those are an equivalence);
- for ``reflexive`` rules (exact, ignore, subset, superset: reflexive and transitive),
  calls whose arguments came as the same JSON text pair first, without hashing or comparing
  values. Exact: take such ``o`` and ``r`` (identical arguments) and a maximum pairing. If it
  holds ``(o, r')`` and ``(o', r)``, then ``o'`` fits ``r``, the same value as ``o``, which
  fits ``r'``, so ``o'`` fits ``r'`` (transitivity) and ``(o, r), (o', r')`` is as large; if
  only ``(o, r')`` (or ``(o', r)``), swapping in ``(o, r)`` keeps the size; if neither, the
  pairing was not maximum;
- ``ignore`` pairs the rest in order (every pair is compatible);
- ``exact`` on a few calls of a tool: first come, first served by equality (an equivalence,
  for which that pairs min(count) of every class: a maximum pairing);
- ``signature`` rules (exact, ignore, key lists): calls pair exactly when their signatures
  are equal, so counting equal signatures is a maximum pairing;
- ``preorder`` rules (subset, superset): JSON-equal arguments pair first (the exchange
  argument above), the rest by the general method, comparing each distinct pair of values;
- ``general`` rules (a user's matcher, an evaluator, json_match options) promise nothing, not
  even that JSON-equal arguments get the same answer: every pair of argument objects is asked
  (calls sharing one object, as calls of the same JSON text do, are asked once), then
  Hopcroft–Karp finds a maximum matching of the calls.

:func:`greedy_pairing` reproduces openevals: each driving call in turn takes the first free
compatible partner.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from typing import Literal

from matchevals.trajectory._args import ArgsRule, ArgsRules, MatcherFailed
from matchevals.trajectory._bipartite import maximum_matching
from matchevals.trajectory._json import freeze
from matchevals.trajectory._types import ToolCall

__all__ = ["Pair", "call_signature", "compatible", "greedy_pairing", "maximum_pairing"]

Pair = tuple[int, int]
"""``(output call index, reference call index)``."""

Driver = Literal["outputs", "references"]


def compatible(rule: ArgsRule, output: ToolCall, reference: ToolCall) -> bool:
    """Ask the rule about two calls of its tool; a failing matcher is named with both calls."""
    try:
        return rule.compatible(output.args, reference.args)
    except MatcherFailed as error:
        raise ValueError(f"{error} (comparing {output.at} with {reference.at})") from (
            error.__cause__ or error
        )
    except TypeError as error:
        raise TypeError(f"comparing {output.at} with {reference.at}: {error}") from None


def _by_name(calls: Sequence[ToolCall], indices: Sequence[int]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index in indices:
        call = calls[index]
        group = groups.get(call.name)
        if group is None:
            groups[call.name] = [index]
        else:
            group.append(index)
    return groups


def maximum_pairing(
    outputs: Sequence[ToolCall], references: Sequence[ToolCall], rules: ArgsRules
) -> list[Pair]:
    """A maximum set of disjoint compatible pairs, sorted by output index.

    >>> from matchevals.trajectory._rules import build_rules
    >>> from matchevals.trajectory._types import ToolCall
    >>> calls = lambda *args: [
    ...     ToolCall("search", a, None, 0, ("outputs", 0, "tool_calls", i))
    ...     for i, a in enumerate(args)]
    >>> outputs = calls({"q": "x"}, {"q": "x", "lang": "en"})
    >>> references = calls({"q": "x", "lang": "en"}, {"q": "x"})
    >>> maximum_pairing(outputs, references, build_rules("subset", None))
    [(0, 1), (1, 0)]
    """
    pairs, output_rest, reference_rest = _pair_same_text(outputs, references, rules)
    if output_rest and reference_rest:
        reference_groups = _by_name(references, reference_rest)
        for name, output_indices in _by_name(outputs, output_rest).items():
            reference_indices = reference_groups.get(name)
            if reference_indices:
                pairs += _pair_group(
                    rules.rule_for(name), output_indices, reference_indices, outputs, references
                )
    pairs.sort()
    return pairs


def _pair_same_text(
    outputs: Sequence[ToolCall], references: Sequence[ToolCall], rules: ArgsRules
) -> tuple[list[Pair], list[int], list[int]]:
    """Pair calls of a ``reflexive`` rule's tool whose arguments are the same JSON text; return
    the pairs and the indices of the calls left.

    Buckets are keyed by the text alone (a string caches its hash) and hold the calls of any
    tool; a bucket is searched for the first call of the same tool.
    """
    waiting: dict[str, list[int]] = {}
    reference_rest = []
    mixed = not rules.all_reflexive  # some tools' rules are not reflexive: ask per call
    for j, call in enumerate(references):
        text = call.text
        if text is None or (mixed and not rules.rule_for(call.name).reflexive):
            reference_rest.append(j)
            continue
        bucket = waiting.get(text)
        if bucket is None:
            waiting[text] = [j]
        else:
            bucket.append(j)
    if not waiting:
        return [], list(range(len(outputs))), reference_rest
    pairs, output_rest = [], []
    for i, call in enumerate(outputs):
        text = call.text
        bucket = waiting.get(text) if text is not None else None
        if bucket:
            name = call.name
            j = bucket[0]
            if references[j].name == name:  # the usual case: one tool per text
                pairs.append((i, j))
                del bucket[0]
                continue
            for place, j in enumerate(bucket):
                if references[j].name == name:
                    pairs.append((i, j))
                    del bucket[place]
                    break
            else:
                output_rest.append(i)
        else:
            output_rest.append(i)
    if len(pairs) + len(reference_rest) < len(references):
        reference_rest += (j for bucket in waiting.values() for j in bucket)
        reference_rest.sort()
    return pairs, output_rest, reference_rest


def _pair_group(
    rule: ArgsRule,
    output_indices: list[int],
    reference_indices: list[int],
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
) -> list[Pair]:
    """A maximum pairing of calls of one tool."""
    if rule.description == "ignore":
        return list(zip(output_indices, reference_indices, strict=False))
    if rule.description == "exact" and len(output_indices) * len(reference_indices) <= _SCAN:
        # Equality is an equivalence: first come, first served pairs min(count) of every
        # class of equal arguments, a maximum pairing, without hashing anything.
        return _first_equal(rule, output_indices, reference_indices, outputs, references)
    if rule.kind == "signature":
        return _pair_signatures(rule, output_indices, reference_indices, outputs, references)
    if rule.kind == "preorder":
        return _pair_preorder(rule, output_indices, reference_indices, outputs, references)
    return _pair_general(rule, output_indices, reference_indices, outputs, references)


_SCAN = 36  # up to 6 × 6 calls of one tool, comparing is cheaper than hashing both sides


def _first_equal(
    rule: ArgsRule,
    output_indices: list[int],
    reference_indices: list[int],
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
) -> list[Pair]:
    free = list(reference_indices)
    pairs = []
    for i in output_indices:
        output = outputs[i]
        for place, j in enumerate(free):
            if compatible(rule, output, references[j]):
                pairs.append((i, j))
                del free[place]
                break
    return pairs


def call_signature(rule: ArgsRule, call: ToolCall) -> Hashable | None:
    """A ``signature`` rule's signature of a call's arguments; arguments that are not JSON
    values are named."""
    try:
        return rule.signature(call.args)
    except TypeError as error:
        raise TypeError(f"{call.at} has arguments that are not JSON values: {error}") from None


def _pair_signatures(
    rule: ArgsRule,
    output_indices: list[int],
    reference_indices: list[int],
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
) -> list[Pair]:
    waiting: dict[Hashable, deque[int]] = {}
    for j in reference_indices:
        signature = call_signature(rule, references[j])
        if signature is not None:
            waiting.setdefault(signature, deque()).append(j)
    pairs = []
    for i in output_indices:
        signature = call_signature(rule, outputs[i])
        if signature is None:
            continue
        queue = waiting.get(signature)
        if queue:
            pairs.append((i, queue.popleft()))
    return pairs


def _frozen(call: ToolCall, fallback: int) -> Hashable:
    try:
        return freeze(call.args)
    except TypeError:  # not JSON: this call only equals itself
        return ("\x00unhashable", fallback)


def _pair_preorder(
    rule: ArgsRule,
    output_indices: list[int],
    reference_indices: list[int],
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
) -> list[Pair]:
    waiting: dict[Hashable, deque[int]] = {}
    for j in reference_indices:
        waiting.setdefault(_frozen(references[j], -1 - j), deque()).append(j)
    pairs, rest = [], []
    for i in output_indices:
        queue = waiting.get(_frozen(outputs[i], i))
        if queue:
            pairs.append((i, queue.popleft()))
        else:
            rest.append(i)
    if rest and any(waiting.values()):
        remaining = sorted(j for queue in waiting.values() for j in queue)
        pairs += _pair_general(rule, rest, remaining, outputs, references)
    return pairs


def _identity(call: ToolCall, fallback: int) -> Hashable:
    return id(call.args)


def _pair_general(
    rule: ArgsRule,
    output_indices: list[int],
    reference_indices: list[int],
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
) -> list[Pair]:
    """A maximum pairing by Hopcroft–Karp, asking the rule once per distinct pair of values:
    values equal as JSON for a built-in rule, the same argument object for any other (a
    user's matcher may tell apart what JSON equality does not)."""
    value_key = _frozen if rule.kind == "preorder" else _identity
    output_values: dict[Hashable, int] = {}
    output_value_of = [
        output_values.setdefault(value_key(outputs[i], i), len(output_values))
        for i in output_indices
    ]
    reference_values: dict[Hashable, int] = {}
    reference_value_of = [
        reference_values.setdefault(value_key(references[j], -1 - j), len(reference_values))
        for j in reference_indices
    ]
    output_first = _first_positions(output_value_of)
    reference_first = _first_positions(reference_value_of)
    # Compare each distinct pair of argument values once.
    partners_of_value: list[list[int]] = []
    for value in range(len(output_values)):
        output = outputs[output_indices[output_first[value]]]
        fitting = {
            other
            for other in range(len(reference_values))
            if compatible(rule, output, references[reference_indices[reference_first[other]]])
        }
        partners_of_value.append(
            [position for position, other in enumerate(reference_value_of) if other in fitting]
        )
    adjacency = [partners_of_value[value] for value in output_value_of]
    matched = maximum_matching(adjacency, len(reference_indices))
    return [
        (output_indices[left], reference_indices[right])
        for left, right in enumerate(matched)
        if right >= 0
    ]


def _first_positions(value_of: list[int]) -> dict[int, int]:
    first: dict[int, int] = {}
    for position, value in enumerate(value_of):
        first.setdefault(value, position)
    return first


def greedy_pairing(
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
    rules: ArgsRules,
    driver: Driver,
) -> list[Pair]:
    """openevals' pairing: each call of the ``driver`` side, in order, takes the first free
    compatible call of the other side. Sorted by output index."""
    if driver == "references":
        return sorted((i, j) for j, i in _first_free(references, outputs, rules, False))
    return sorted(_first_free(outputs, references, rules, True))


def _first_free(
    drivers: Sequence[ToolCall],
    others: Sequence[ToolCall],
    rules: ArgsRules,
    drivers_are_outputs: bool,
) -> list[Pair]:
    """``(driver index, other index)``: each driver, in order, takes the first free call of the
    same tool that its rule accepts."""
    found: list[Pair] = []
    taken = [False] * len(others)
    for d, call in enumerate(drivers):
        rule = rules.rule_for(call.name)
        for o, other in enumerate(others):
            if taken[o] or other.name != call.name:
                continue
            output, reference = (call, other) if drivers_are_outputs else (other, call)
            if compatible(rule, output, reference):
                taken[o] = True
                found.append((d, o))
                break
    return found
