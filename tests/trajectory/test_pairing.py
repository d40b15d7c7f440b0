"""The pairing algorithms against brute force on small inputs.

Each path (counting signatures, identical-first for preorders, Hopcroft–Karp for the rest, the
message alignment of graded strict mode) is checked against exhaustive search, and the
shortcuts against the general path as their oracle.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.trajectory import create_trajectory_match_evaluator
from matchevals.trajectory._args import ArgsRules, MatcherArgs
from matchevals.trajectory._bipartite import maximum_matching
from matchevals.trajectory._match import align_messages
from matchevals.trajectory._messages import read_trajectory
from matchevals.trajectory._pairing import (
    _pair_general,
    greedy_pairing,
    maximum_pairing,
)
from matchevals.trajectory._rules import build_rules
from matchevals.trajectory._types import ToolCall
from tests.trajectory.helpers import (
    ARGUMENT_SETS,
    TOOL_NAMES,
    assistant,
    brute_force_pairing_size,
    brute_force_strict_alignment,
    close_counts,
    fits_under,
    langchain_call,
    lowercase_query,
    make_call,
    texts_for,
    tool,
    user,
)


def _brute_force_matching_size(adjacency: list[list[int]], right_count: int) -> int:
    best = 0
    for assignment in itertools.product(*[[-1, *partners] for partners in adjacency]):
        used = [right for right in assignment if right >= 0]
        if len(used) == len(set(used)):
            best = max(best, len(used))
    return best


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, 6).flatmap(
        lambda rights: st.tuples(
            st.just(rights),
            st.lists(
                st.lists(st.integers(0, max(rights - 1, 0)), max_size=rights, unique=True)
                if rights
                else st.just([]),
                max_size=6,
            ),
        )
    )
)
def test_hopcroft_karp_finds_a_maximum_matching(graph: tuple[int, list[list[int]]]) -> None:
    right_count, adjacency = graph
    matched = maximum_matching(adjacency, right_count)
    used = [right for right in matched if right >= 0]
    assert len(used) == len(set(used))  # one to one
    assert all(right in adjacency[left] for left, right in enumerate(matched) if right >= 0)
    assert len(used) == _brute_force_matching_size(adjacency, right_count)


def test_hopcroft_karp_on_a_large_dense_graph_is_perfect() -> None:
    rng = random.Random(7)
    size = 300
    adjacency = [sorted({*rng.sample(range(size), 5), left}) for left in range(size)]
    matched = maximum_matching(adjacency, size)
    assert sorted(matched) == list(range(size))  # the diagonal guarantees a perfect one


def _calls(rng: random.Random, count: int, side: str) -> list[ToolCall]:
    """Calls of two tools; arguments with or without JSON text (texts of equal values differ
    at times, so the same-text tier and the value tiers both pair)."""
    found = []
    for position in range(count):
        args = dict(rng.choice(ARGUMENT_SETS))
        found.append(
            make_call(rng.choice(TOOL_NAMES[:2]), args, side, position, texts_for(rng, args))
        )
    return found


RULES: dict[str, Any] = {
    "exact": ("exact", None),
    "ignore": ("ignore", None),
    "subset": ("subset", None),
    "superset": ("superset", None),
    "keys": ("exact", {"search": ["q"], "weather": ["q", "lang"]}),
    "nested keys": ("exact", {"search": ["opts.lang"]}),
    "matcher": ("exact", {"search": lowercase_query, "weather": close_counts}),
    "json_match": ("exact", {"search": {"exclude_keys": ["lang"]}}),
}


@pytest.mark.parametrize("name", list(RULES))
def test_maximum_pairing_matches_brute_force(name: str) -> None:
    mode, overrides = RULES[name]
    rules = build_rules(mode, overrides)
    fits = fits_under(rules)
    rng = random.Random(name)
    for _ in range(300):
        outputs = _calls(rng, rng.randint(0, 5), "outputs")
        references = _calls(rng, rng.randint(0, 5), "reference_outputs")
        pairs = maximum_pairing(outputs, references, rules)
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
        assert all(fits(outputs[i], references[j]) for i, j in pairs)
        assert len(pairs) == brute_force_pairing_size(outputs, references, fits)
        greedy = greedy_pairing(outputs, references, rules, rng.choice(["outputs", "references"]))
        assert all(fits(outputs[i], references[j]) for i, j in greedy)
        assert len(greedy) <= len(pairs)


@pytest.mark.parametrize("mode", ["subset", "superset"])
def test_identical_first_for_preorders_equals_the_general_path(mode: str) -> None:
    """The shortcut's oracle: every pair asked, Hopcroft–Karp on all calls."""
    rules = build_rules(mode, None)
    rule = rules.rule_for("search")
    rng = random.Random(mode)
    for _ in range(500):
        outputs = [
            make_call("search", args, "outputs", i, texts_for(rng, args))
            for i, args in enumerate(rng.choices(ARGUMENT_SETS, k=rng.randint(0, 8)))
        ]
        references = [
            make_call("search", args, "reference_outputs", i, texts_for(rng, args))
            for i, args in enumerate(rng.choices(ARGUMENT_SETS, k=rng.randint(0, 8)))
        ]
        general = _pair_general(
            rule, list(range(len(outputs))), list(range(len(references))), outputs, references
        )
        assert len(maximum_pairing(outputs, references, rules)) == len(general)


