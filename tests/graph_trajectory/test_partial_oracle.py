"""Partial credit against the exhaustive oracle (``partial_oracle``) on small random patterns:
optional steps, Repeat with min and max, wildcards, the four step modes, results as one more
item; and the invariants that follow from the definition."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    _alignment,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
)
from tests.graph_trajectory.helpers import ref, run
from tests.graph_trajectory.partial_oracle import best_score, is_a_path, step_similarity

PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)
MODES = ["exact", "unordered", "subset", "superset"]
SUPERSTEP = st.lists(st.sampled_from(["a", "b", "c"]), max_size=3)
REFERENCE_NODES = st.lists(st.sampled_from(["a", "b", "c", "*"]), max_size=2)


@st.composite
def reference_steps(draw: st.DrawFn) -> Any:
    nodes = draw(REFERENCE_NODES)
    if draw(st.integers(0, 4)) == 0:
        return nodes  # a bare list: unordered, required
    return ReferenceStep(nodes, draw(st.sampled_from(MODES)), draw(st.booleans()))


@st.composite
def repeats(draw: st.DrawFn) -> Repeat:
    body = draw(st.lists(reference_steps(), min_size=1, max_size=2))
    low = draw(st.integers(0, 2))
    high = draw(st.one_of(st.none(), st.integers(max(low, 1), 3)))
    return Repeat(body, low, high)


@st.composite
def patterns(draw: st.DrawFn) -> list[Any]:
    """Up to three items, at most one of them a Repeat (so the oracle stays quick)."""
    items: list[Any] = draw(st.lists(reference_steps(), max_size=3))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), draw(repeats()))
    return items


RUNS = st.lists(SUPERSTEP, max_size=4)


def check_alignment(
    steps: list[list[str]], items: list[Any], result: dict[str, Any], results: float | None = None
) -> None:
    """The reported alignment is one the definition allows and scores the reported score."""
    meta = result["metadata"]["runs"][0]
    if meta["match"]:
        return
    pairs = meta["partial_alignment"]
    assert [p["superstep"] for p in pairs if p["superstep"] is not None] == list(range(len(steps)))
    listed = [p["reference"] for p in pairs if p["reference"] is not None]
    assert is_a_path(items, len(steps), listed)
    steps_by_path = _steps_by_path(items)
    for p in pairs:
        if p["superstep"] is None or p["reference"] is None:
            assert p["score"] == 0.0
        else:
            nodes, mode = steps_by_path[p["reference"]]
            expected = step_similarity(tuple(steps[p["superstep"]]), nodes, mode)
            assert p["score"] == pytest.approx(expected, abs=1e-12)
    longest = max(len(steps), len(listed))
    total = math.fsum(p["score"] for p in pairs)
    if results is None:
        assert meta["score"] == pytest.approx(total / longest, abs=1e-9)
    else:
        assert meta["score"] == pytest.approx((total + results) / (longest + 1), abs=1e-9)


def _steps_by_path(items: list[Any]) -> dict[str, tuple[tuple[str, ...], str]]:
    found = {}
    for index, item in enumerate(items):
        path = f"reference_outputs.steps[{index}]"
        if isinstance(item, Repeat):
            for inner, step in enumerate(item.steps):
                found[f"{path}.steps[{inner}]"] = _content(step)
        else:
            found[path] = _content(item)
    return found


def _content(item: Any) -> tuple[tuple[str, ...], str]:
    if isinstance(item, ReferenceStep):
        return tuple(item.steps), item.match_mode
    return tuple(item), "unordered"


@settings(max_examples=400, deadline=None)
@given(RUNS, patterns())
def test_partial_credit_is_the_best_of_every_path_and_alignment(
    steps: list[list[str]], items: list[Any]
) -> None:
    result = PARTIAL(outputs=run(*steps), reference_outputs=ref(*items))
    strict = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    expected = best_score(steps, items)
    if strict["score"]:
        assert expected == 1.0
        assert result["score"] == 1.0
    else:
        assert result["score"] == pytest.approx(expected, abs=1e-9)
        assert result["score"] < 1.0
    check_alignment(steps, items, result)


@settings(max_examples=200, deadline=None)
@given(RUNS, patterns())
def test_the_tighter_bounds_find_the_same_best_alignment(
    steps: list[list[str]], items: list[Any]
) -> None:
    # The search switches to the bounds of remaining_similarity only when it has queued many
    # entries; with no budget it uses them from the start and must find the same best score.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_alignment, "_LOOSE_BOUND_BUDGET", 0)
        result = PARTIAL(outputs=run(*steps), reference_outputs=ref(*items))
    strict = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    if not strict["score"]:
        assert result["score"] == pytest.approx(best_score(steps, items), abs=1e-9)
        check_alignment(steps, items, result)


def results_evaluator(score: float) -> Any:
    def evaluate(*, outputs: Any, reference_outputs: Any) -> dict[str, Any]:
        return {"key": "results", "score": score}

    return evaluate


@settings(max_examples=200, deadline=None)
@given(RUNS, patterns(), st.sampled_from([0.0, 0.25, 0.5, 1.0]))
def test_results_count_as_one_more_item_of_the_best_alignment(
    steps: list[list[str]], items: list[Any], results: float
) -> None:
    evaluator = create_graph_trajectory_match_evaluator(
        partial_credit=True, eval_results=True, results_evaluator=results_evaluator(results)
    )
    result = evaluator(outputs=run(*steps), reference_outputs=ref(*items))
    strict = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    if strict["score"] and results == 1.0:
        assert result["score"] == 1.0
    else:
        assert result["score"] == pytest.approx(best_score(steps, items, results), abs=1e-9)
        check_alignment(steps, items, result, results)


@st.composite
def larger_patterns(draw: st.DrawFn) -> list[Any]:
    """Up to five items, Repeats among them, for invariants the oracle would take too long on."""
    return draw(st.lists(st.one_of(reference_steps(), repeats()), max_size=5))


LONGER_RUNS = st.lists(SUPERSTEP, max_size=7)


def partial_score(steps: list[list[str]], items: list[Any]) -> float:
    score = PARTIAL(outputs=run(*steps), reference_outputs=ref(*items))["score"]
    assert isinstance(score, float) and 0.0 <= score <= 1.0
    return score


def _optional(item: Any) -> ReferenceStep:
    nodes, mode = _content(item)
    return ReferenceStep(list(nodes), mode, True)  # type: ignore[arg-type]


def made_optional(items: list[Any], which: int) -> list[Any]:
    """``items`` with its ``which``-th step (counting Repeat bodies' steps) made optional."""
    changed: list[Any] = []
    for item in items:
        if isinstance(item, Repeat):
            body = list(item.steps)
            if 0 <= which < len(body):
                body[which] = _optional(body[which])
            which -= len(body)
            changed.append(Repeat(body, item.min, item.max))
        else:
            changed.append(_optional(item) if which == 0 else item)
            which -= 1
    return changed


@settings(max_examples=300, deadline=None)
@given(LONGER_RUNS, larger_patterns(), st.integers(0, 12))
def test_making_a_step_optional_never_lowers_the_score(
    steps: list[list[str]], items: list[Any], which: int
) -> None:
    before = partial_score(steps, items)
    assert partial_score(steps, made_optional(items, which)) >= before - 1e-12


def loosened(items: list[Any], which: int, how: str) -> list[Any]:
    """``items`` with its ``which``-th Repeat allowing more iterations."""
    changed = list(items)
    repeats_at = [index for index, item in enumerate(items) if isinstance(item, Repeat)]
    if repeats_at:
        index = repeats_at[which % len(repeats_at)]
        item = items[index]
        low, high = item.min, item.max
        if how == "lower min":
            low = max(0, low - 1)
        elif how == "raise max" and high is not None:
            high += 1
        elif how == "no max":
            high = None
        changed[index] = Repeat(list(item.steps), low, high)
    return changed


@settings(max_examples=300, deadline=None)
@given(
    LONGER_RUNS,
    larger_patterns(),
    st.integers(0, 3),
    st.sampled_from(["lower min", "raise max", "no max"]),
)
def test_allowing_more_repeat_iterations_never_lowers_the_score(
    steps: list[list[str]], items: list[Any], which: int, how: str
) -> None:
    before = partial_score(steps, items)
    assert partial_score(steps, loosened(items, which, how)) >= before - 1e-12


@settings(max_examples=300, deadline=None)
@given(LONGER_RUNS, larger_patterns())
def test_the_score_is_one_exactly_when_the_strict_match_passes(
    steps: list[list[str]], items: list[Any]
) -> None:
    strict = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    assert (partial_score(steps, items) == 1.0) is strict["score"]
