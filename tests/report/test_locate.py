"""Each difference a json_match result names is located on both sides of the values, so the
HTML report highlights real nodes: a property test over random records and options, keys that
need quoting in paths included; and tool-call arguments located under their call."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.json_match import create_json_match_evaluator
from matchevals.report import render_html_report
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.json_match.strategies import OPTIONS, pairs_of_inputs
from tests.report.runs import document_of

TRICKY_KEYS = ["a", "x.y", "a b", " a", "", "[0]", 'q"', "*", "tab\tkey", "é"]
TRICKY_VALUES = st.recursive(
    st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.sampled_from(TRICKY_KEYS), inner, max_size=2),
    ),
    max_leaves=4,
)
TRICKY_RECORDS = st.dictionaries(st.sampled_from(TRICKY_KEYS), TRICKY_VALUES, max_size=3)


def node(value: Any, tokens: list[Any]) -> Any:
    for token in tokens:
        value = value[token]
    return value


def located(results: Any, outputs: Any, references: Any) -> list[dict[str, Any]]:
    """The differences the report's page holds for one example."""
    example = {"results": results, "outputs": outputs, "reference_outputs": references}
    differences: list[dict[str, Any]] = document_of(render_html_report([example]))["details"]["0"][
        "differences"
    ]
    return differences


def check_located(outputs: Any, references: Any, options: dict[str, Any]) -> None:
    results = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    found = located(results, outputs, references)
    for difference in found:
        if difference["at_expected"] is not None:
            expected = node(references, difference["at_expected"])  # exists
        if difference["at_actual"] is not None:
            actual = node(outputs, difference["at_actual"])
        if difference["kind"] == "value" and difference["at_expected"] and difference["at_actual"]:
            assert expected != actual or type(expected) is not type(actual), difference
    for result in results:
        if result["score"] < 1 and (result.get("metadata") or {}).get("mismatches"):
            mine = [d for d in found if result["key"] in d["key"].split(", ")]
            assert any(d["at_expected"] or d["at_actual"] for d in mine), result


@settings(max_examples=200, deadline=None)
@given(pairs_of_inputs(), OPTIONS, st.booleans())
def test_every_difference_is_located_where_the_values_differ(
    pair: tuple[Any, Any], options: dict[str, Any], nested: bool
) -> None:
    check_located(*pair, {**options, "nested": nested})


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.tuples(TRICKY_RECORDS, TRICKY_RECORDS),
        st.tuples(st.lists(TRICKY_RECORDS, max_size=3), st.lists(TRICKY_RECORDS, max_size=3)),
    ),
    st.sampled_from([None, "all"]),
    st.booleans(),
)
def test_keys_that_need_quoting_are_located_too(
    pair: tuple[Any, Any], aggregator: str | None, nested: bool
) -> None:
    check_located(*pair, {"aggregator": aggregator, "nested": nested})


def test_paths_are_shown_as_results_write_them() -> None:
    outputs = {"user": {"first name": "Ann", "x.y": 1, "name ": 2}, "a.b": 1}
    references = {"user": {"first name": "Bob", "x.y": 2, "name ": 3}, "a.b": 2}
    results = create_json_match_evaluator(aggregator="all")(
        outputs=outputs, reference_outputs=references
    )
    found = {
        d["path"]: (d["at_expected"], d["at_actual"]) for d in located(results, outputs, references)
    }
    assert found == {
        '["a.b"]': (["a.b"], ["a.b"]),
        "user.first name": (["user", "first name"], ["user", "first name"]),
        'user["name "]': (["user", "name "], ["user", "name "]),
        'user["x.y"]': (["user", "x.y"], ["user", "x.y"]),
    }


def test_tool_call_arguments_are_located_under_their_call() -> None:
    def calls(**args: Any) -> list[dict[str, Any]]:
        return [{"role": "ai", "tool_calls": [{"name": "search", "args": args}]}]

    outputs, references = calls(q="x", lang="en"), calls(q="x", page=2)
    result = create_trajectory_match_evaluator(trajectory_match_mode="unordered")(
        outputs=outputs, reference_outputs=references
    )
    found = [
        (d["kind"], d["path"], d["expected"], d["actual"], d["at_expected"], d["at_actual"])
        for d in located([result], outputs, references)
    ]
    assert found == [
        ("extra_arg", "search args.lang", "—", '"en"', [0, "tool_calls", 0, "args"],
         [0, "tool_calls", 0, "args", "lang"]),
        ("missing_arg", "search args.page", "2", "—", [0, "tool_calls", 0, "args", "page"],
         [0, "tool_calls", 0, "args"]),
    ]  # fmt: skip
