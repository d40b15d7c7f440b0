"""``trajectory_match_mode="in_order"``: reference turns kept in order, calls of one turn
concurrent, extra output calls anywhere; its verdict and graded maximum against an exhaustive
search on references built by reordering, splitting and merging the outputs' turns."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.trajectory.test_pairing_oracle import (
    BUILT_IN,
    RULES,
    Message,
    _calls,
    _flat,
    _grades,
    _jiggled,
    _rendered,
    _trajectory,
    in_order_best,
    in_order_kept,
    per_tool,
)


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def ai(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": list(calls)}


ASK = {"role": "user", "content": "go"}
DONE = {"role": "tool", "content": "ok"}


def in_order(**options: Any) -> Any:
    return create_trajectory_match_evaluator(trajectory_match_mode="in_order", **options)


def score(outputs: list[Any], references: list[Any], **options: Any) -> Any:
    return in_order(**options)(outputs=outputs, reference_outputs=references)["score"]


# --------------------------------------------------------------------------------------------
# What the mode accepts
# --------------------------------------------------------------------------------------------


def test_reference_turns_must_keep_their_order() -> None:
    references = [ASK, ai(call("a")), DONE, ai(call("b")), DONE]
    assert score([ASK, ai(call("a")), DONE, ai(call("b"))], references) is True
    assert score([ASK, ai(call("b")), DONE, ai(call("a"))], references) is False


def test_calls_of_one_turn_are_concurrent_on_both_sides() -> None:
    # one reference turn spread over two output turns, in any order within it
    assert score([ai(call("b")), ai(call("a"))], [ai(call("a"), call("b"))]) is True
    # two reference turns made at once: not strictly earlier, so not in order
    assert score([ai(call("b"), call("a"))], [ai(call("a")), ai(call("b"))]) is False
    # within a turn, the order of the calls never matters
    assert score([ai(call("b"), call("a")), ai(call("c"))], [ai(call("a"), call("b")), ai(call("c"))]) is True  # fmt: skip # noqa: E501


def test_extra_calls_and_messages_are_allowed_anywhere() -> None:
    outputs = [ASK, ai(call("x")), ai(call("a"), call("y")), {"role": "assistant", "content": "hm"},
               ai(call("z")), ai(call("b")), ai(call("w"))]  # fmt: skip
    assert score(outputs, [ASK, ai(call("a")), ai(call("b"))]) is True
    assert score(outputs, []) is True
    assert score([], [ai(call("a"))]) is False


def test_each_reference_call_needs_its_own_output_call() -> None:
    assert score([ai(call("a"))], [ai(call("a"), call("a"))]) is False
    assert score([ai(call("a")), ai(call("a"))], [ai(call("a"), call("a"))]) is True
    assert score([ai(call("a"))], [ai(call("a")), ai(call("a"))]) is False


def test_the_earliest_cover_is_not_a_first_fit() -> None:
    """A first fit takes the first compatible output call for each reference call; the mode
    looks for a maximum pairing within each interval: ``subset`` arguments, where the first
    compatible call is the wrong one."""
    outputs = [ai(call("s", q="x"), call("s", q="x", lang="en")), ai(call("t"))]
    references = [ai(call("s", q="x", lang="en"), call("s", q="x")), ai(call("t"))]
    options = {"tool_args_match_mode": "subset"}
    assert score(outputs, references, **options) is True
    greedy = in_order(**options, alignment="greedy")(outputs=outputs, reference_outputs=references)
    assert greedy["score"] is False
    assert greedy["metadata"]["optimal_match"] is True
    assert greedy["comment"].endswith("a maximum pairing (alignment='optimal') matches")


def test_a_later_reference_turn_may_not_reuse_an_earlier_turns_interval() -> None:
    """A greedy choice of the earliest call per reference call ends turn 1 as late as its
    latest partner: turn 2's ``b`` in the same output turn does not count."""
    outputs = [ai(call("a")), ai(call("a"), call("b")), ai(call("c"))]
    assert score(outputs, [ai(call("a"), call("a")), ai(call("b"))]) is False
    assert score(outputs, [ai(call("a")), ai(call("a"), call("b"))]) is True
    assert score(outputs, [ai(call("a")), ai(call("b")), ai(call("c"))]) is True


def test_arguments_follow_the_rules_and_matchers_are_asked() -> None:
    asked: list[tuple[Any, Any]] = []

    def same_city(output: dict[str, Any], reference: dict[str, Any]) -> bool:
        asked.append((output, reference))
        return bool(output["city"].lower() == reference["city"].lower())

    outputs = [ai(call("weather", city="sf")), ai(call("weather", city="la"))]
    references = [ai(call("weather", city="SF")), ai(call("weather", city="LA"))]
    assert score(outputs, references) is False
    assert score(outputs, references, tool_args_match_overrides={"weather": same_city}) is True
    assert asked  # the matcher, not JSON equality, decided
    reversed_references = [references[1], references[0]]
    overrides = {"weather": same_city}
    assert score(outputs, reversed_references, tool_args_match_overrides=overrides) is False


