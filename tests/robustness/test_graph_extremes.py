"""graph_trajectory at its extremes: runs too long for a table, equal costs up to rounding, the
alignment's limits, results that contain themselves, and comments of long node names and long
patterns."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    _partial,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
)
from matchevals.graph_trajectory._alignment import Alignment, align_pattern
from matchevals.graph_trajectory._reference import pair_runs
from matchevals.graph_trajectory._superstep import WILDCARD, _common_subsequence

PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)
NODES = st.sampled_from(["a", "b", "c", WILDCARD])


def cell_by_cell_lcs(actual: list[str], expected: list[str]) -> int:
    """The textbook dynamic program the bit-parallel LCS replaced."""
    table = [[0] * (len(expected) + 1) for _ in range(len(actual) + 1)]
    for i, got in enumerate(actual, 1):
        for j, want in enumerate(expected, 1):
            if want == WILDCARD or got == want:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


@settings(max_examples=300, deadline=None)
@given(st.lists(NODES, max_size=12), st.lists(NODES, max_size=12))
def test_bit_parallel_lcs_equals_the_cell_by_cell_one(
    actual: list[str], expected: list[str]
) -> None:
    assert _common_subsequence(actual, expected) == cell_by_cell_lcs(actual, expected)


def test_lcs_of_steps_too_large_for_a_table() -> None:
    # Was O(n × m) in Python: 10^10 cells for two 100,000-node steps (hours).
    nodes = [f"n{i}" for i in range(5_000)]
    assert _common_subsequence(nodes, nodes[1:] + nodes[:1]) == 4_999
    assert _common_subsequence(nodes, list(reversed(nodes))) == 1


SUPERSTEPS = st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=2), max_size=6)
MODES = st.sampled_from(["exact", "unordered", "subset", "superset"])
PLAIN_STEPS = st.lists(
    st.builds(ReferenceStep, st.lists(NODES, max_size=2), MODES, st.just(False)),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(SUPERSTEPS, PLAIN_STEPS)
def test_numpy_alignment_equals_the_general_one(
    steps: list[list[str]], reference: list[ReferenceStep]
) -> None:
    pair = pair_runs({"steps": steps}, {"steps": reference})[0]
    elements = pair.reference.elements
    fast = Alignment.of(_partial._align_plain(steps, elements, 0), len(steps), None)
    general = Alignment.of(align_pattern(steps, elements, None), len(steps), None)
    assert fast.similarity_sum == pytest.approx(general.similarity_sum, abs=1e-9)
    assert fast.longest == general.longest == max(len(steps), len(elements))
    fast_pairs = fast.pairs
    # a valid alignment: every superstep and every reference step once, in order
    assert [p["superstep"] for p in fast_pairs if p["superstep"] is not None] == list(
        range(len(steps))
    )
    paths = [p["reference"] for p in fast_pairs if p["reference"] is not None]
    assert paths == [step.path for step in elements]


def test_equal_costs_up_to_rounding_keep_the_more_similar_path() -> None:
    # Found by hypothesis: 1/3 + 1.0 - 1/2 and 1/3 + 1/2 differ in the last bit, and the
    # cheaper-by-rounding path (one Repeat iteration, two gaps) won over the equally cheap
    # path with more similarity (three iterations): 2/9 instead of 7/18.
    reference = {"steps": [Repeat([ReferenceStep(["a", "a"], "exact")], min=0)]}
    result = PARTIAL(outputs={"steps": [["a", "a", "a"], ["a"], []]}, reference_outputs=reference)
    assert result["score"] == pytest.approx(7 / 18)


def test_alignment_limits_are_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_partial, "CELL_LIMIT", 10)
    with pytest.raises(ValueError, match=r"align 4 supersteps with 4 reference steps .*16 cells"):
        PARTIAL(outputs={"steps": [["a"]] * 4}, reference_outputs={"steps": [["b"]] * 4})
    monkeypatch.setattr(_partial, "CELL_LIMIT", 1_000)
    monkeypatch.setattr(_partial, "DISTINCT_LIMIT", 3)
    with pytest.raises(ValueError, match="2 distinct supersteps with 2 distinct reference steps"):
        PARTIAL(outputs={"steps": [["a"], ["b"]]}, reference_outputs={"steps": [["c"], ["d"]]})
    with pytest.raises(
        ValueError,
        match=r"align 600 supersteps with a reference pattern of about 1002 positions "
        r"\(601,200 cells, more than 500,000\); use strict matching for runs this long",
    ):
        PARTIAL(
            outputs={"steps": [["a"]] * 600},
            reference_outputs={"steps": [Repeat([["a"]], min=999), ["b"]]},
        )


def self_referencing() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def test_results_that_contain_themselves_are_a_value_error() -> None:
    # Was a RecursionError from json_equal.
    with pytest.raises(ValueError, match=r"^outputs\.results\.self: the value contains itself"):
        graph_trajectory_match(
            outputs={"steps": [["a"]], "results": self_referencing()},
            reference_outputs={"steps": [["a"]], "results": self_referencing()},
            eval_results=True,
        )
    with pytest.raises(ValueError, match=r"^outputs\[1\]\.results\.self: "):
        graph_trajectory_match(
            outputs=[{"steps": [], "results": {}}, {"steps": [], "results": self_referencing()}],
            reference_outputs=[{"steps": []}, {"steps": [], "results": self_referencing()}],
            eval_results=True,
        )


def test_comments_cut_long_node_names_and_long_supersteps() -> None:
    long_name = "n" * 1_000
    result = graph_trajectory_match(
        outputs={"steps": [[long_name]]}, reference_outputs={"steps": [["b"]]}
    )
    cut = "n" * 59 + "…"
    assert result["comment"] == (
        f"run 0, superstep 0 (unordered, reference_outputs.steps[0]): expected [b], got [{cut}]; "
        f"missing b; extra {cut}"
    )
    # metadata keeps the full names
    assert result["metadata"]["runs"][0]["divergence"]["actual"] == [long_name]
    many = [f"w{i:02d}" for i in range(25)]
    result = graph_trajectory_match(
        outputs={"steps": [many]}, reference_outputs={"steps": [ReferenceStep([], "subset")]}
    )
    shown = ", ".join(many[:20])
    assert result["comment"] == (
        "run 0, superstep 0 (subset, reference_outputs.steps[0]): expected [], "
        f"got [{shown}, … 5 more]; extra {shown}, … 5 more"
    )


def test_comments_cap_the_alternatives_of_a_long_pattern() -> None:
    # Was one alternative per optional step: 33,000 characters for 2,000 optional steps.
    reference = {"steps": [ReferenceStep([f"x{i}"], optional=True) for i in range(8)] + [["b"]]}
    result = graph_trajectory_match(outputs={"steps": [["c"]]}, reference_outputs=reference)
    alternatives = " or ".join(
        f"[x{i}] (unordered, reference_outputs.steps[{i}])" for i in range(5)
    )
    assert result["comment"] == (
        f"run 0 left the reference pattern at superstep 0: expected {alternatives} or 4 more, "
        "got [c]"
    )
    reference = {"steps": [ReferenceStep(["*"], optional=True) for _ in range(2_000)] + [["b"]]}
    result = graph_trajectory_match(outputs={"steps": [["c"]] * 3}, reference_outputs=reference)
    paths = " or ".join(f"reference_outputs.steps[{i}]" for i in range(3, 8))
    assert result["comment"] == (
        "run 0 ended after 3 supersteps, before the reference pattern was complete: superstep 3 "
        f"should have been [*] (unordered, {paths} or 1992 more) or [b] (unordered, "
        "reference_outputs.steps[2000])"
    )
