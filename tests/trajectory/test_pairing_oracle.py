"""The evaluator against a brute force over every pairing, for every mode and argument rule.

Trajectories are small and built to make argument rules disagree with JSON equality: ``1``
next to ``1.0``, ``true`` next to ``1``, objects with their keys in another order, nested
values. The oracle knows nothing of the package's pairing: it asks each rule about every
pair of calls (a user's matcher called on the arguments themselves, the built-in rules
written out here), tries every one-to-one pairing (and, for graded strict mode, every
order-keeping alignment of messages), and the evaluator must give the same score; its
metadata must describe a pairing the oracle accepts, and its comment never a pair the
oracle finds compatible.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchevals.json_match import comparators
from matchevals.json_match import create_json_match_evaluator as json_match
from matchevals.trajectory import create_trajectory_match_evaluator

Args = dict[str, Any]
Call = tuple[str, Args]
Message = tuple[str, list[Call]]  # (role, calls); only assistant messages have calls
Fits = Callable[[Args, Args], bool]

MODES = ("strict", "unordered", "subset", "superset", "in_order")
SCORES = ("precision", "recall", "f1")

VALUES: tuple[Any, ...] = (
    1,
    1.0,
    True,
    0,
    -0.0,
    False,
    "1",
    None,
    {"a": 1, "b": 2},
    {"a": True, "b": 2},
    [1, [True, {"c": 0}]],
    [1, [1, {"c": 0}]],
)
"""Values that JSON equality, Python equality and picky matchers tell apart differently
(:func:`_variant` writes each in the ways JSON equality does not distinguish)."""
KEYS = ("n", "m", "o")


# --------------------------------------------------------------------------------------------
# The oracle's own JSON equality and built-in rules
# --------------------------------------------------------------------------------------------


def canonical(value: Any) -> Any:
    """A key equal for values equal as JSON (numbers by value, booleans apart, any key order)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if isinstance(value, dict):
        return ("object", frozenset((key, canonical(item)) for key, item in value.items()))
    return ("array", tuple(canonical(item) for item in value))


def _within(part: Args, whole: Args) -> bool:
    return all(
        key in whole and canonical(value) == canonical(whole[key]) for key, value in part.items()
    )


_ABSENT = object()


def _at(args: Args, dotted: str) -> Any:
    current: Any = args
    for part in dotted.split("."):
        if not isinstance(current, dict) or part not in current:
            return _ABSENT
        current = current[part]
    return current


def _keys_rule(keys: Sequence[str]) -> Fits:
    def fits(output: Args, reference: Args) -> bool:
        for key in keys:
            mine, theirs = _at(output, key), _at(reference, key)
            if mine is _ABSENT or theirs is _ABSENT or canonical(mine) != canonical(theirs):
                return False
        return True

    return fits


BUILT_IN: dict[str, Fits] = {
    "exact": lambda o, r: canonical(o) == canonical(r),
    "ignore": lambda o, r: True,
    "subset": _within,
    "superset": lambda o, r: _within(r, o),
}


# --------------------------------------------------------------------------------------------
# Users' matchers: each tells apart (or lumps together) what JSON equality does not
# --------------------------------------------------------------------------------------------


def _typed(value: Any) -> Any:
    if isinstance(value, dict):
        return frozenset((key, _typed(item)) for key, item in value.items())
    if isinstance(value, list):
        return tuple(_typed(item) for item in value)
    return (type(value).__name__, repr(value))


def typed_equal(output: Args, reference: Args) -> bool:
    """Equal with every value of the same Python type (1 is not 1.0)."""
    return _typed(output) == _typed(reference)


def ordered_equal(output: Args, reference: Args) -> bool:
    """Python equality (True == 1) with the keys in the same order."""
    return list(output) == list(reference) and output == reference


def repr_equal(output: Args, reference: Args) -> bool:
    return repr(output) == repr(reference)


def str_n(output: Args, reference: Args) -> bool:
    """The matcher of the report: ``n`` compared as text (1 and 1.0 differ)."""
    return str(output.get("n")) == str(reference.get("n"))


def python_superset(output: Args, reference: Args) -> bool:
    """Every reference argument in the output by Python equality (True == 1 == 1.0)."""
    return all(key in output and output[key] == value for key, value in reference.items())


def typed_superset_evaluator(*, outputs: Args, reference_outputs: Args) -> list[dict[str, Any]]:
    """A LangSmith-style evaluator: one result per reference argument, typed comparison."""
    return [
        {"key": key, "score": key in outputs and _typed(outputs[key]) == _typed(value)}
        for key, value in reference_outputs.items()
    ]


def repr_evaluator(*, outputs: Args, reference_outputs: Args) -> dict[str, Any]:
    return {"key": "repr", "score": int(repr(outputs) == repr(reference_outputs))}