# --------------------------------------------------------------------------------------------
# Results: keys, explanations, graded scores, metadata
# --------------------------------------------------------------------------------------------


def test_a_pass_is_plain_and_keys_name_the_mode() -> None:
    result = in_order()(outputs=[ai(call("a"))], reference_outputs=[ai(call("a"))])
    assert result == {
        "key": "trajectory_in_order_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }
    assert in_order(score="f1")(outputs=[], reference_outputs=[])["key"] == (
        "trajectory_in_order_match_f1"
    )


def test_a_call_out_of_order_is_named_with_what_blocks_it() -> None:
    outputs = [ASK, ai(call("b")), DONE, ai(call("a")), DONE, ai(call("c"))]
    references = [ASK, ai(call("a")), DONE, ai(call("b")), DONE, ai(call("c")), ai(call("e"))]
    result = in_order()(outputs=outputs, reference_outputs=references)
    assert result["score"] is False
    assert result["comment"] == (
        "reference_outputs[1].tool_calls[0] a({}) is out of order: outputs[3].tool_calls[0] "
        "fits it but is not before outputs[1].tool_calls[0], paired with "
        "reference_outputs[3].tool_calls[0] of a later turn; "
        "reference_outputs[6].tool_calls[0] e({}) has no partner in outputs"
    )
    metadata = result["metadata"]
    assert metadata["mode"] == "in_order"
    assert metadata["match"] is False
    assert metadata["mismatches"] == [
        {"kind": "missing_call", "name": "a", "expected": {}, "actual": None, "outputs": None,
         "reference_outputs": "reference_outputs[1].tool_calls[0]",
         "out_of_order": "outputs[3].tool_calls[0]"},
        {"kind": "missing_call", "name": "e", "expected": {}, "actual": None, "outputs": None,
         "reference_outputs": "reference_outputs[6].tool_calls[0]"},
    ]  # fmt: skip
    assert metadata["pairing"] == [[None, 0], [0, 1], [2, 2], [None, 3], [1, None]]
    assert (metadata["precision"], metadata["recall"]) == (2 / 3, 2 / 4)


def test_an_earlier_turn_blocks_a_call_that_comes_too_early() -> None:
    outputs = [ai(call("a"), call("b")), ai(call("c"))]
    references = [ai(call("a")), ai(call("c")), ai(call("b"))]
    result = in_order()(outputs=outputs, reference_outputs=references)
    assert result["comment"] == (
        "reference_outputs[2].tool_calls[0] b({}) is out of order: outputs[0].tool_calls[1] "
        "fits it but is not after outputs[1].tool_calls[0], paired with "
        "reference_outputs[1].tool_calls[0] of an earlier turn"
    )


def test_arguments_that_differ_are_explained_and_extras_only_count_for_precision() -> None:
    outputs = [ai(call("weather", city="LA")), ai(call("news"))]
    references = [ai(call("weather", city="SF"))]
    result = in_order()(outputs=outputs, reference_outputs=references)
    assert result["comment"] == (
        "weather args.city (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): "
        'expected "SF", got "LA"'
    )
    precision = in_order(score="precision")(outputs=outputs, reference_outputs=references)
    assert precision["score"] == 0.0
    assert (
        "outputs[1].tool_calls[0] news({}) has no partner in reference_outputs"
        in (precision["comment"])
    )


def test_graded_scores_count_the_most_calls_an_in_order_pairing_keeps() -> None:
    # turns a, b, c against b, a, c, x: two of the three keep their order, one output is extra
    outputs = [ai(call("b")), ai(call("a")), ai(call("c")), ai(call("x"))]
    references = [ai(call("a")), ai(call("b")), ai(call("c"))]
    for name, expected in [("recall", 2 / 3), ("precision", 2 / 4), ("f1", 4 / 7)]:
        result = in_order(score=name)(outputs=outputs, reference_outputs=references)
        assert result["score"] == pytest.approx(expected)
        assert result["metadata"]["match"] is False
    full = in_order(score="recall")(outputs=outputs, reference_outputs=references[1:])
    assert full["score"] == 1.0
    assert full["metadata"]["match"] is True


def test_async_twin_gives_the_same_result() -> None:
    outputs = [ai(call("b")), ai(call("a"))]
    references = [ai(call("a")), ai(call("b"))]
    evaluator = create_async_trajectory_match_evaluator(
        trajectory_match_mode="in_order", score="f1"
    )
    assert asyncio.run(evaluator(outputs=outputs, reference_outputs=references)) == in_order(
        score="f1"
    )(outputs=outputs, reference_outputs=references)


def test_bad_options_are_refused_when_the_evaluator_is_built() -> None:
    with pytest.raises(
        ValueError, match=r"or `superset`, or matchevals' `in_order` or `pattern`\."
    ):
        create_trajectory_match_evaluator(trajectory_match_mode="in-order")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="openevals does not have; drop compat='openevals'"):
        in_order(compat="openevals")