def test_a_non_transitive_matcher_is_not_paired_identical_first() -> None:
    """Counts within 1: pairing the identical 1s first would leave 2 without a partner."""
    rules = build_rules("exact", {"t": close_counts})
    outputs = [make_call("t", {"n": 1}, "o", 0, '{"n": 1}'), make_call("t", {"n": 2}, "o", 1)]
    references = [make_call("t", {"n": 1}, "r", 0, '{"n": 1}'), make_call("t", {"n": 0}, "r", 1)]
    assert isinstance(rules.rule_for("t"), MatcherArgs)
    assert maximum_pairing(outputs, references, rules) == [(0, 1), (1, 0)]


def test_calls_of_two_tools_with_the_same_arguments_text_pair_by_tool() -> None:
    """The same-text tier keys its buckets by text alone: a bucket's first call may be of
    another tool."""
    text = '{"q": "x"}'
    outputs = [make_call(name, {"q": "x"}, "o", i, text) for i, name in enumerate("abc")]
    references = [make_call(name, {"q": "x"}, "r", i, text) for i, name in enumerate("cab")]
    rules = build_rules("exact", None)
    assert maximum_pairing(outputs, references, rules) == [(0, 1), (1, 2), (2, 0)]
    only_a = [make_call("a", {"q": "x"}, "o", 0, text)]
    assert maximum_pairing(only_a, references[::-1], rules) == [(0, 1)]


