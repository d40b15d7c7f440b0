"""Turn patterns against the exhaustive oracle (``pattern_oracle``) on small random cases:
optional turns, Repeat with min and max, ``"*"`` turns and ``"*"`` tools, calls without args,
the four turn modes; strict verdicts and partial credit, and the reported alignment."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.trajectory import (
    Repeat,
    TurnStep,
    _pattern_verdict,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.trajectory.pattern_oracle import (
    Call,
    best_score,
    frozen,
    is_a_path,
    strictly_matches,
    turn_similarity,
)

STRICT = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
PARTIAL = create_trajectory_match_evaluator(trajectory_match_mode="pattern", partial_credit=True)
ASYNC_PARTIAL = create_async_trajectory_match_evaluator(
    trajectory_match_mode="pattern", partial_credit=True
)
MODES = ["exact", "unordered", "subset", "superset"]
ARGS = [{"q": 1}, {"q": 2}]
OUTPUT_CALL = st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(ARGS))
TURN = st.lists(OUTPUT_CALL, max_size=2)
RUNS = st.lists(TURN, max_size=4)


@st.composite
def expected_calls(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(["a", "b", "*"]))
    if name == "*" or draw(st.booleans()):
        return {"name": name}
    return {"name": name, "args": draw(st.sampled_from(ARGS))}


@st.composite
def turn_steps(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 6)) == 0:
        return "*"
    calls = draw(st.lists(expected_calls(), max_size=2))
    return TurnStep(calls, draw(st.sampled_from(MODES)), draw(st.booleans()))


@st.composite
def repeats(draw: st.DrawFn) -> Repeat:
    body = draw(st.lists(turn_steps(), min_size=1, max_size=2))
    low = draw(st.integers(0, 2))
    high = draw(st.one_of(st.none(), st.integers(max(low, 1), 3)))
    return Repeat(body, low, high)


@st.composite
def patterns(draw: st.DrawFn) -> list[Any]:
    """Up to three turns, at most one Repeat (so the oracle stays quick)."""
    items: list[Any] = draw(st.lists(turn_steps(), max_size=3))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), draw(repeats()))
    return items


def messages(run: list[list[tuple[str, dict[str, Any]]]]) -> list[dict[str, Any]]:
    """A user question, then per turn an assistant message (and its tool results)."""
    found: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number, turn in enumerate(run):
        calls = [
            {"name": name, "args": args, "id": f"{number}-{index}"}
            for index, (name, args) in enumerate(turn)
        ]
        found.append({"role": "ai", "content": "", "tool_calls": calls})
        found.extend({"role": "tool", "content": "ok", "tool_call_id": c["id"]} for c in calls)
    return found


def oracle_run(run: list[list[tuple[str, dict[str, Any]]]]) -> list[tuple[Call, ...]]:
    return [tuple((name, frozen(args)) for name, args in turn) for turn in run]


def _steps_by_path(pattern: list[Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for index, item in enumerate(pattern):
        path = f"reference_outputs[{index}]"
        if isinstance(item, Repeat):
            for inner, step in enumerate(item.steps):
                found[f"{path}.steps[{inner}]"] = step
        else:
            found[path] = item
    return found


def _similarity(turn: tuple[Call, ...], step: Any) -> float:
    if step == "*":
        return 1.0
    calls = tuple((call["name"], frozen(call.get("args"))) for call in step.calls)
    return turn_similarity(turn, calls, step.mode)


def check_alignment(run: list[tuple[Call, ...]], pattern: list[Any], meta: dict[str, Any]) -> None:
    """The reported alignment is a path of the pattern, scored as the definition says."""
    pairs = meta["partial_alignment"]
    assert [p["turn"] for p in pairs if p["turn"] is not None] == list(range(len(run)))
    listed = [p["reference"] for p in pairs if p["reference"] is not None]
    assert is_a_path(pattern, len(run), listed)
    steps = _steps_by_path(pattern)
    for p in pairs:
        if p["turn"] is None or p["reference"] is None:
            assert p["score"] == 0.0
        else:
            expected = _similarity(run[p["turn"]], steps[p["reference"]])
            assert p["score"] == pytest.approx(expected, abs=1e-12)
    total = math.fsum(p["score"] for p in pairs)
    assert meta["score"] == pytest.approx(total / max(len(run), len(listed)), abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(RUNS, patterns())
def test_strict_match_is_some_path_matching_turn_by_turn(
    run: list[list[tuple[str, dict[str, Any]]]], pattern: list[Any]
) -> None:
    result = STRICT(outputs=messages(run), reference_outputs=pattern)
    assert result["score"] is strictly_matches(oracle_run(run), pattern)
    verdicts = [turn["verdict"] for turn in result["metadata"]["turns"]]
    if result["score"]:
        assert verdicts == ["match"] * len(run)
        assert result["comment"] is None
    else:
        assert result["comment"]
        assert result["metadata"]["divergence"]["turn"] == verdicts.count("match")


@settings(max_examples=300, deadline=None)
@given(RUNS, patterns())
def test_partial_credit_is_the_best_of_every_path_and_alignment(
    run: list[list[tuple[str, dict[str, Any]]]], pattern: list[Any]
) -> None:
    result = PARTIAL(outputs=messages(run), reference_outputs=pattern)
    expected = best_score(oracle_run(run), pattern)
    if strictly_matches(oracle_run(run), pattern):
        assert expected == 1.0
        assert result["score"] == 1.0
    else:
        assert result["score"] == pytest.approx(expected, abs=1e-9)
        assert result["score"] < 1.0
        check_alignment(oracle_run(run), pattern, result["metadata"])


@settings(max_examples=200, deadline=None)
@given(RUNS, patterns())
def test_the_tighter_bounds_find_the_same_best_alignment(
    run: list[list[tuple[str, dict[str, Any]]]], pattern: list[Any]
) -> None:
    # with no budget the search uses the engine's tighter bounds from the first entry on
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_pattern_verdict, "_LOOSE_BOUND_BUDGET", 0)
        result = PARTIAL(outputs=messages(run), reference_outputs=pattern)
    if not strictly_matches(oracle_run(run), pattern):
        assert result["score"] == pytest.approx(best_score(oracle_run(run), pattern), abs=1e-9)
        check_alignment(oracle_run(run), pattern, result["metadata"])


@settings(max_examples=100, deadline=None)
@given(RUNS, patterns())
def test_sync_and_async_give_the_same_result(
    run: list[list[tuple[str, dict[str, Any]]]], pattern: list[Any]
) -> None:
    sync = PARTIAL(outputs=messages(run), reference_outputs=pattern)
    asynchronous = asyncio.run(ASYNC_PARTIAL(outputs=messages(run), reference_outputs=pattern))
    assert sync == asynchronous


def json_form(pattern: list[Any]) -> dict[str, Any]:
    def turn(item: Any) -> Any:
        if item == "*":
            return "*"
        return {"calls": item.calls, "match_mode": item.mode, "optional": item.optional}

    turns: list[Any] = []
    for item in pattern:
        if isinstance(item, Repeat):
            turns.append({"repeat": [turn(step) for step in item.steps], "min": item.min, "max": item.max})  # fmt: skip # noqa: E501
        else:
            turns.append(turn(item))
    return {"turns": turns}


@settings(max_examples=100, deadline=None)
@given(RUNS, patterns())
def test_the_json_form_scores_as_the_classes_and_nothing_is_mutated(
    run: list[list[tuple[str, dict[str, Any]]]], pattern: list[Any]
) -> None:
    document = json.loads(json.dumps(json_form(pattern)))
    before = json.dumps(document)
    outputs = messages(run)
    outputs_before = json.dumps(outputs)
    for evaluator in (STRICT, PARTIAL):
        from_classes = evaluator(outputs=outputs, reference_outputs=pattern)
        from_json = evaluator(outputs=outputs, reference_outputs=document)
        assert from_json["score"] == from_classes["score"]
        verdicts = [turn["verdict"] for turn in from_json["metadata"]["turns"]]
        assert verdicts == [turn["verdict"] for turn in from_classes["metadata"]["turns"]]
    assert json.dumps(document) == before
    assert json.dumps(outputs) == outputs_before
