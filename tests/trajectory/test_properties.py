"""Invariants on generated trajectories (any JSON arguments, any mix of message formats)."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.trajectory.helpers import (
    ARGS_MODES,
    MODES,
    assistant,
    close_counts,
    langchain_call,
    lowercase_query,
    openai_call,
    tool,
    user,
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text(max_size=3),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=6,
)
arguments = st.dictionaries(st.sampled_from(["q", "n", "lang", "opts"]), json_values, max_size=3)
calls = st.lists(st.tuples(st.sampled_from(["search", "fetch", "t"]), arguments), max_size=7)


def _messages(found: list[tuple[str, dict[str, Any]]], rng: random.Random) -> list[Any]:
    messages: list[Any] = [user()]
    pending = list(found)
    while pending:
        take = rng.randint(1, min(3, len(pending)))
        batch, pending = pending[:take], pending[take:]
        made = [
            openai_call(name, args) if rng.random() < 0.5 else langchain_call(name, args)
            for name, args in batch
        ]
        messages.append(assistant(*made))
        messages.extend(tool() for _ in batch)
    return messages


options = st.fixed_dictionaries(
    {
        "trajectory_match_mode": st.sampled_from([*MODES, "in_order"]),
        "tool_args_match_mode": st.sampled_from(ARGS_MODES),
        "alignment": st.sampled_from(["optimal", "greedy"]),
        "score": st.sampled_from(["match", "precision", "recall", "f1"]),
        "tool_args_match_overrides": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {},
                optional={
                    "search": st.sampled_from(["ignore", ["q"], lowercase_query]),
                    "t": st.sampled_from([close_counts, "superset", {"exclude_keys": ["n"]}]),
                },
            ),
        ),
    }
)


def _safe(found: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """The matchers above read ``q`` as text and ``n`` as a number; the key list ``["q"]``
    needs ``q`` on both sides (openevals' rule), so every search has one."""
    fixed = []
    for name, args in found:
        args = dict(args)
        if "q" in args or name == "search":
            args["q"] = str(args.get("q"))
        if "n" in args:
            args["n"] = int(args["n"]) if isinstance(args["n"], (int, float)) else 0
        fixed.append((name, args))
    return fixed


@settings(max_examples=100, deadline=None)
@given(calls, st.randoms(use_true_random=False))
def test_calls_shuffled_across_messages_match_unordered(
    found: list[tuple[str, dict[str, Any]]], rng: random.Random
) -> None:
    shuffled = list(found)
    rng.shuffle(shuffled)
    for args_mode in ARGS_MODES:
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode="unordered",
            tool_args_match_mode=args_mode,  # type: ignore[arg-type]
        )
        result = evaluator(
            outputs=_messages(found, rng), reference_outputs=_messages(shuffled, rng)
        )
        assert result["score"] is True, result["comment"]


@settings(max_examples=80, deadline=None)
@given(calls, calls, options, st.randoms(use_true_random=False))
def test_sync_equals_async_and_nothing_is_mutated(
    found: list[tuple[str, dict[str, Any]]],
    other: list[tuple[str, dict[str, Any]]],
    chosen: dict[str, Any],
    rng: random.Random,
) -> None:
    outputs, references = _messages(_safe(found), rng), _messages(_safe(other), rng)
    before = copy.deepcopy((outputs, references))
    result = create_trajectory_match_evaluator(**chosen)(
        outputs=outputs, reference_outputs=references
    )
    again = asyncio.run(
        create_async_trajectory_match_evaluator(**chosen)(
            outputs=outputs, reference_outputs=references
        )
    )
    assert json.dumps(result, sort_keys=True, default=repr) == json.dumps(
        again, sort_keys=True, default=repr
    )
    assert (outputs, references) == before
    graded = chosen["score"] != "match"
    assert isinstance(result["score"], float if graded else bool)
    if graded:
        assert 0.0 <= result["score"] <= 1.0
    if result["score"] < 1 or (not graded and result["score"] is False):
        assert result["comment"], result  # every result below 1 says why


@settings(max_examples=80, deadline=None)
@given(calls, options, st.randoms(use_true_random=False))
def test_a_trajectory_matches_itself(
    found: list[tuple[str, dict[str, Any]]], chosen: dict[str, Any], rng: random.Random
) -> None:
    found = _safe(found)
    outputs = _messages(found, rng)
    result = create_trajectory_match_evaluator(**chosen)(
        outputs=outputs, reference_outputs=copy.deepcopy(outputs)
    )
    assert result["score"] == 1
    assert result["comment"] is None


@settings(max_examples=100, deadline=None)
@given(calls, calls, st.sampled_from(["exact", "ignore", "subset", "superset"]))
def test_modes_agree_with_each_other(
    found: list[tuple[str, dict[str, Any]]],
    other: list[tuple[str, dict[str, Any]]],
    args_mode: str,
) -> None:
    """superset of (o, r) is subset of (r, o) with the arguments relation turned around;
    unordered is subset and superset; greedy never finds a match the maximum pairing misses;
    F1 is 1 exactly when unordered holds; in_order lies between strict and superset."""
    rng = random.Random(0)
    outputs, references = _messages(found, rng), _messages(other, rng)

    def verdict(mode: str, out: Any, ref: Any, args: str = args_mode, **more: Any) -> Any:
        return create_trajectory_match_evaluator(
            trajectory_match_mode=mode,  # type: ignore[arg-type]
            tool_args_match_mode=args,  # type: ignore[arg-type]
            **more,
        )(outputs=out, reference_outputs=ref)["score"]

    turned = {"subset": "superset", "superset": "subset"}.get(args_mode, args_mode)
    superset = verdict("superset", outputs, references)
    subset = verdict("subset", outputs, references)
    assert superset is verdict("subset", references, outputs, turned)
    assert verdict("unordered", outputs, references) is (superset and subset)
    in_order = verdict("in_order", outputs, references)
    assert not in_order or superset
    assert not verdict("strict", outputs, references) or in_order
    for mode in (*MODES, "in_order"):
        if verdict(mode, outputs, references, alignment="greedy"):
            assert verdict(mode, outputs, references)
    f1 = verdict("unordered", outputs, references, score="f1")
    assert (f1 == 1.0) is (superset and subset)
