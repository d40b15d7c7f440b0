"""The evaluator's share of a ``langsmith.aevaluate(max_concurrency=...)`` run, offline.

Run: python benchmarks/bench_aevaluate.py [--examples 400] [--repeat 3]

The same offline ``aevaluate`` (a client pointed at a closed local port, ``upload_results=False``)
scores the same examples three times: with an evaluator that does nothing (the harness alone:
LangSmith's run trees, its thread pool and event loop, the async target), with openevals'
async JSON match evaluator and with matchevals' (both ``aggregator="average"``, one evaluator
call per example). The target answers at once, so every second measured is LangSmith's or an
evaluator's. The extra time over the do-nothing evaluator is the evaluator's share; the last
lines compare it with one direct call, and with a 1-second model call per example. Runs are
interleaved and the best of ``--repeat`` is kept: on a shared machine the harness's own time
moves by more than an evaluator costs, and the best run is the one least disturbed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import random
import time
import uuid
import warnings
from datetime import datetime, timezone
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)

from langsmith import Client, aevaluate
from langsmith.schemas import Example
from openevals.json import create_async_json_match_evaluator as openevals_async

from matchevals.json_match import create_async_json_match_evaluator

warnings.filterwarnings("ignore", message=".*upload_runs.*")


def record(rng: random.Random, index: int) -> dict[str, Any]:
    return {
        "customer": {"name": f"Customer {index}", "city": rng.choice(["Lyon", "Oslo", "Rome"])},
        "items": [{"sku": f"S{rng.randrange(100)}", "qty": rng.randrange(1, 5)} for _ in range(3)],
        "total": round(rng.uniform(10, 500), 2),
        "status": rng.choice(["paid", "open"]),
    }


def examples(count: int) -> list[Example]:
    rng = random.Random(16)
    now = datetime.now(timezone.utc)
    dataset = uuid.uuid4()
    data = []
    for index in range(count):
        reference = record(rng, index)
        answer = {**reference, "status": "open"} if index % 4 == 0 else reference
        data.append(
            Example(
                id=uuid.uuid4(),
                dataset_id=dataset,
                inputs={"answer": answer},
                outputs=reference,
                created_at=now,
            )
        )
    return data


async def target(inputs: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = inputs["answer"]
    return answer


async def nothing(outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> dict[str, Any]:
    return {"key": "nothing", "score": 1}


async def run(evaluator: Any, data: list[Example], concurrency: int) -> float:
    client = Client(api_key="offline", api_url="http://127.0.0.1:9", auto_batch_tracing=False)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # "Starting evaluation of experiment: ..."
        results = await aevaluate(
            target,
            data=data,
            evaluators=[evaluator],
            client=client,
            upload_results=False,
            max_concurrency=concurrency,
        )
        rows = [row async for row in results]
    elapsed = time.perf_counter() - start
    assert len(rows) == len(data), "aevaluate lost rows"
    return elapsed


async def direct(evaluator: Any, data: list[Example]) -> float:
    start = time.perf_counter()
    for item in data:
        assert item.inputs is not None
        await evaluator(outputs=item.inputs["answer"], reference_outputs=item.outputs)
    return (time.perf_counter() - start) / len(data)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    data = examples(options.examples)
    evaluators = {
        "do-nothing evaluator": nothing,
        "openevals json match": openevals_async(aggregator="average"),
        "matchevals json_match": create_async_json_match_evaluator(aggregator="average"),
    }
    print(f"langsmith aevaluate offline, {options.examples} examples, best of {options.repeat}")
    print(f"{'':24} {'concurrency':>11} {'ms/example':>11} {'evaluator ms':>13} {'share':>6}")
    for concurrency in (1, 8):
        times: dict[str, list[float]] = {name: [] for name in evaluators}
        for _ in range(options.repeat):  # interleaved, so a change of load hits all three
            for name, evaluator in evaluators.items():
                times[name].append(await run(evaluator, data, concurrency))
        per_example = {name: min(spent) / len(data) * 1000 for name, spent in times.items()}
        harness = per_example["do-nothing evaluator"]
        for name, value in per_example.items():
            extra = value - harness
            share = f"{extra / value:6.0%}" if name != "do-nothing evaluator" else "     -"
            print(f"{name:24} {concurrency:11} {value:11.3f} {extra:13.3f} {share}")
    for name, evaluator in list(evaluators.items())[1:]:
        call = min([await direct(evaluator, data) for _ in range(3)]) * 1000
        fraction = call / (1000 + harness + call)
        print(
            f"{name}: {call * 1000:.0f} µs per direct call; beside a 1 s model call and the "
            f"harness, {fraction:.3%} of the time per example"
        )


if __name__ == "__main__":
    asyncio.run(main())