def test_a_matcher_is_asked_once_per_pair_of_argument_objects() -> None:
    """Calls sharing an arguments object (as calls of the same JSON text do) are asked once;
    arguments equal only as JSON are asked apart (a matcher may tell 1 from 1.0)."""
    asked: list[tuple[Any, Any]] = []

    def matcher(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        asked.append((output_args["n"], reference_args["n"]))
        return repr(output_args["n"]) == repr(reference_args["n"])

    rules = build_rules("exact", {"t": matcher}).for_evaluation()
    one, two = {"n": 1}, {"n": 2}
    outputs = [make_call("t", args, "o", i) for i, args in enumerate([one, one, one, two, two])]
    references = [make_call("t", args, "r", i) for i, args in enumerate([two, one, two, one, one])]
    assert len(maximum_pairing(outputs, references, rules)) == 5
    assert sorted(asked) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    asked.clear()
    floats = [make_call("t", {"n": 1.0}, "o", 0), make_call("t", {"n": 1}, "o", 1)]
    assert maximum_pairing(floats, [make_call("t", one, "r", 0)], rules) == [(1, 0)]
    assert sorted(asked, key=repr) == [(1, 1), (1.0, 1)]


def _random_messages(rng: random.Random) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for _ in range(rng.randint(0, 5)):
        kind = rng.choice(["user", "assistant", "assistant", "tool"])
        if kind == "user":
            messages.append(user())
        elif kind == "tool":
            messages.append(tool())
        else:
            calls = [
                langchain_call(rng.choice(TOOL_NAMES[:2]), rng.choice(ARGUMENT_SETS[:4]))
                for _ in range(rng.randint(0, 2))
            ]
            messages.append(assistant(*calls))
    return messages


@pytest.mark.parametrize("args_mode", ["exact", "subset", "ignore"])
def test_the_message_alignment_of_graded_strict_mode_is_the_best(args_mode: str) -> None:
    rng = random.Random(args_mode)
    rules: ArgsRules = build_rules(args_mode, None)
    for _ in range(200):
        outputs, references = _random_messages(rng), _random_messages(rng)
        out = read_trajectory(outputs, "outputs")
        ref = read_trajectory(references, "reference_outputs")
        message_pairs, pairs = align_messages(out, ref, rules, "optimal")
        aligned = [(i, j) for i, j in message_pairs if i is not None and j is not None]
        assert sorted(i for i, _ in message_pairs if i is not None) == list(range(len(out)))
        assert sorted(j for _, j in message_pairs if j is not None) == list(range(len(ref)))
        assert [i for i, _ in aligned] == sorted(i for i, _ in aligned)  # order kept
        assert [j for _, j in aligned] == sorted(j for _, j in aligned)
        assert all(out[i].role == ref[j].role for i, j in aligned)
        best = brute_force_strict_alignment(outputs, references, args_mode)
        assert (len(pairs), len(aligned)) == best


def _s_call(index: int, arguments: str) -> dict[str, Any]:
    return {"id": str(index), "type": "function", "function": {"name": "s", "arguments": arguments}}


def _n_as_text(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
    return str(output_args["n"]) == str(reference_args["n"])


@pytest.mark.parametrize(
    ("mode", "outputs", "references"),
    [
        ("superset", ['{"n": 1.0}', '{"n": 1}'], ['{"n": 1}']),
        ("subset", ['{"n": 1}'], ['{"n": 1.0}', '{"n": 1}']),
        ("unordered", ['{"n": 1.0}', '{"n": 1}'], ['{"n": 1}', '{"n": 1.0}']),
        ("strict", ['{"n": 1.0}', '{"n": 1}'], ['{"n": 1}', '{"n": 1.0}']),
    ],
)
def test_a_matcher_telling_1_from_1_0_is_asked_about_every_pair(
    mode: str, outputs: list[str], references: list[str]
) -> None:
    """Arguments equal as JSON are not grouped for a user's matcher: a valid pairing exists
    (greedy pairing finds it too), so the answer is True, with no self-contradicting comment."""
    out = [assistant(*(_s_call(i, text) for i, text in enumerate(outputs)))]
    ref = [assistant(*(_s_call(i, text) for i, text in enumerate(references)))]
    for alignment in ("optimal", "greedy"):
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode=mode,
            tool_args_match_overrides={"s": _n_as_text},
            alignment=alignment,
        )
        assert evaluator(outputs=out, reference_outputs=ref) == {
            "key": f"trajectory_{mode}_match",
            "score": True,
            "comment": None,
            "metadata": None,
        }
    graded = create_trajectory_match_evaluator(
        trajectory_match_mode=mode, tool_args_match_overrides={"s": _n_as_text}, score="f1"
    )(outputs=out, reference_outputs=ref)
    expected_f1 = 2 * len(min(outputs, references, key=len)) / (len(outputs) + len(references))
    assert graded["score"] == pytest.approx(expected_f1)


def test_a_matcher_seeing_key_order_is_asked_about_every_pair() -> None:
    def same_key_order(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        return list(output_args) == list(reference_args) and output_args == reference_args

    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="unordered", tool_args_match_overrides={"s": same_key_order}
    )
    ab, ba = '{"a": 1, "b": 2}', '{"b": 2, "a": 1}'
    outputs = [assistant(_s_call(0, ab), _s_call(1, ba))]
    references = [assistant(_s_call(0, ba), _s_call(1, ab))]
    assert evaluator(outputs=outputs, reference_outputs=references)["score"] is True


def test_each_pair_is_asked_once_per_evaluation_and_the_explanation_reuses_the_answer() -> None:
    """A matcher answering differently when asked again cannot make the comment contradict
    the score: the pairing, the optimal check of a greedy failure and the explanation share
    one answer per pair of argument objects."""
    asked: list[tuple[Any, Any]] = []

    def fickle(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        asked.append((output_args["n"], reference_args["n"]))
        return len(asked) % 2 == 0  # no, yes, no, yes...

    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="superset",
        tool_args_match_overrides={"s": fickle},
        alignment="greedy",
    )
    result = evaluator(
        outputs=[assistant(_s_call(0, '{"n": 1}'))],
        reference_outputs=[assistant(_s_call(0, '{"n": 2}'))],
    )
    assert asked == [(1, 2)]
    assert result["score"] is False
    assert result["metadata"]["optimal_match"] is False
    assert result["comment"] == (
        "s args (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): "
        "tool_args_match_overrides['s'] answered no match"
    )
