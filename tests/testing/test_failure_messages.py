"""How a failure is laid out for a person: json_match's differences as a table (from both values
in ``assert_json_match``, from a result alone in the pytest plugin), graph runs superstep by
superstep, and a result that carries nothing but a comment."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals import pytest_plugin
from matchevals.testing import assert_graph_trajectory_match, assert_json_match
from tests.testing.helpers import plugin_lines


def message(assertion: Any, *args: Any, **options: Any) -> list[str]:
    with pytest.raises(AssertionError) as raised:
        assertion(*args, **options)
    return str(raised.value).splitlines()


def test_values_without_mismatches_are_walked_nested_and_lists_of_equal_length() -> None:
    outputs = {"a": {"b": [1, {"c": 2}], "d": [1, 2, 3]}, "e": "x", "skip": 1, "x.y": {"z": 1}}
    references = {"a": {"b": [1, {"c": 3}], "d": [1, 2]}, "e": "y", "skip": 2, "x.y": {"z": 2}}
    # compat="openevals" results carry no metadata: the table comes from the two values
    lines = message(
        assert_json_match, outputs, references, compat="openevals", exclude_keys=["skip"]
    )
    assert lines[1:] == [
        "differences (expected = reference_outputs, actual = outputs):",
        "  path       expected  actual",
        "  a.b[1].c   3         2",
        "  a.d        [1, 2]    [1, 2, 3]",
        '  e          "y"       "x"',
        '  ["x.y"].z  2         1',
    ]


def test_lists_without_mismatches_pair_items_by_position() -> None:
    lines = message(
        assert_json_match,
        [{"k": 1}, {"k": 9}],
        [{"k": 1, "x": 0}],
        compat="openevals",
        aggregator="average",
    )
    assert lines[2:] == [
        "  path            expected   actual",
        "  outputs[0] vs reference_outputs[0]:",
        "    x             0          <missing>",
        "  outputs[1] has no partner in reference_outputs:",
        '    (whole item)  <missing>  {"k": 9}',
    ]


def test_a_result_alone_is_grouped_by_pair_opened_and_keeps_partial_credit() -> None:
    mismatches = [
        {"path": "address", "expected": {"zip": "1"}, "actual": {"zip": "2"}, "score": 0},
        {"path": "price", "expected": 10, "actual": 10.5, "score": 0.5},
        {"path": "note", "expected": None, "actual": "x", "score": 0, "kind": "extra"},
        {"path": "name", "expected": "A", "actual": None, "score": 0, "kind": "missing",
         "outputs": "outputs[0]", "reference_outputs": "reference_outputs[1]"},
        {"path": None, "expected": None, "actual": {"k": 1}, "score": 0, "kind": "unmatched",
         "outputs": "outputs[3]", "reference_outputs": None},
        {"path": "price", "expected": 10, "actual": 10.5, "score": 0.5},  # repeated: shown once
    ]  # fmt: skip
    metadata = {"mismatches": mismatches}
    result = {"key": "json_match:all", "score": 0, "comment": "…", "metadata": metadata}
    assert plugin_lines(result) == [
        "matchevals explains:",
        "  left: json_match:all = 0",
        "      path            expected   actual",
        '      address.zip     "1"        "2"',
        "      price           10         10.5",
        '      note            <missing>  "x"',
        "      outputs[0] vs reference_outputs[1]:",
        '        name          "A"        <missing>',
        "      outputs[3] has no partner in reference_outputs:",
        '        (whole item)  <missing>  {"k": 1}',
    ]


def test_the_table_caps_its_rows() -> None:
    outputs = {f"k{i:02}": i for i in range(25)}
    references = {f"k{i:02}": i + 1 for i in range(25)}
    lines = message(assert_json_match, outputs, references, aggregator="all")
    assert lines[2:5] == ["  path  expected  actual", "  k00   1         0", "  k01   2         1"]
    assert len(lines) == 2 + 1 + 20 + 1
    assert lines[-1] == "  … and 5 more"


def test_long_values_are_shown_where_they_differ() -> None:
    sentence = "Two chairs and a table, delivered on Monday morning by the courier; total {} USD"
    lines = message(
        assert_json_match, {"note": sentence.format(180)}, {"note": sentence.format(100)}
    )
    assert lines[2:] == [
        "  path  expected                      actual",
        '  note  …the courier; total 100 USD"  …the courier; total 180 USD"',
    ]


def test_graph_runs_are_laid_out_past_the_reference() -> None:
    run = {"steps": [["a"], ["b"], ["c"]]}
    lines = message(assert_graph_trajectory_match, run, {"steps": [["a"], {"steps": ["b"]}]})
    assert lines[1:] == [
        "run 0:",
        "    superstep  expected  actual",
        "    0          [a]       [a]     ok",
        "    1          [b]       [b]     ok",
        "  > 2          —         [c]     DIFF  <- first divergence",
    ]


def test_graph_results_are_tabled() -> None:
    run = {"steps": [["a"]], "results": {"answer": "Paris"}}
    reference = {"steps": [["a"]], "results": {"answer": "Rome"}}
    lines = message(assert_graph_trajectory_match, run, reference, eval_results=True)
    assert lines[1:] == [
        "run 0:",
        "    results differ from the reference results:",
        "    path    expected  actual",
        '    answer  "Rome"    "Paris"',
    ]


def test_a_result_with_only_a_comment_is_split_into_its_clauses() -> None:
    result = {"key": "json_match:all", "score": 0, "comment": "a: x; b: y", "metadata": None}
    assert plugin_lines(result) == [
        "matchevals explains:",
        "  left: json_match:all = 0",
        "    a: x",
        "    b: y",
    ]
    assert plugin_lines([result, result])[1] == "  left[0]: json_match:all = 0"


def test_values_that_are_not_results_are_left_to_pytest() -> None:
    not_a_result = {"key": "k", "score": "high"}
    hook = pytest_plugin.pytest_assertrepr_compare(None, "==", not_a_result, 1)  # type: ignore[arg-type]
    next(hook)
    with pytest.raises(StopIteration) as stopped:
        hook.send([["pytest's own"]])
    assert stopped.value.value == [["pytest's own"]]