def _evaluator_fits(function: Callable[..., Any]) -> Fits:
    def fits(output: Args, reference: Args) -> bool:
        answer = function(outputs=output, reference_outputs=reference)
        results = answer if isinstance(answer, list) else [answer]
        return all(result["score"] is True or result["score"] == 1 for result in results)

    return fits


def _json_match_fits(options: dict[str, Any]) -> Fits:
    return _evaluator_fits(json_match(**options))


# name -> (the override given to the evaluator, the oracle's rule for it)
RULES: dict[str, tuple[Any, Fits]] = {
    **{mode: (mode, fits) for mode, fits in BUILT_IN.items()},
    "keys n": (["n"], _keys_rule(["n"])),
    "keys n, o.a": (["n", "o.a"], _keys_rule(["n", "o.a"])),
    "typed matcher": (typed_equal, typed_equal),
    "key order matcher": (ordered_equal, ordered_equal),
    "repr matcher": (repr_equal, repr_equal),
    "str(n) matcher": (str_n, str_n),
    "python superset matcher": (python_superset, python_superset),
    "typed superset evaluator": (
        typed_superset_evaluator,
        _evaluator_fits(typed_superset_evaluator),
    ),
    "repr evaluator": (repr_evaluator, _evaluator_fits(repr_evaluator)),
    "json_match all": ({"aggregator": "all"}, _json_match_fits({"aggregator": "all"})),
    "json_match exclude m": (
        {"aggregator": "all", "exclude_keys": ["m"]},
        _json_match_fits({"aggregator": "all", "exclude_keys": ["m"]}),
    ),
    "json_match numeric n": (
        {"aggregator": "all", "comparators": {"n": comparators.numeric(abs_tol=1)}},
        _json_match_fits(
            {"aggregator": "all", "comparators": {"n": comparators.numeric(abs_tol=1)}}
        ),
    ),
}


# --------------------------------------------------------------------------------------------
# Small trajectories
# --------------------------------------------------------------------------------------------


def _args(rng: random.Random) -> Args:
    keys = rng.sample(KEYS, rng.randint(0, 2))
    return {key: copy.deepcopy(rng.choice(VALUES)) for key in keys}


