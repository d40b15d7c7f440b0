"""matchevals.json_match against openevals' JSON match, side by side in one process.

Run: python benchmarks/bench_json_match.py [--quick]

Tracing is off. Each workload is timed as the median of several repeats (more for fast ones) and
its peak memory measured with tracemalloc in a separate call. Prints a table of medians, the
speed-up ratio, the issue's target, and peak memory of both libraries.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)

from openevals.json import create_async_json_match_evaluator as openevals_async  # noqa: E402
from openevals.json import create_json_match_evaluator as openevals_sync  # noqa: E402

from matchevals.json_match import (  # noqa: E402
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)


@dataclass
class Workload:
    name: str
    outputs: Any
    references: Any
    options: dict[str, Any]
    target: str
    is_async: bool = False
    min_ratio: float | None = None
    max_seconds: float | None = None


def record(rng: random.Random, index: int) -> dict[str, Any]:
    return {
        "id": index,
        "name": f"person-{index}",
        "email": f"p{index}@example.com",
        "age": rng.randint(18, 90),
        "city": rng.choice(["Paris", "Oslo", "Lima", "Kyiv", "Pune"]),
        "score": round(rng.random(), 3),
        "active": rng.random() < 0.5,
        "tags": rng.sample(["a", "b", "c", "d"], 2),
    }


def records(rng: random.Random, count: int) -> tuple[list[Any], list[Any]]:
    """References, and outputs where 70% of records are identical and the rest differ a little."""
    references = [record(rng, i) for i in range(count)]
    outputs = []
    for item in references:
        copy = dict(item)
        if rng.random() >= 0.7:
            for key in rng.sample(["age", "city", "score", "email"], 2):
                copy[key] = record(rng, -1)[key]
        outputs.append(copy)
    rng.shuffle(outputs)
    return outputs, references


def flat(count: int, differing: int) -> tuple[dict[str, Any], dict[str, Any]]:
    references = {f"field_{i}": f"value {i}" for i in range(count)}
    outputs = dict(references)
    for i in range(0, count, max(1, count // max(differing, 1)))[:differing]:
        outputs[f"field_{i}"] = f"other {i}"
    return outputs, references


def workloads(quick: bool) -> list[Workload]:
    rng = random.Random(7)
    out10, ref10 = flat(10, 2)
    out1000, ref1000 = flat(1000, 100)
    list_out, list_ref = records(rng, 300 if quick else 1000)
    big_out, big_ref = records(rng, 1000 if quick else 3000)
    size = len(list_out)
    cases = [
        Workload("dict 10 keys, aggregator None", out10, ref10, {}, "≥100×", min_ratio=100),
        Workload(
            "dict 10 keys, aggregator None (async)",
            out10,
            ref10,
            {},
            "≥100×",
            is_async=True,
            min_ratio=100,
        ),
        Workload(
            "dict 10 keys, aggregator average",
            out10,
            ref10,
            {"aggregator": "average"},
            "≥20×",
            min_ratio=20,
        ),
        Workload(
            "dict 10 keys, aggregator average (async)",
            out10,
            ref10,
            {"aggregator": "average"},
            "≥20×",
            is_async=True,
            min_ratio=20,
        ),
        Workload("dict 1000 keys, aggregator None", out1000, ref1000, {}, "≥150×", min_ratio=150),
    ]
    for mode in ("same_elements", "superset", "subset"):
        cases.append(
            Workload(
                f"{size} records, {mode}",
                list_out,
                list_ref,
                {"list_match_mode": mode, "aggregator": "average", "list_aggregator": "average"},
                "≥30×",
                min_ratio=30,
            )
        )
    cases.append(
        Workload(
            f"{len(big_out)} records, same_elements",
            big_out,
            big_ref,
            {"aggregator": "average", "list_aggregator": "average"},
            "< 0.3 s",
            max_seconds=0.3,
        )
    )
    cases.append(
        Workload(
            f"{size} records, ordered",
            list_out,
            list_ref,
            {"list_match_mode": "ordered", "aggregator": "average", "list_aggregator": "average"},
            "≥5×",
            min_ratio=5,
        )
    )
    return cases


def caller(factory: Callable[..., Any], workload: Workload) -> Callable[[], Any]:
    evaluator = factory(**workload.options)
    kwargs = {"outputs": workload.outputs, "reference_outputs": workload.references}
    if workload.is_async:
        loop = asyncio.new_event_loop()
        return lambda: loop.run_until_complete(evaluator(**kwargs))
    return lambda: evaluator(**kwargs)


def median_seconds(call: Callable[[], Any], budget: float) -> float:
    start = time.perf_counter()
    call()  # warm up, and size the batches
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(0.02 / once))
    repeats = max(3, min(15, int(budget / (once * number))))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            call()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def peak_bytes(call: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def human(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller lists, fewer repeats")
    args = parser.parse_args()
    budget = 0.3 if args.quick else 1.0
    header = (
        f"{'workload':44} {'openevals':>10} {'matchevals':>11} {'ratio':>8} {'target':>8}"
        f" {'met':>4} {'peak MiB (oe/me)':>17}"
    )
    print(header)
    print("-" * len(header))
    for workload in workloads(args.quick):
        theirs = caller(openevals_async if workload.is_async else openevals_sync, workload)
        ours = caller(
            create_async_json_match_evaluator if workload.is_async else create_json_match_evaluator,
            workload,
        )
        their_time = median_seconds(theirs, budget)
        our_time = median_seconds(ours, budget)
        ratio = their_time / our_time
        if workload.max_seconds is not None:
            met = our_time < workload.max_seconds
        else:
            met = ratio >= (workload.min_ratio or 0)
        their_peak, our_peak = peak_bytes(theirs), peak_bytes(ours)
        memory = f"{their_peak / 2**20:.2f}/{our_peak / 2**20:.2f}"
        print(
            f"{workload.name:44} {human(their_time):>10} {human(our_time):>11} {ratio:>7.1f}×"
            f" {workload.target:>8} {'yes' if met else 'NO':>4} {memory:>17}"
        )


if __name__ == "__main__":
    main()
