"""Partial credit on worked examples: alignment, per-mode scores, patterns, results, runs."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_graph_trajectory_match_evaluator,
)
from tests.graph_trajectory.helpers import ref, run

PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)


def score(outputs: Any, reference: Any) -> float:
    result = PARTIAL(outputs=outputs, reference_outputs=reference)
    assert isinstance(result["score"], float)
    return result["score"]


@pytest.mark.parametrize(
    ("outputs", "reference", "expected"),
    [
        # one superstep of two is wrong: (1 + 0) / 2
        (run(["a"], ["b"]), ref(["a"], ["c"]), 0.5),
        # a missing last superstep: 2 / 3
        (run(["a"], ["b"]), ref(["a"], ["b"], ["c"]), 2 / 3),
        # multiset Jaccard of {b, c} and {b, d} is 1/3: (1 + 1/3) / 2
        (run(["a"], ["b", "c"]), ref(["a"], ["b", "d"]), 2 / 3),
        # an inserted superstep is skipped by the alignment: 3 / 4
        (run(["a"], ["x"], ["b"], ["c"]), ref(["a"], ["b"], ["c"]), 0.75),
        # a Send fan-out one worker short: (1 + 2/3 + 1) / 3
        (
            run(["plan"], ["w", "w"], ["reduce"]),
            ref(["plan"], ["w", "w", "w"], ["reduce"]),
            8 / 9,
        ),
        # subset: the share of actual nodes allowed
        (run(["a", "c"]), ref(ReferenceStep(["a", "b"], "subset")), 0.5),
        # superset: the share of reference nodes that ran
        (run(["a"]), ref(ReferenceStep(["a", "b", "c", "d"], "superset")), 0.25),
        # exact: longest common subsequence / longer length
        (run(["b", "a"]), ref(ReferenceStep(["a", "b"], "exact")), 0.5),
        (run(["a", "c"]), ref(ReferenceStep(["a", "b", "c"], "exact")), 2 / 3),
        # nothing in common
        (run(["x"], ["y"]), ref(["a"]), 0.0),
        (run(), ref(["a"]), 0.0),
    ],
)
def test_worked_examples(outputs: Any, reference: Any, expected: float) -> None:
    assert score(outputs, reference) == pytest.approx(expected)


def test_exact_match_scores_exactly_one() -> None:
    assert score(run(["a"], ["c", "b"]), ref(["a"], ["b", "c"])) == 1.0
    assert score(run(), ref()) == 1.0


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        # the reference path agent, tools, agent, tools, agent with one agent left out: 4 / 5
        ([["agent"], ["tools"], ["tools"], ["agent"]], 0.8),
        # the loop once, the final agent missing: 2 / 3
        ([["agent"], ["tools"]], 2 / 3),
        # two full iterations and the final agent: a strict match
        ([["agent"], ["tools"], ["agent"], ["tools"], ["agent"]], 1.0),
    ],
)
def test_patterns_choose_the_best_reference_path(steps: list[list[str]], expected: float) -> None:
    reference = ref(Repeat([["agent"], ["tools"]], min=1), ["agent"])
    assert score(run(*steps), reference) == pytest.approx(expected)


@pytest.mark.parametrize(
    "middle",
    [
        ["b"],
        ReferenceStep(["b"], optional=True),
        Repeat([["b"]], min=0),
        Repeat([["b"]], min=0, max=1),
    ],
)
def test_an_optional_step_or_repeat_scores_as_well_as_a_required_one(middle: Any) -> None:
    # [b, x, y] against [b] is 1/3; pairing it beats leaving both out: (1 + 1/3 + 1) / 3.
    # (Leaving out what scores no more than 1/2 used to give (1 + 1) / 3 for the patterns.)
    outputs = run(["a"], ["b", "x", "y"], ["c"])
    assert score(outputs, ref(["a"], middle, ["c"])) == pytest.approx(7 / 9)


def test_results_count_in_the_choice_of_the_alignment() -> None:
    # With results as one more item, (S + 1) / (max(n, L) + 1) is best with the Repeat run
    # twice: supersteps 0 and 2 paired with it (2/3 each), (4/3 + 1) / 4 = 7/12. S / max(n, L)
    # alone is best with it run three times (2/3 + 1/2 + 2/3 over 4 steps: 0.4583); choosing
    # the alignment by that and adding the results would give (11/6 + 1) / 5 = 0.5667.
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True, eval_results=True)
    outputs = run(["b", "a"], ["a", "a", "c"], ["a", "c"], results=1)
    reference = ref(Repeat([["c", "b", "a"]], min=0), ["b"], results=1)
    assert evaluator(outputs=outputs, reference_outputs=reference)["score"] == pytest.approx(7 / 12)
    assert score(outputs, reference) == pytest.approx(0.4583333333333333)


def test_optional_steps_left_out_do_not_count() -> None:
    reference = ref(["a"], ReferenceStep(["b"], optional=True), ["c"])
    assert score(run(["a"], ["c"]), reference) == 1.0
    assert score(run(["a"], ["x"], ["c"]), reference) == pytest.approx(2 / 3)


def test_alignment_is_reported_in_metadata() -> None:
    result = PARTIAL(outputs=run(["a"], ["x"], ["b"]), reference_outputs=ref(["a"], ["b"], ["c"]))
    meta = result["metadata"]["runs"][0]
    assert meta["score"] == pytest.approx(2 / 3)
    assert meta["partial_alignment"] == [
        {"superstep": 0, "reference": "reference_outputs.steps[0]", "score": 1.0},
        {"superstep": 1, "reference": None, "score": 0.0},
        {"superstep": 2, "reference": "reference_outputs.steps[1]", "score": 1.0},
        {"superstep": None, "reference": "reference_outputs.steps[2]", "score": 0.0},
    ]
    assert result["comment"] == (
        "run 0, superstep 1 (unordered, reference_outputs.steps[1]): expected [b], got [x]; "
        "missing b; extra x"
    )


def test_mean_over_runs() -> None:
    outputs = [run(["a"], ["b"]), run(["a"])]
    references = [ref(["a"], ["c"]), ref(["a"])]
    result = PARTIAL(outputs=outputs, reference_outputs=references)
    assert result["score"] == pytest.approx(0.75)
    assert [r["score"] for r in result["metadata"]["runs"]] == [0.5, 1.0]


def test_results_count_as_one_more_item() -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True, eval_results=True)
    result = evaluator(
        outputs=run(["a"], results={"x": 1}), reference_outputs=ref(["a"], results={"x": 2})
    )
    assert result["score"] == pytest.approx(0.5)
    same = evaluator(
        outputs=run(["a"], results={"x": 1}), reference_outputs=ref(["a"], results={"x": 1})
    )
    assert same["score"] == 1.0


def test_threshold_reports_pass_and_fail() -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.6)
    passing = evaluator(
        outputs=run(["a"], ["b"], ["x"]), reference_outputs=ref(["a"], ["b"], ["c"])
    )
    assert passing["score"] == pytest.approx(2 / 3)
    assert passing["metadata"]["pass"] is True
    assert passing["metadata"]["threshold"] == 0.6
    failing = evaluator(outputs=run(["a"], ["x"]), reference_outputs=ref(["a"], ["c"]))
    assert failing["metadata"]["pass"] is False


def test_long_runs_stay_fast_thanks_to_prefix_and_suffix_trimming() -> None:
    steps = [["a"], ["b", "c"]] * 2000
    outputs = run(*steps[:1000], ["x"], *steps[1001:])
    assert score(outputs, ref(*steps)) == pytest.approx(3999 / 4000)
