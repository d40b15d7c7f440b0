"""Benchmark: matchevals' graph trajectory matcher beside agentevals' strict matcher, and
partial credit against patterns.

Run with ``python benchmarks/bench_graph_trajectory.py`` (tracing is switched off here). Prints
the median time per call of each case and the ratios the issue sets targets for. Times are CPU
time of this process (``time.process_time``), so other load on the machine skews them less.
"""

from __future__ import annotations

import functools
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"

from agentevals.graph_trajectory.strict import graph_trajectory_strict_match

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_graph_trajectory_match_evaluator,
    graph_trajectory_match,
)


def _per_call(call: Callable[[], Any], budget: float) -> int:
    call()
    start = time.process_time()
    call()
    return max(1, int(budget / max(time.process_time() - start, 1e-7)))


def medians(*calls: Callable[[], Any], repeats: int = 9, budget: float = 0.05) -> list[float]:
    """Median time per call of each callable; their samples are interleaved so that a change
    in machine load affects all of them alike."""
    numbers = [_per_call(call, budget) for call in calls]
    samples: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for call, number, sink in zip(calls, numbers, samples, strict=True):
            start = time.process_time()
            for _ in range(number):
                call()
            sink.append((time.process_time() - start) / number)
    return [statistics.median(sink) for sink in samples]


def trajectory(steps: list[Any]) -> dict[str, Any]:
    return {"inputs": None, "results": None, "steps": steps}


def supersteps(count: int) -> list[list[str]]:
    """A realistic mix: single nodes and small parallel fan-outs, all distinct lists."""
    shapes = [["agent"], ["tools", "search"], ["agent"], ["worker", "worker", "worker"]]
    return [list(shapes[index % len(shapes)]) for index in range(count)]


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:10.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:10.2f} ms"


NAMES = ["agent", "tools", "search", "plan", "x", "y"]
AGENT_LOOP = [["plan"], Repeat([["agent"], ["search", "tools"]], min=1), ["agent"]]


def agent_loop(turns: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A plan, an agent <-> tools loop and a final agent; the run has a wrong tool call, an
    extra node and a lost superstep."""
    steps = [["plan"], *[["agent"], ["tools", "search"]] * turns, ["agent"]]
    steps[7] = ["tools"]
    steps[50] = ["agent", "other"]
    del steps[120]
    return trajectory(steps), trajectory(AGENT_LOOP)


def with_optional_steps(count: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every tenth reference step optional; the run has a wrong, a lost and an extra step."""
    expected = supersteps(count)
    reference = [ReferenceStep(s, optional=i % 10 == 5) for i, s in enumerate(expected)]
    steps = [list(step) for step in expected]
    steps[17] = ["other"]
    del steps[95]
    steps.insert(150, ["x"])
    return trajectory(steps), trajectory(reference)


def unrelated(reference: list[Any], count: int, seed: int) -> tuple[dict[str, Any], ...]:
    """A run of random supersteps: the worst case, far from every path of the pattern."""
    rng = random.Random(seed)
    steps = [sorted(rng.sample(NAMES, rng.randint(1, 3))) for _ in range(count)]
    return trajectory(steps), trajectory(reference)


def partial_credit_rows() -> list[tuple[str, float, str]]:
    """Partial credit with patterns (target: 200 supersteps in under 1 s)."""
    partial = create_graph_trajectory_match_evaluator(partial_credit=True)
    rng = random.Random(3)
    random_steps = [
        ReferenceStep(sorted(rng.sample(NAMES, rng.randint(1, 3))), optional=i % 10 == 5)
        for i in range(200)
    ]
    cases = {
        "partial credit, Repeat pattern, 201 supersteps": agent_loop(100),
        "partial credit, Repeat pattern, 1,001 supersteps": agent_loop(500),
        "partial credit, 200 steps with optional ones": with_optional_steps(200),
        "partial credit, Repeat pattern, 200 random supersteps": unrelated(AGENT_LOOP, 200, 1),
        "partial credit, 200 optional-step pattern, random run": unrelated(random_steps, 200, 2),
    }
    rows = []
    for name, (run, reference) in cases.items():
        (seconds,) = medians(
            functools.partial(partial, outputs=run, reference_outputs=reference), repeats=5
        )
        rows.append((name, seconds, "target < 1 s"))
    return rows


def main() -> None:
    rows: list[tuple[str, float, str]] = []

    ten_run, ten_ref = trajectory(supersteps(10)), trajectory(supersteps(10))
    ours_10, agentevals_10 = medians(
        lambda: graph_trajectory_match(outputs=ten_run, reference_outputs=ten_ref),
        lambda: graph_trajectory_strict_match(outputs=ten_run, reference_outputs=ten_ref),
    )
    rows.append(("10 supersteps: agentevals strict", agentevals_10, ""))
    rows.append(
        (
            "10 supersteps: matchevals",
            ours_10,
            f"agentevals/matchevals = {agentevals_10 / ours_10:.1f}x (target >= 10x)",
        )
    )

    run, reference = supersteps(10_000), supersteps(10_000)
    run_dict, ref_dict = trajectory(run), trajectory(reference)
    shuffled = trajectory([list(reversed(step)) for step in run])
    plain, ours_10k, ours_10k_shuffled = medians(
        lambda: run == reference,
        lambda: graph_trajectory_match(outputs=run_dict, reference_outputs=ref_dict),
        lambda: graph_trajectory_match(outputs=shuffled, reference_outputs=ref_dict),
    )
    rows.append(("10,000 supersteps: plain list ==", plain, ""))
    rows.append(
        (
            "10,000 supersteps: matchevals",
            ours_10k,
            f"matchevals/list== = {ours_10k / plain:.1f}x (target <= 10x)",
        )
    )
    rows.append(
        (
            "10,000 supersteps, nodes reordered",
            ours_10k_shuffled,
            f"matchevals/list== = {ours_10k_shuffled / plain:.1f}x (no target)",
        )
    )

    loop_run = trajectory([["agent"], ["tools", "search"]] * 500 + [["agent"]])
    loop_ref = trajectory([Repeat([["agent"], ["search", "tools"]], min=1), ["agent"]])
    (ours_loop,) = medians(
        lambda: graph_trajectory_match(outputs=loop_run, reference_outputs=loop_ref), repeats=5
    )
    rows.append(("Repeat pattern, 1,001 supersteps", ours_loop, "target < 50 ms"))

    rows.extend(partial_credit_rows())

    width = max(len(name) for name, _, _ in rows)
    print(f"{'case':<{width}}  {'median':>13}  note")
    for name, seconds, note in rows:
        print(f"{name:<{width}}  {fmt(seconds)}  {note}")


if __name__ == "__main__":
    main()
