"""Every failure says why: comments in json_match's style, capped, with the same problems as
data in ``metadata["mismatches"]``; a pass keeps openevals' exact result."""

from __future__ import annotations

from typing import Any

from matchevals.trajectory import create_trajectory_match_evaluator
from tests.trajectory.helpers import assistant, langchain_call, openai_call, tool, user


def evaluate(outputs: Any, references: Any, **options: Any) -> Any:
    return create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )


def test_a_failure_names_the_differing_argument_the_missing_and_the_extra_call() -> None:
    outputs = [
        user(),
        assistant(openai_call("search", {"q": "rome hotels", "n": 5}), openai_call("delete", {})),
    ]
    references = [
        user(),
        assistant(openai_call("search", {"q": "paris hotels", "n": 5})),
        tool(),
        assistant(openai_call("weather", {"city": "Paris"})),
    ]
    result = evaluate(outputs, references, trajectory_match_mode="unordered")
    assert result["score"] is False
    assert result["comment"] == (
        "search args.q (outputs[1].tool_calls[0] vs reference_outputs[1].tool_calls[0]): "
        'expected "paris hotels", got "rome hotels"; '
        'reference_outputs[3].tool_calls[0] weather({"city": "Paris"}) has no partner in outputs; '
        "outputs[1].tool_calls[1] delete({}) has no partner in reference_outputs"
    )
    assert result["metadata"]["mismatches"] == [
        {
            "kind": "arg",
            "name": "search",
            "path": "q",
            "expected": "paris hotels",
            "actual": "rome hotels",
            "outputs": "outputs[1].tool_calls[0]",
            "reference_outputs": "reference_outputs[1].tool_calls[0]",
        },
        {
            "kind": "missing_call",
            "name": "weather",
            "expected": {"city": "Paris"},
            "actual": None,
            "outputs": None,
            "reference_outputs": "reference_outputs[3].tool_calls[0]",
        },
        {
            "kind": "extra_call",
            "name": "delete",
            "expected": None,
            "actual": {},
            "outputs": "outputs[1].tool_calls[1]",
            "reference_outputs": None,
        },
    ]
    assert set(result["metadata"]) == {
        "mode", "match", "precision", "recall", "f1", "pairing", "calls", "mismatches"
    }  # fmt: skip
    assert result["metadata"]["mode"] == "unordered"


def test_superset_reports_only_what_is_missing_and_subset_only_what_is_extra() -> None:
    outputs = [assistant(langchain_call("a", {}), langchain_call("x", {}))]
    references = [assistant(langchain_call("a", {}), langchain_call("b", {}))]
    superset = evaluate(outputs, references, trajectory_match_mode="superset")
    assert (
        superset["comment"] == "reference_outputs[0].tool_calls[1] b({}) has no partner in outputs"
    )
    subset = evaluate(outputs, references, trajectory_match_mode="subset")
    assert subset["comment"] == "outputs[0].tool_calls[1] x({}) has no partner in reference_outputs"


def test_nested_differences_are_named_leaf_by_leaf() -> None:
    outputs = [assistant(langchain_call("book", {"trip": {"to": "Rome", "nights": 2}}))]
    references = [assistant(langchain_call("book", {"trip": {"to": "Rome", "nights": 3}}))]
    assert evaluate(outputs, references)["comment"] == (
        "book args.trip.nights (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): "
        "expected 3, got 2"
    )


def test_leftover_calls_of_one_tool_are_explained_against_their_closest_partner() -> None:
    outputs = [assistant(*(langchain_call("s", {"q": q, "n": 1}) for q in ("b", "a")))]
    references = [
        assistant(langchain_call("s", {"q": "a", "n": 2}), langchain_call("s", {"q": "b", "n": 2}))
    ]
    comment = evaluate(outputs, references, trajectory_match_mode="unordered")["comment"]
    assert comment == (
        "s args.n (outputs[0].tool_calls[1] vs reference_outputs[0].tool_calls[0]): "
        "expected 2, got 1; "
        "s args.n (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[1]): "
        "expected 2, got 1"
    )


def test_the_comment_shows_five_problems_and_the_metadata_twenty_five() -> None:
    outputs = [assistant(*(langchain_call(f"t{i}", {}) for i in range(30)))]
    result = evaluate(outputs, [], trajectory_match_mode="unordered")
    clauses = result["comment"].split("; ")
    assert len(clauses) == 6 and clauses[-1] == "… and 25 more"
    assert len(result["metadata"]["mismatches"]) == 25
    assert result["metadata"]["mismatches_omitted"] == 5
    assert len(result["metadata"]["calls"]["outputs"]) == 30  # the calls are all listed


def test_long_arguments_are_truncated_in_comments() -> None:
    outputs = [assistant(langchain_call("write", {"text": "x" * 500}))]
    comment = evaluate(outputs, [], trajectory_match_mode="subset")["comment"]
    assert len(comment) < 150 and "…" in comment


def test_greedy_failures_say_when_a_maximum_pairing_would_match() -> None:
    search = [
        assistant(langchain_call("s", {"q": "x"}), langchain_call("s", {"q": "x", "lang": "en"}))
    ]
    swapped = [
        assistant(langchain_call("s", {"q": "x", "lang": "en"}), langchain_call("s", {"q": "x"}))
    ]
    options = {"tool_args_match_mode": "subset", "alignment": "greedy"}
    result = evaluate(search, swapped, **options)
    assert result["score"] is False
    assert result["metadata"]["optimal_match"] is True
    assert result["comment"].endswith(
        "; alignment='greedy' paired the tool calls first come, first served; a maximum "
        "pairing (alignment='optimal') matches"
    )
    really_wrong = [assistant(langchain_call("s", {"q": "y"}), langchain_call("s", {"q": "x"}))]
    result = evaluate(really_wrong, swapped, **options)
    assert result["metadata"]["optimal_match"] is False
    assert "alignment='greedy'" not in result["comment"]


def test_strict_metadata_lists_the_messages_and_their_pairing() -> None:
    outputs = [user(), assistant(langchain_call("a", {}))]
    references = [user(), assistant(langchain_call("a", {})), tool()]
    metadata = evaluate(outputs, references)["metadata"]
    assert metadata["messages"] == {
        "outputs": [
            {"at": "outputs[0]", "role": "user"},
            {"at": "outputs[1]", "role": "assistant"},
        ],
        "reference_outputs": [
            {"at": "reference_outputs[0]", "role": "user"},
            {"at": "reference_outputs[1]", "role": "assistant"},
            {"at": "reference_outputs[2]", "role": "tool"},
        ],
    }
    assert metadata["message_pairing"] == [[0, 0], [1, 1], [None, 2]]
    assert metadata["mismatches"] == [
        {"kind": "message_count", "expected": 3, "actual": 2},
        {
            "kind": "missing_message",
            "expected": "tool",
            "actual": None,
            "outputs": None,
            "reference_outputs": "reference_outputs[2]",
        },
    ]


def test_a_pass_is_exactly_openevals_result() -> None:
    run = [user(), assistant(openai_call("a", {"x": 1}))]
    for mode in ("strict", "unordered", "subset", "superset"):
        assert evaluate(run, run, trajectory_match_mode=mode) == {
            "key": f"trajectory_{mode}_match",
            "score": True,
            "comment": None,
            "metadata": None,
        }
