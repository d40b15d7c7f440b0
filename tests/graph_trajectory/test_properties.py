"""Properties checked with hypothesis, against brute force where it helps."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from matchevals.graph_trajectory._superstep import matches, similarity
from tests.graph_trajectory.helpers import ref, run

MODES = ["exact", "unordered", "subset", "superset"]
NODES = st.sampled_from(["a", "b", "c"])
REF_NODES = st.sampled_from(["a", "b", "c", "*"])
SUPERSTEP = st.lists(NODES, max_size=3)
RUN_STEPS = st.lists(SUPERSTEP, max_size=5)
MODE = st.sampled_from(MODES)
FAST = settings(max_examples=150, deadline=None)

PARTIAL = create_graph_trajectory_match_evaluator(partial_credit=True)
APARTIAL = create_async_graph_trajectory_match_evaluator(partial_credit=True)


@st.composite
def reference_steps(draw: st.DrawFn, allow_optional: bool = True) -> ReferenceStep:
    nodes = draw(st.lists(REF_NODES, max_size=3))
    optional = draw(st.booleans()) if allow_optional else False
    return ReferenceStep(nodes, draw(MODE), optional)


@st.composite
def references(draw: st.DrawFn) -> list[Any]:
    items: list[Any] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 3)) == 0:
            body = draw(st.lists(reference_steps(), min_size=1, max_size=2))
            low = draw(st.integers(0, 2))
            high = draw(st.one_of(st.none(), st.integers(max(low, 1), 3)))
            items.append(Repeat(body, low, high))
        else:
            items.append(draw(reference_steps()))
    return items


Plain = tuple[tuple[str, ...], str]


def expansions(items: list[Any], limit: int) -> set[tuple[Plain, ...]]:
    """Every sequence of (nodes, mode) steps the pattern accepts, up to ``limit`` long."""
    results: set[tuple[Plain, ...]] = {()}
    for item in items:
        if isinstance(item, Repeat):
            found: set[tuple[Plain, ...]] = set()
            frontier = set(results)
            for count in range(max(limit, item.min) + 1):
                if count >= item.min:
                    found |= frontier
                if item.max is not None and count == item.max:
                    break
                frontier = {
                    prefix + body
                    for prefix in frontier
                    for body in expansions(list(item.steps), limit)
                    if len(prefix + body) <= limit
                }
            results = found
        else:
            step = (tuple(item.steps), item.match_mode)
            grown = {(*prefix, step) for prefix in results if len(prefix) < limit}
            results = grown | results if item.optional else grown
    return results


def brute_force_match(steps: list[list[str]], items: list[Any]) -> bool:
    return any(
        len(path) == len(steps)
        and all(
            matches(actual, nodes, mode) for actual, (nodes, mode) in zip(steps, path, strict=True)
        )
        for path in expansions(items, len(steps))
    )


@FAST
@given(RUN_STEPS, references())
def test_pattern_dynamic_program_agrees_with_brute_force(
    steps: list[list[str]], items: list[Any]
) -> None:
    result = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    assert result["score"] is brute_force_match(steps, items)


def plain_best_alignment(steps: list[list[str]], items: list[ReferenceStep]) -> float:
    best = [[0.0] * (len(items) + 1) for _ in range(len(steps) + 1)]
    for i, j in itertools.product(range(1, len(steps) + 1), range(1, len(items) + 1)):
        pair = similarity(steps[i - 1], items[j - 1].steps, items[j - 1].match_mode)
        best[i][j] = max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + pair)
    longest = max(len(steps), len(items))
    return 1.0 if longest == 0 else best[-1][-1] / longest


@FAST
@given(RUN_STEPS, st.lists(reference_steps(allow_optional=False), max_size=5))
def test_partial_credit_is_the_best_alignment_for_plain_references(
    steps: list[list[str]], items: list[ReferenceStep]
) -> None:
    result = PARTIAL(outputs=run(*steps), reference_outputs=ref(*items))
    expected = plain_best_alignment(steps, items)
    assert abs(result["score"] - expected) < 1e-9 or (expected == 1.0 and result["score"] < 1.0)


@FAST
@given(RUN_STEPS, references())
def test_partial_credit_is_one_exactly_when_the_strict_match_passes(
    steps: list[list[str]], items: list[Any]
) -> None:
    strict = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*items))
    partial = PARTIAL(outputs=run(*steps), reference_outputs=ref(*items))
    assert 0.0 <= partial["score"] <= 1.0
    assert (partial["score"] == 1.0) is strict["score"]
    assert strict["metadata"]["runs"][0]["match"] is strict["score"]


@FAST
@given(SUPERSTEP, st.lists(REF_NODES, max_size=3), MODE)
def test_step_similarity_is_in_unit_interval_and_one_iff_match(
    actual: list[str], expected: list[str], mode: Any
) -> None:
    score = similarity(actual, expected, mode)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) is matches(actual, expected, mode)


@FAST
@given(st.lists(st.lists(NODES, min_size=1, max_size=4), max_size=5), st.randoms(), MODE)
def test_a_superstep_shuffled_within_itself_still_matches(
    steps: list[list[str]], random: Any, mode: str
) -> None:
    reference_items = []
    for superstep in steps:
        shuffled = list(superstep)
        random.shuffle(shuffled)
        if mode == "subset":
            shuffled.append("extra")
        elif mode == "superset":
            shuffled = shuffled[1:]
        elif mode == "exact":
            mode_here = "unordered"
            reference_items.append(ReferenceStep(shuffled, mode_here))
            continue
        reference_items.append(ReferenceStep(shuffled, mode))  # type: ignore[arg-type]
    result = graph_trajectory_match(outputs=run(*steps), reference_outputs=ref(*reference_items))
    assert result["score"] is True


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(RUN_STEPS, references()), min_size=1, max_size=3), st.booleans())
async def test_sync_equals_async(
    pairs: list[tuple[list[list[str]], list[Any]]], partial: bool
) -> None:
    outputs = [run(*steps, results={"n": len(steps)}) for steps, _ in pairs]
    reference = [ref(*items, results={"n": len(items)}) for _, items in pairs]
    if partial:
        assert PARTIAL(outputs=outputs, reference_outputs=reference) == await APARTIAL(
            outputs=outputs, reference_outputs=reference
        )
    else:
        sync = graph_trajectory_match(
            outputs=outputs, reference_outputs=reference, eval_results=True
        )
        asynchronous = await graph_trajectory_match_async(
            outputs=outputs, reference_outputs=reference, eval_results=True
        )
        assert sync == asynchronous
