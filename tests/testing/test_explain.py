"""The pure explanation helpers behind the assertions, the plugin and the command line."""

from __future__ import annotations

from matchevals._explain import (
    MISSING,
    Difference,
    DifferenceGroup,
    explain_result,
    groups_from_mismatches,
    is_evaluator_result,
    json_differences,
    render_differences,
)
from matchevals._explain_graph import trajectory_side_by_side


def flat(groups: list[DifferenceGroup]) -> list[tuple[str | None, str, object, object]]:
    return [(g.title, d.path, d.expected, d.actual) for g in groups for d in g.differences]


def test_json_differences_walk_nested_values_and_lists_of_equal_length() -> None:
    outputs = {"a": {"b": [1, {"c": 2}], "d": [1, 2, 3]}, "e": True, "skip": 1}
    references = {"a": {"b": [1, {"c": 3}], "d": [1, 2]}, "e": 1, "skip": 2}
    assert flat(json_differences(outputs, references, skip_keys=["skip"])) == [
        (None, "a.b[1].c", 3, 2),
        (None, "a.d", [1, 2], [1, 2, 3]),
        (None, "e", 1, True),  # JSON equality: true is not 1
    ]


def test_json_differences_of_lists_follow_the_alignment() -> None:
    outputs = [{"k": 1}, {"k": 2}, {"k": 9}]
    references = [{"k": 2}, {"k": 1, "x": 0}]
    groups = json_differences(outputs, references, alignment=[[0, 1], [1, 0], [2, None]])
    assert flat(groups) == [
        ("outputs[0] vs reference_outputs[1]", "x", 0, MISSING),
        ("outputs[2] has no partner in reference_outputs", "", MISSING, {"k": 9}),
    ]
    by_index = json_differences([{"k": 1}], [{"k": 1}, {"k": 2}])
    assert flat(by_index) == [
        ("reference_outputs[1] has no partner in outputs", "", {"k": 2}, MISSING)
    ]


def test_groups_from_mismatches_group_pairs_open_whole_values_and_keep_partial_credit() -> None:
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
    assert flat(groups_from_mismatches(mismatches)) == [
        (None, "address.zip", "1", "2"),
        (None, "price", 10, 10.5),
        (None, "note", MISSING, "x"),
        ("outputs[0] vs reference_outputs[1]", "name", "A", MISSING),
        ("outputs[3] has no partner in reference_outputs", "", MISSING, {"k": 1}),
    ]


def test_render_differences_aligns_columns_and_caps_rows() -> None:
    rows = tuple(Difference(f"k{i}", i, i + 1) for i in range(25))
    lines = render_differences([DifferenceGroup(None, rows)], limit=3)
    assert lines == [
        "  path  expected  actual",
        "  k0    0         1",
        "  k1    1         2",
        "  k2    2         3",
        "  … and 22 more",
    ]


def test_side_by_side_marks_extra_supersteps_past_the_reference() -> None:
    meta = {
        "verdicts": ["match", "match", "mismatch"],
        "divergence": {"superstep": 2, "expected": [], "actual": ["c"]},
    }
    lines = trajectory_side_by_side([["a"], ["b"], ["c"]], [["a"], {"steps": ["b"]}], meta)
    assert lines == [
        "    superstep  expected  actual",
        "    0          [a]       [a]     ok",
        "    1          [b]       [b]     ok",
        "  > 2          —         [c]     DIFF  <- first divergence",
    ]


def test_explain_result_without_metadata_splits_the_comment() -> None:
    result = {"key": "json_match:all", "score": 0, "comment": "a: x; b: y", "metadata": None}
    assert explain_result(result) == ["json_match:all = 0", "  a: x", "  b: y"]
    assert is_evaluator_result(result)
    assert not is_evaluator_result({"key": "k", "score": "high"})
    assert not is_evaluator_result([result])
