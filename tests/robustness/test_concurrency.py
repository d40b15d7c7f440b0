"""Concurrency: one evaluator shared by 8 threads or 1,000 asyncio tasks gives exactly the
sequential results; evaluators pickle, and a spawn-context process pool computes the same."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import (
    comparators,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from tests.scripted_judge import ScriptedJudge


def judge_by_value(schema: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """A deterministic judge: a field passes when its output value mentions "ok"."""
    text = str(messages)
    outputs = text.split("<output_values>")[1].split("</output_values>")[0]
    answer = {}
    for name in schema["properties"]:
        line = next((row for row in outputs.split("\\n") if row.startswith(f"{name}:")), "")
        answer[name] = {"score": "ok" in line, "reasoning": f"{name}: {line[:20]}"}
    return answer


def json_inputs(count: int) -> list[dict[str, Any]]:
    rng = random.Random(11)
    values: list[Any] = [1, 2, 1.0, "ok", "no", True, None, [1, 2], {"n": 1}]
    keys = ["a", "b", "c", "note"]

    def record() -> dict[str, Any]:
        return {key: rng.choice(values) for key in rng.sample(keys, rng.randint(1, 4))}

    return [
        {
            "outputs": [record() for _ in range(rng.randint(0, 5))],
            "reference_outputs": [record() for _ in range(rng.randint(0, 5))],
        }
        for _ in range(count)
    ]


def graph_inputs(count: int) -> list[dict[str, Any]]:
    rng = random.Random(12)
    names = ["agent", "tools", "plan", "worker"]
    reference = {
        "steps": [
            ["plan"],
            ReferenceStep(["worker", "*"], "superset", optional=True),
            Repeat([["agent"], ["tools"]], min=1),
            ["agent"],
        ]
    }
    return [
        {
            "outputs": {
                "steps": [rng.sample(names, rng.randint(1, 2)) for _ in range(6)],
                "results": {"n": rng.randint(0, 1)},
            },
            "reference_outputs": {**reference, "results": {"n": 1}},
        }
        for _ in range(count)
    ]


def json_evaluators() -> list[tuple[Callable[..., Any], Callable[..., Any]]]:
    pairs = []
    for options in [
        {},
        {"aggregator": "average", "list_aggregator": "average"},
        {"aggregator": "all", "list_match_mode": "superset", "exclude_keys": ["c"]},
        {"comparators": {"a": comparators.numeric(abs_tol=0.5)}, "aggregator": "average"},
    ]:
        pairs.append(
            (create_json_match_evaluator(**options), create_async_json_match_evaluator(**options))
        )
    judge = ScriptedJudge(answer=judge_by_value)
    rubric = {"rubric": {"note": "says ok"}, "judge": judge, "aggregator": "average"}
    pairs.append(
        (create_json_match_evaluator(**rubric), create_async_json_match_evaluator(**rubric))
    )
    return pairs


def graph_evaluators() -> list[tuple[Callable[..., Any], Callable[..., Any]]]:
    return [
        (
            create_graph_trajectory_match_evaluator(),
            create_async_graph_trajectory_match_evaluator(),
        ),
        (
            create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.6),
            create_async_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.6),
        ),
    ]


CASES = [("json", index) for index in range(5)] + [("graph", index) for index in range(2)]


def evaluators_for(kind: str, index: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    return (json_evaluators() if kind == "json" else graph_evaluators())[index]


def inputs_for(kind: str, count: int) -> list[dict[str, Any]]:
    return json_inputs(count) if kind == "json" else graph_inputs(count)


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_one_evaluator_from_8_threads(kind: str, index: int) -> None:
    evaluator, _ = evaluators_for(kind, index)
    inputs = inputs_for(kind, 400)
    sequential = [evaluator(**arguments) for arguments in inputs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda arguments: evaluator(**arguments), inputs))
    assert threaded == sequential
    assert len({repr(result) for result in sequential}) > 5  # the inputs really differ


@pytest.mark.parametrize(("kind", "index"), CASES)
def test_one_async_evaluator_from_1000_tasks(kind: str, index: int) -> None:
    evaluator, async_evaluator = evaluators_for(kind, index)
    inputs = inputs_for(kind, 1_000)
    sequential = [evaluator(**arguments) for arguments in inputs]

    async def all_at_once() -> list[Any]:
        return await asyncio.gather(*(async_evaluator(**arguments) for arguments in inputs))

    assert asyncio.run(all_at_once()) == sequential


def test_rules_evaluators_from_threads_and_tasks() -> None:
    options = {"forbidden": ["tools"], "max_visits": {"agent": 2}, "before": [("plan", "agent")]}
    evaluator = create_graph_trajectory_rules_evaluator(**options)  # type: ignore[arg-type]
    async_evaluator = create_async_graph_trajectory_rules_evaluator(**options)  # type: ignore[arg-type]
    inputs = [{"outputs": case["outputs"]} for case in graph_inputs(500)]
    sequential = [evaluator(**arguments) for arguments in inputs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(lambda arguments: evaluator(**arguments), inputs)) == sequential

    async def all_at_once() -> list[Any]:
        return await asyncio.gather(*(async_evaluator(**arguments) for arguments in inputs))

    assert asyncio.run(all_at_once()) == sequential


def all_evaluators() -> list[Callable[..., Any]]:
    rules = {"forbidden": ["x"], "max_supersteps": 3}
    found = [e for pair in json_evaluators() + graph_evaluators() for e in pair]
    found += [
        create_graph_trajectory_rules_evaluator(**rules),  # type: ignore[arg-type]
        create_async_graph_trajectory_rules_evaluator(**rules),  # type: ignore[arg-type]
        create_graph_trajectory_match_evaluator(
            eval_results=True, results_evaluator=create_json_match_evaluator(aggregator="all")
        ),
    ]
    return found


def test_every_evaluator_pickles_and_keeps_its_results() -> None:
    json_case = json_inputs(30)
    graph_case = graph_inputs(30)
    for evaluator in all_evaluators():
        copy = pickle.loads(pickle.dumps(evaluator))
        assert getattr(copy, "__name__", None) == getattr(evaluator, "__name__", None)
        is_graph = "graph" in getattr(evaluator, "__name__", "")
        for arguments in graph_case if is_graph else json_case:
            if "rules" in evaluator.__name__:
                arguments = {"outputs": arguments["outputs"]}
            original, restored = evaluator(**arguments), copy(**arguments)
            if asyncio.iscoroutine(original):
                original, restored = asyncio.run(original), asyncio.run(restored)
            assert restored == original


def _apply(evaluator: Callable[..., Any], arguments: dict[str, Any]) -> Any:
    return evaluator(**arguments)


def test_a_spawned_process_pool_computes_the_same_results() -> None:
    work = []
    for kind, index in CASES:
        evaluator, _ = evaluators_for(kind, index)
        work += [(evaluator, arguments) for arguments in inputs_for(kind, 25)]
    sequential = [_apply(evaluator, arguments) for evaluator, arguments in work]
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes=2) as pool:
        pooled = pool.starmap(_apply, work, chunksize=20)
    assert pooled == sequential