def _variant(rng: random.Random, value: Any) -> Any:
    """A value equal to ``value`` as JSON, possibly written differently (1.0 for 1, keys in
    another order, nested too)."""
    if isinstance(value, dict):
        items = [(key, _variant(rng, item)) for key, item in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [_variant(rng, item) for item in value]
    if type(value) is int and rng.random() < 0.5:
        return float(value)
    if type(value) is float and value == int(value) and rng.random() < 0.5:
        return int(value)
    return value


def _jiggled(rng: random.Random, args: Args, change: float = 0.15) -> Args:
    """Arguments equal to ``args`` as JSON but written differently (values as variants, keys
    reordered); with probability ``change`` per key, a value replaced or a key dropped, and
    now and then a key added."""
    items = []
    for key, value in args.items():
        roll = rng.random()
        if roll < change / 2:
            continue
        new = rng.choice(VALUES) if roll < change else value
        items.append((key, _variant(rng, copy.deepcopy(new))))
    rng.shuffle(items)
    if rng.random() < change:
        extra = rng.choice(KEYS)
        if extra not in dict(items):
            items.append((extra, copy.deepcopy(rng.choice(VALUES))))
    return dict(items)


def _calls(rng: random.Random, count: int, pool: list[Call] | None = None) -> list[Call]:
    """Calls mostly of tool ``s``; with a ``pool``, often the variant of an earlier call (so
    calls equal as JSON but written differently meet on one side)."""
    made: list[Call] = []
    for _ in range(count):
        if pool and rng.random() < 0.5:
            name, args = rng.choice(pool)
            call = (name, _jiggled(rng, args, change=0.0))
        else:
            call = ("s" if rng.random() < 0.75 else "t", _args(rng))
        made.append(call)
        if pool is not None:
            pool.append(call)
    return made


def _trajectory(rng: random.Random, most_calls: int = 4, most_messages: int = 5) -> list[Message]:
    messages: list[Message] = [("user", [])]
    pool: list[Call] = []
    budget = rng.randint(0, most_calls)
    while budget and len(messages) < most_messages:
        calls = _calls(rng, rng.randint(1, min(budget, 3)), pool)
        budget -= len(calls)
        messages.append(("assistant", calls))
        if rng.random() < 0.5:
            messages.append(("tool", []))
    if rng.random() < 0.4:
        messages.append(("assistant", []))
    return messages


def _reference(rng: random.Random, outputs: list[Message]) -> list[Message]:
    """Mostly the outputs' layout, calls permuted and their arguments jiggled; sometimes a
    message or call dropped or added, sometimes another trajectory altogether."""
    if rng.random() < 0.15:
        return _trajectory(rng)
    reference: list[Message] = []
    for role, calls in outputs:
        if role == "assistant" and calls:
            moved = [(name, _jiggled(rng, args)) for name, args in calls]
            rng.shuffle(moved)
            if rng.random() < 0.1:
                moved.pop()
            if rng.random() < 0.1:
                moved += _calls(rng, 1)
            if not moved:
                moved = _calls(rng, 1)
            reference.append((role, moved))
        else:
            reference.append((role, list(calls)))
    if rng.random() < 0.1:
        reference.insert(rng.randint(1, len(reference)), ("assistant", _calls(rng, 1)))
    return reference


def _rendered(rng: random.Random, trajectory: list[Message]) -> list[dict[str, Any]]:
    """As OpenAI dicts (arguments as JSON text) or LangChain dicts (arguments as objects, now
    and then one object shared by two calls), chosen per call."""
    messages: list[dict[str, Any]] = []
    shared: dict[str, Args] = {}
    for position, (role, calls) in enumerate(trajectory):
        if role != "assistant":
            message: dict[str, Any] = {"role": role, "content": "x"}
            if role == "tool":
                message["tool_call_id"] = f"c{position}"
            messages.append(message)
            continue
        made = []
        for index, (name, args) in enumerate(calls):
            call_id = f"c{position}_{index}"
            if rng.random() < 0.5:
                text = json.dumps(args, indent=rng.choice([None, None, 1]))
                made.append({"id": call_id, "type": "function",
                             "function": {"name": name, "arguments": text}})  # fmt: skip
            else:
                key = repr(args)
                value = shared.setdefault(key, args) if rng.random() < 0.5 else copy.deepcopy(args)
                made.append({"id": call_id, "name": name, "args": value, "type": "tool_call"})
        messages.append({"role": "assistant", "content": "", "tool_calls": made})
    return messages


# --------------------------------------------------------------------------------------------
# Brute force
# --------------------------------------------------------------------------------------------

CallFits = Callable[[Call, Call], bool]


def per_tool(override: Fits, default: Fits) -> CallFits:
    """Calls pair when they call the same tool and its rule accepts their arguments: tool
    ``s`` has the override under test, tool ``t`` the default mode."""

    def fits(output: Call, reference: Call) -> bool:
        if output[0] != reference[0]:
            return False
        return (override if output[0] == "s" else default)(output[1], reference[1])

    return fits


def best_pairing(outputs: Sequence[Call], references: Sequence[Call], fits: CallFits) -> int:
    """The size of a largest one-to-one pairing of compatible calls: every injective map of
    some output calls into the reference calls is tried (each pair asked once)."""
    table = [[fits(output, reference) for reference in references] for output in outputs]
    for size in range(min(len(outputs), len(references)), 0, -1):
        for chosen in itertools.combinations(range(len(outputs)), size):
            for image in itertools.permutations(range(len(references)), size):
                if all(table[i][j] for i, j in zip(chosen, image, strict=True)):
                    return size
    return 0


def _flat(trajectory: list[Message]) -> list[Call]:
    return [call for _, calls in trajectory for call in calls]


def in_order_best(outputs: list[Message], references: list[Message], fits: CallFits) -> int:
    """The most reference calls an in-order assignment pairs, by trying every assignment: each
    reference call (in order) left out or given any free compatible output call, kept only
    when every call of an earlier reference turn went to a strictly earlier output turn than
    every call of a later one (calls of one message are one turn)."""
    out = [(turn, call) for turn, (_, calls) in enumerate(outputs) for call in calls]
    ref = [(turn, call) for turn, (_, calls) in enumerate(references) for call in calls]
    table = [[fits(o, r) for o in (call for _, call in out)] for _, r in ref]
    best = 0

    def search(j: int, taken: list[tuple[int, int]], used: set[int]) -> None:
        nonlocal best
        if j == len(ref):
            best = max(best, len(taken))
            return
        search(j + 1, taken, used)
        for i, (turn, _) in enumerate(out):
            if i in used or not table[j][i]:
                continue
            if all(
                (other_ref == ref[j][0]) or (other_ref < ref[j][0] and other_out < turn)
                for other_ref, other_out in taken
            ):
                search(j + 1, [*taken, (ref[j][0], turn)], used | {i})

    search(0, [], set())
    return best


def in_order_kept(metadata: dict[str, Any]) -> bool:
    """Whether a result's pairing keeps the reference's turns in order (by message index)."""
    calls = metadata["calls"]
    placed = [
        (calls["reference_outputs"][j]["message"], calls["outputs"][i]["message"])
        for i, j in metadata["pairing"]
        if i is not None and j is not None
    ]
    return all(a_out < b_out for a_ref, a_out in placed for b_ref, b_out in placed if a_ref < b_ref)


def oracle_verdict(
    mode: str, outputs: list[Message], references: list[Message], fits: CallFits
) -> bool:
    if mode == "in_order":
        return in_order_best(outputs, references, fits) == len(_flat(references))
    if mode == "strict":
        return len(outputs) == len(references) and all(
            role == other_role
            and len(calls) == len(other_calls)
            and best_pairing(calls, other_calls, fits) == len(calls)
            for (role, calls), (other_role, other_calls) in zip(outputs, references, strict=True)
        )
    out, ref = _flat(outputs), _flat(references)
    size = best_pairing(out, ref, fits)
    if mode == "superset":
        return size == len(ref)
    if mode == "subset":
        return size == len(out)
    return size == len(out) == len(ref)


def oracle_paired(
    mode: str, outputs: list[Message], references: list[Message], fits: CallFits
) -> int:
    """The most calls a graded score can pair: across the whole trajectories, or (strict mode)
    within the messages of an order-keeping alignment of messages of the same role."""
    if mode == "in_order":
        return in_order_best(outputs, references, fits)
    if mode != "strict":
        return best_pairing(_flat(outputs), _flat(references), fits)
    within = {
        (i, j): best_pairing(outputs[i][1], references[j][1], fits)
        for i in range(len(outputs))
        for j in range(len(references))
        if outputs[i][0] == references[j][0]
    }
    best = 0
    for size in range(min(len(outputs), len(references)) + 1):
        for chosen in itertools.combinations(range(len(outputs)), size):
            for image in itertools.combinations(range(len(references)), size):
                pairs = list(zip(chosen, image, strict=True))
                if all(pair in within for pair in pairs):
                    best = max(best, sum(within[pair] for pair in pairs))
    return best


def _grades(paired: int, outputs: int, references: int) -> dict[str, float]:
    precision = paired / outputs if outputs else 1.0
    recall = paired / references if references else 1.0
    total = precision + recall
    return {
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / total if total else 0.0,
    }


def _check_metadata(result: dict[str, Any], fits: CallFits) -> None:
    """The metadata's pairing pairs compatible calls only; every argument difference the
    explanation reports is between calls the oracle finds incompatible."""
    metadata = result["metadata"]
    calls = metadata["calls"]
    by_at = {c["at"]: c for side in ("outputs", "reference_outputs") for c in calls[side]}

    def compatible(output: dict[str, Any], reference: dict[str, Any]) -> bool:
        return fits((output["name"], output["args"]), (reference["name"], reference["args"]))

    for i, j in metadata["pairing"]:
        if i is not None and j is not None:
            assert compatible(calls["outputs"][i], calls["reference_outputs"][j])
    assert "match now" not in (result["comment"] or "")
    for entry in metadata.get("mismatches", ()):
        if entry["kind"] in ("arg", "matcher", "missing_arg", "extra_arg"):
            output, reference = by_at[entry["outputs"]], by_at[entry["reference_outputs"]]
            assert not compatible(output, reference), entry


@pytest.mark.parametrize("rule_name", list(RULES))
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_every_score_equals_the_brute_force_over_all_pairings(
    mode: str, rule_name: str, seed: int
) -> None:
    rng = random.Random(seed)
    override, override_fits = RULES[rule_name]
    default_mode = rng.choice(list(BUILT_IN))
    fits = per_tool(override_fits, BUILT_IN[default_mode])
    outputs = _trajectory(rng)
    references = _reference(rng, outputs)
    output_messages, reference_messages = _rendered(rng, outputs), _rendered(rng, references)
    verdict = oracle_verdict(mode, outputs, references, fits)
    paired = oracle_paired(mode, outputs, references, fits)
    grades = _grades(paired, len(_flat(outputs)), len(_flat(references)))
    options: dict[str, Any] = {
        "trajectory_match_mode": mode,
        "tool_args_match_mode": default_mode,
        "tool_args_match_overrides": {"s": override},
    }
    case = (output_messages, reference_messages)
    for score in ("match", *SCORES):
        evaluator = create_trajectory_match_evaluator(**options, score=score)
        result = evaluator(outputs=output_messages, reference_outputs=reference_messages)
        if score == "match":
            assert result["score"] is verdict, (result, case)
        else:
            assert result["score"] == grades[score], (result, case)
            assert result["metadata"]["match"] is verdict, (result, case)
        if result["metadata"] is not None:
            _check_metadata(result, fits)
            if mode == "in_order":
                assert in_order_kept(result["metadata"]), (result, case)
    greedy = create_trajectory_match_evaluator(**options, alignment="greedy")(
        outputs=output_messages, reference_outputs=reference_messages
    )
    if not verdict:  # greedy pairing can miss a valid pairing, never find one that is not
        assert greedy["score"] is False, (greedy, case)
    if greedy["score"] is False:
        assert greedy["metadata"]["optimal_match"] is verdict, (greedy, case)
        _check_metadata(greedy, fits)
