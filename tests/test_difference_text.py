"""How every evaluator writes where values differ and what differs: one path rule (keys joined
with dots, JSON-quoted in brackets where they would read ambiguously), one sentence, and long
values shown from a little before their first difference: in comments, metadata and result keys
alike (the pytest table and the HTML report are tested with their readers)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
from matchevals.json_match import create_json_match_evaluator
from matchevals.trajectory import create_trajectory_match_evaluator

LONG = "Two chairs and a table, delivered on Monday morning by the courier; total {} USD"
SHOWN = (
    'expected …orning by the courier; total 100 USD", got …orning by the courier; total 180 USD"'
)
"""How two LONG sentences differing in their total are said (from a little before the 100)."""


def comments(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["key"]: r["comment"] for r in results}


def test_top_level_keys_keep_their_result_keys_and_are_quoted_in_paths() -> None:
    outputs = {"x.y": 1, " pad": 1, "first name": 1, "": 1, "age": 1}
    references = {"x.y": 2, " pad": 2, "first name": 2, "": 2, "age": 2}
    results = create_json_match_evaluator()(outputs=outputs, reference_outputs=references)
    assert comments(results) == {  # result keys are openevals': json_match:<key>
        "json_match:": '[""]: expected 2, got 1',
        "json_match: pad": '[" pad"]: expected 2, got 1',
        "json_match:age": "age: expected 2, got 1",
        "json_match:first name": "first name: expected 2, got 1",
        "json_match:x.y": '["x.y"]: expected 2, got 1',
    }
    [result] = create_json_match_evaluator(aggregator="all")(
        outputs=outputs, reference_outputs=references
    )
    paths = [m["path"] for m in result["metadata"]["mismatches"]]
    assert paths == ['[""]', '[" pad"]', "age", "first name", '["x.y"]']
    records = create_json_match_evaluator(aggregator="all")(
        outputs=[{"x.y": 1}], reference_outputs=[{"x.y": 2}]
    )
    assert (
        records[0]["comment"] == '["x.y"] (outputs[0] vs reference_outputs[0]): expected 2, got 1'
    )


def test_nested_paths_follow_the_same_rule() -> None:
    outputs = {"user": {"first name": "Ann", "x.y": 1, "name ": 1, "tab\tkey": 1}}
    references = {"user": {"first name": "Bob", "x.y": 2, "name ": 2, "tab\tkey": 2}}
    results = create_json_match_evaluator(nested=True)(
        outputs=outputs, reference_outputs=references
    )
    assert comments(results) == {
        "json_match:user.first name": 'user.first name: expected "Bob", got "Ann"',
        'json_match:user["name "]': 'user["name "]: expected 2, got 1',
        'json_match:user["tab\\tkey"]': 'user["tab\\tkey"]: expected 2, got 1',
        'json_match:user["x.y"]': 'user["x.y"]: expected 2, got 1',
    }


KEYS = st.sampled_from(["a", "b", "a.b", "a b", " a", "a ", "", "[0]", "*", '"', "\n", "é"])
DOCUMENTS = st.recursive(
    st.integers(0, 2),
    lambda inner: st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
).filter(lambda value: isinstance(value, dict))


def leaf_places(output: Any, reference: Any, at: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The leaves ``nested=True`` scores, found by following both documents (the oracle)."""
    objects = [side for side in (output, reference) if isinstance(side, dict)]
    others = [
        side for side in (output, reference) if side is not None and not isinstance(side, dict)
    ]
    if at and (not objects or others or not any(objects)):  # the top level is always followed
        return {at}
    found: set[tuple[str, ...]] = set()
    for key in {key for side in objects for key in side}:
        found |= leaf_places(
            output.get(key) if isinstance(output, dict) else None,
            reference.get(key) if isinstance(reference, dict) else None,
            (*at, key),
        )
    return found


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, DOCUMENTS)
def test_distinct_leaves_never_share_a_path(output: Any, reference: Any) -> None:
    results = create_json_match_evaluator(nested=True)(outputs=output, reference_outputs=reference)
    assert len(results) == len({r["key"] for r in results}) == len(leaf_places(output, reference))


def test_a_long_value_is_shown_where_it_differs() -> None:
    [result] = create_json_match_evaluator()(
        outputs={"note": LONG.format(180)}, reference_outputs={"note": LONG.format(100)}
    )
    assert result["comment"] == f"note: {SHOWN}"
    short = create_json_match_evaluator()(
        outputs={"note": "Short: total 180 USD"}, reference_outputs={"note": "Short: total 100 USD"}
    )
    assert (
        short[0]["comment"] == 'note: expected "Short: total 100 USD", got "Short: total 180 USD"'
    )


def test_long_values_of_other_evaluators_are_shown_where_they_differ() -> None:
    def steps(total: int) -> dict[str, Any]:
        return {"steps": [["a"]], "results": {"note": LONG.format(total)}}

    graph = create_graph_trajectory_match_evaluator(eval_results=True)(
        outputs=steps(180), reference_outputs=steps(100)
    )
    assert graph["comment"].endswith(f"results.note: {SHOWN}")

    def calls(total: int) -> list[dict[str, Any]]:
        args = {"note": LONG.format(total)}
        return [{"role": "ai", "tool_calls": [{"name": "send", "args": args}]}]

    trajectory = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
        outputs=calls(180), reference_outputs=calls(100)
    )
    where = "(outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0])"
    assert trajectory["comment"].endswith(f"send args.note {where}: {SHOWN}")


def test_tool_arguments_follow_the_path_rule_and_open_lists() -> None:
    def calls(**args: Any) -> list[dict[str, Any]]:
        return [{"role": "ai", "tool_calls": [{"name": "tag", "args": args}]}]

    outputs = calls(**{"x.y": 1, "tags": ["a", "b"], "first name": "Ann"})
    references = calls(**{"x.y": 2, "tags": ["a", "c"], "first name": "Bob"})
    result = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
        outputs=outputs, reference_outputs=references
    )
    where = "(outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0])"
    assert result["comment"].split("; ") == [
        f'tag args.first name {where}: expected "Bob", got "Ann"',
        f'tag args.tags[1] {where}: expected "c", got "b"',
        f'tag args["x.y"] {where}: expected 2, got 1',
    ]
    assert [m["path"] for m in result["metadata"]["mismatches"]] == [
        "first name",
        "tags[1]",
        '["x.y"]',
    ]


def test_error_messages_locate_values_with_the_same_rule() -> None:
    def failing(output: Any, reference: Any) -> float:
        raise RuntimeError("boom")

    evaluator = create_json_match_evaluator(comparators={"x.y": failing}, aggregator="all")
    with pytest.raises(ValueError, match=r'at outputs\[0\]\["x\.y"\] vs reference_outputs\[0\]'):
        evaluator(outputs=[{"x.y": 1}], reference_outputs=[{"x.y": 2}])
    nested = create_json_match_evaluator(comparators={'a["x.y"]': failing}, nested=True)
    with pytest.raises(ValueError, match=r'at outputs\.a\["x\.y"\] vs reference_outputs\.a'):
        nested(outputs={"a": {"x.y": 1}}, reference_outputs={"a": {"x.y": 2}})