# --------------------------------------------------------------------------------------------
# Against an exhaustive search
# --------------------------------------------------------------------------------------------


def _reordered(rng: random.Random, outputs: list[Message]) -> list[Message]:
    """The outputs' turns with their calls jiggled, now and then swapped, split, merged,
    dropped or added; calls shuffled within turns."""
    turns = [list(calls) for role, calls in outputs if calls]
    if len(turns) > 1 and rng.random() < 0.5:
        i, j = rng.sample(range(len(turns)), 2)
        turns[i], turns[j] = turns[j], turns[i]
    if len(turns) > 1 and rng.random() < 0.3:
        i = rng.randrange(len(turns) - 1)
        turns[i : i + 2] = [turns[i] + turns[i + 1]]
    if turns and rng.random() < 0.3:
        i = rng.randrange(len(turns))
        if len(turns[i]) > 1:
            cut = rng.randrange(1, len(turns[i]))
            turns[i : i + 1] = [turns[i][:cut], turns[i][cut:]]
    if turns and rng.random() < 0.2:
        turns.pop(rng.randrange(len(turns)))
    if rng.random() < 0.2:
        turns.insert(rng.randint(0, len(turns)), _calls(rng, rng.randint(1, 2)))
    reference: list[Message] = [("user", [])]
    for calls in turns:
        moved = [(name, _jiggled(rng, args, change=0.1)) for name, args in calls]
        rng.shuffle(moved)
        reference.append(("assistant", moved))
        if rng.random() < 0.4:
            reference.append(("tool", []))
    return reference


def _outputs(rng: random.Random) -> list[Message]:
    return _trajectory(rng, most_calls=6, most_messages=7)


@pytest.mark.parametrize("rule_name", ["exact", "ignore", "subset", "superset", "keys n",
                                       "typed matcher", "str(n) matcher", "repr evaluator",
                                       "json_match numeric n"])  # fmt: skip
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_verdict_and_graded_maximum_equal_the_exhaustive_search(rule_name: str, seed: int) -> None:
    rng = random.Random(seed)
    override, override_fits = RULES[rule_name]
    default_mode = rng.choice(list(BUILT_IN))
    fits = per_tool(override_fits, BUILT_IN[default_mode])
    outputs = _outputs(rng)
    references = _reordered(rng, outputs) if rng.random() < 0.8 else _outputs(rng)
    if rng.random() < 0.3:  # the other way round: more reference calls than outputs
        outputs, references = references, outputs
    output_messages, reference_messages = _rendered(rng, outputs), _rendered(rng, references)
    best = in_order_best(outputs, references, fits)
    verdict = best == len(_flat(references))
    grades = _grades(best, len(_flat(outputs)), len(_flat(references)))
    options: dict[str, Any] = {
        "tool_args_match_mode": default_mode,
        "tool_args_match_overrides": {"s": override},
    }
    case = (outputs, references)
    result = in_order(**options)(outputs=output_messages, reference_outputs=reference_messages)
    assert result["score"] is verdict, (result, case)
    for name in ("precision", "recall", "f1"):
        graded = in_order(**options, score=name)(
            outputs=output_messages, reference_outputs=reference_messages
        )
        assert graded["score"] == pytest.approx(grades[name]), (graded, case)
        assert graded["metadata"]["match"] is verdict
        assert in_order_kept(graded["metadata"]), (graded, case)
    greedy = in_order(**options, alignment="greedy")(
        outputs=output_messages, reference_outputs=reference_messages
    )
    if greedy["score"] is False:
        assert greedy["metadata"]["optimal_match"] is verdict
        assert in_order_kept(greedy["metadata"]), (greedy, case)
    else:
        assert verdict, (greedy, case)


def test_a_failed_assertion_shows_the_call_out_of_order_beside_its_fit() -> None:
    from matchevals.testing import assert_trajectory_match

    with pytest.raises(AssertionError) as failed:
        assert_trajectory_match(
            [ai(call("b")), ai(call("x")), ai(call("a"))],
            [ai(call("a")), ai(call("b"))],
            trajectory_match_mode="in_order",
        )
    lines = [line.rstrip() for line in str(failed.value).splitlines()]
    assert lines[2:5] == [
        "    [0] a({})                     [2] a({})         ok",
        "  > [1] b({})                     [0] b({})         out of order",
        "    —                             [1] x({})         extra, allowed",
    ]
