"""What newly fails is read from the results the real evaluators return (their metadata, never
their comments): JSON paths and list items, tool calls and their arguments, supersteps."""

from __future__ import annotations

import json
from typing import Any

from matchevals.compare._failures import changes, failing
from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
from matchevals.json_match import create_json_match_evaluator
from matchevals.trajectory import create_trajectory_match_evaluator


def _results(answer: Any) -> list[dict[str, Any]]:
    return answer if isinstance(answer, list) else [answer]


def test_json_keys_that_newly_fail() -> None:
    evaluator = create_json_match_evaluator()
    reference = {"name": "Ann", "age": 30, "city": "Paris"}
    base = _results(evaluator(outputs={**reference, "age": 31}, reference_outputs=reference))
    new = _results(evaluator(outputs={**reference, "city": "Lyon", "zip": 1},
                             reference_outputs=reference))  # fmt: skip
    newly, fixed = changes([base], [new])
    assert newly == {"json": ("city", "zip")}
    assert fixed == {"json": ("age",)}


def test_nested_paths_and_list_items_are_named_by_the_reference() -> None:
    evaluator = create_json_match_evaluator(nested=True, aggregator="average")
    reference = {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}], "total": 3}
    base = evaluator(outputs=reference, reference_outputs=reference)
    new = evaluator(
        outputs={"items": [{"sku": "a", "qty": 5}, {"sku": "b", "qty": 2}], "total": 3},
        reference_outputs=reference,
    )
    newly, fixed = changes([_results(base)], [_results(new)])
    assert (newly, fixed) == ({"json": ("items[0].qty",)}, {})
    lists = create_json_match_evaluator(list_aggregator="average")
    items = [{"a": 1}, {"a": 2}, {"a": 3}]
    found = failing(_results(lists(outputs=[{"a": 1}, {"a": 9}], reference_outputs=items)))
    assert found["json"] == {"reference_outputs[1].a", "reference_outputs[2]"}


def _trajectory(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    tool_calls = [
        {"id": f"c{i}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(calls)
    ]  # fmt: skip
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": tool_calls},
    ]


def test_tool_calls_that_newly_fail() -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    reference = _trajectory(("search", {"q": "paris"}), ("book", {"day": "mon"}))
    base = evaluator(outputs=_trajectory(("search", {"q": "paris"}), ("book", {"day": "tue"})),
                     reference_outputs=reference)  # fmt: skip
    new = evaluator(outputs=_trajectory(("search", {"q": "lyon"}), ("log", {})),
                    reference_outputs=reference)  # fmt: skip
    newly, fixed = changes([_results(base)], [_results(new)])
    assert newly == {
        "tool_calls": (
            "an extra log call",
            "book call missing (reference_outputs[1].tool_calls[1])",
            "search args.q (reference_outputs[1].tool_calls[0])",
        )
    }
    assert fixed == {"tool_calls": ("book args.day (reference_outputs[1].tool_calls[1])",)}


def test_strict_trajectories_name_their_messages() -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    reference = _trajectory(("search", {"q": "x"}))
    shorter = [reference[0]]
    found = failing(_results(evaluator(outputs=shorter, reference_outputs=reference)))
    assert "message count" in found["tool_calls"]
    assert "message missing (reference_outputs[1])" in found["tool_calls"]


def test_supersteps_that_newly_fail() -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    reference = {"steps": [["plan"], ["search"], ["write"]]}
    base = evaluator(
        outputs={"steps": [["plan"], ["search"], ["oops"]]}, reference_outputs=reference
    )
    new = evaluator(
        outputs={"steps": [["plan"], ["browse"], ["write"]]}, reference_outputs=reference
    )
    newly, fixed = changes([_results(base)], [_results(new)])
    assert newly == {"supersteps": ("superstep 1",)}
    assert fixed == {"supersteps": ("superstep 2",)}
    short = evaluator(outputs={"steps": [["plan"]]}, reference_outputs=reference)
    assert failing(_results(short))["supersteps"] == {"superstep 1", "superstep 2"}


def test_several_runs_name_their_run() -> None:
    evaluator = create_graph_trajectory_match_evaluator()
    reference = {"steps": [["a"], ["b"]]}
    runs = [{"steps": [["a"], ["b"]]}, {"steps": [["a"], ["x"]]}]
    assert failing(_results(evaluator(outputs=runs, reference_outputs=reference)))[
        "supersteps"
    ] == {"run 1 superstep 1"}


def test_a_result_without_itemized_failures_is_its_key() -> None:
    judged = [{"key": "helpful", "score": 0.2, "comment": "not helpful: it says json: x"},
              {"key": "polite", "score": True}, {"key": "value_only", "score": None}]  # fmt: skip
    assert failing(judged) == {"json": set(), "tool_calls": set(), "supersteps": set(),
                               "results": {"helpful"}}  # fmt: skip


def test_trials_count_a_thing_failing_in_any_trial() -> None:
    fails = [{"key": "k", "score": 0, "metadata": {"mismatches": [{"path": "a"}]}}]
    passes = [{"key": "k", "score": 1, "metadata": None}]
    assert changes([passes, passes], [passes, fails]) == ({"json": ("a",)}, {})
    assert changes([passes, fails], [fails, fails]) == ({}, {})


def test_turn_patterns_name_the_first_turn_the_pattern_did_not_accept() -> None:
    from matchevals.trajectory import TurnStep

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
    pattern = [TurnStep([{"name": "search"}]), TurnStep([{"name": "fetch"}]), "*"]

    def ai(name: str) -> dict[str, Any]:
        return {"role": "ai", "content": "", "tool_calls": [{"name": name, "args": {}}]}

    base = evaluator(outputs=[ai("search"), ai("search"), ai("x")], reference_outputs=pattern)
    new = evaluator(outputs=[ai("fetch")], reference_outputs=pattern)
    newly, fixed = changes([[base]], [[new]])
    assert (newly, fixed) == ({"tool_calls": ("turn 0 (pattern)",)}, {"tool_calls": ("turn 1 (pattern)",)})  # fmt: skip # noqa: E501
    passing = evaluator(outputs=[ai("search"), ai("fetch"), ai("x")], reference_outputs=pattern)
    assert failing([passing]) == {"json": set(), "tool_calls": set(), "supersteps": set(), "results": set()}  # fmt: skip # noqa: E501
