"""matchevals.json_match against openevals' JSON match, side by side in one process.

Run: python benchmarks/bench_json_match.py [--quick]

Tracing is off. Each workload is timed as the median of several repeats (more for fast ones) and
its peak memory measured with tracemalloc in a separate call. Prints a table of medians, the
speed-up ratio, the issue's target, and peak memory of both libraries. A last table times
``compat="openevals"`` (openevals' exact results) beside openevals.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)

from openevals.json import create_async_json_match_evaluator as openevals_async
from openevals.json import create_json_match_evaluator as openevals_sync

from matchevals import AnyOf
from matchevals.json_match import (
    comparators,
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


def paired_medians(
    baseline: Callable[[], Any], option: Callable[[], Any], budget: float
) -> tuple[float, float, float]:
    """Medians of both calls and the median of their per-round ratio, timed in alternation so
    that a noisy, shared machine slows both sides alike."""
    baseline()
    option()
    start = time.perf_counter()
    option()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(0.01 / once))
    rounds = max(5, min(25, int(budget / (2 * once * number))))
    base_samples, option_samples = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            baseline()
        base_samples.append((time.perf_counter() - start) / number)
        start = time.perf_counter()
        for _ in range(number):
            option()
        option_samples.append((time.perf_counter() - start) / number)
    ratios = [o / b for o, b in zip(option_samples, base_samples, strict=True)]
    return (
        statistics.median(base_samples),
        statistics.median(option_samples),
        statistics.median(ratios),
    )


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


def document(levels: tuple[int, int, int], differing_every: int) -> tuple[Any, Any]:
    """A 3-level document (sections > groups > fields) and a copy with some leaves changed."""
    sections, groups, fields = levels
    reference = {
        f"section_{i}": {
            f"group_{j}": {f"field_{k}": f"value {i}.{j}.{k}" for k in range(fields)}
            for j in range(groups)
        }
        for i in range(sections)
    }
    output = {
        section: {
            group: {
                name: (f"other {value}" if (hash(name + group) % differing_every == 0) else value)
                for name, value in values.items()
            }
            for group, values in groups_.items()
        }
        for section, groups_ in reference.items()
    }
    return output, reference


def flattened(value: Any, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, child in value.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(child, dict):
            flat.update(flattened(child, path))
        else:
            flat[path] = child
    return flat


NOTES: list[str] = []


def bare_average(*, outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> list[Any]:
    """A lower bound, not a product: the result matchevals gives for ``flat(10, 2)`` with
    ``aggregator="average"``, computed with no tracing check, no type checks, no strict JSON
    typing and no length limits (valid for these inputs only)."""
    get = reference_outputs.get
    differing = sorted(key for key, value in outputs.items() if value != get(key))
    quote = json.encoder.encode_basestring
    return [
        {
            "key": "json_match:average",
            "score": (len(outputs) - len(differing)) / len(outputs),
            "comment": "; ".join(
                f"{key}: expected {quote(reference_outputs[key])}, got {quote(outputs[key])}"
                for key in differing
            ),
            "metadata": {
                "mismatches": [
                    {
                        "path": key,
                        "expected": reference_outputs[key],
                        "actual": outputs[key],
                        "score": 0,
                    }
                    for key in differing
                ],
                "alignment": None,
            },
        }
    ]


def print_lower_bound() -> None:
    outputs, references = flat(10, 2)
    ours = create_json_match_evaluator(aggregator="average")
    assert bare_average(outputs=outputs, reference_outputs=references) == ours(
        outputs=outputs, reference_outputs=references
    )
    theirs = openevals_sync(aggregator="average")
    their_time = median_seconds(lambda: theirs(outputs=outputs, reference_outputs=references), 1)
    bare_time = median_seconds(
        lambda: bare_average(outputs=outputs, reference_outputs=references), 1
    )
    print(
        f"lower bound, dict 10 keys, aggregator average: a bare function with no checks takes "
        f"{human(bare_time)}, {their_time / bare_time:.1f}× openevals ({human(their_time)})"
    )


class CountingText:
    """``comparators.text()`` that counts its calls (to show which pairs are compared)."""

    def __init__(self) -> None:
        self.inner = comparators.text()
        self.calls = 0

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        self.calls += 1
        return self.inner(output_value, reference_value)


def option_workloads(quick: bool) -> list[tuple[str, Callable[[], Any], Callable[[], Any], str]]:
    """(name, baseline call, call with the option, target) for issue 5's options."""
    output, reference = document((10, 10, 10), 10)
    flat_output, flat_reference = flattened(output), flattened(reference)
    cases: list[tuple[str, Callable[[], Any], Callable[[], Any], str]] = []
    for aggregator in (None, "average"):
        nested = create_json_match_evaluator(nested=True, aggregator=aggregator)
        flat_evaluator = create_json_match_evaluator(aggregator=aggregator)
        cases.append(
            (
                f"1000 leaves nested vs flattened, agg {aggregator}",
                partial(flat_evaluator, outputs=flat_output, reference_outputs=flat_reference),
                partial(nested, outputs=output, reference_outputs=reference),
                "≤3×",
            )
        )
    rng = random.Random(11)
    list_out, list_ref = records(rng, 300 if quick else 1000)
    plain = create_json_match_evaluator(aggregator="average", list_aggregator="average")
    counting = CountingText()
    with_comparators = create_json_match_evaluator(
        aggregator="average",
        list_aggregator="average",
        comparators={"city": counting, "score": comparators.numeric(abs_tol=0.01)},
    )
    cases.append(
        (
            f"{len(list_out)} records, comparators vs exact",
            lambda: plain(outputs=list_out, reference_outputs=list_ref),
            lambda: with_comparators(outputs=list_out, reference_outputs=list_ref),
            "info",
        )
    )
    counting.calls = 0
    with_comparators(outputs=list_out, reference_outputs=list_ref)
    identical = sum(1 for item in list_out if item in list_ref)
    left = len(list_out) - identical
    NOTES.append(
        f"text() comparator on 'city': {counting.calls} calls per evaluation "
        f"({len(list_out)}² = {len(list_out) ** 2} pairs; {identical} identical items paired by "
        f"hashing, {left}² = {left**2} pairs left, compared per distinct pair of values)"
    )
    invoices_out: dict[str, Any] = {
        "lines": [{"sku": f"S{i}", "qty": i % 5, "price": i * 1.5} for i in range(200)],
        "customer": {"name": "Ada", "address": {"city": "Paris"}},
    }
    invoices_ref = {
        "lines": list(reversed(invoices_out["lines"])),
        "customer": {"name": "Ada", "address": {"city": "Lyon"}},
    }
    nested_lines = create_json_match_evaluator(nested=True, aggregator="average")
    whole = create_json_match_evaluator(aggregator="average")
    cases.append(
        (
            "200 line items: nested vs whole values",
            lambda: whole(outputs=invoices_out, reference_outputs=invoices_ref),
            lambda: nested_lines(outputs=invoices_out, reference_outputs=invoices_ref),
            "info",
        )
    )
    return cases


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
    print()
    header = (
        f"{'matchevals options (issue 5)':44} {'baseline':>10} {'option':>11} {'ratio':>8}"
        f" {'target':>8} {'met':>4}"
    )
    print(header)
    print("-" * len(header))
    for name, baseline, with_option, target in option_workloads(args.quick):
        base_time, option_time, ratio = paired_medians(baseline, with_option, budget)
        verdict = "yes" if ratio <= 3 else "NO"
        print(
            f"{name:44} {human(base_time):>10} {human(option_time):>11} {ratio:>7.2f}×"
            f" {target:>8} {verdict if target != 'info' else '':>4}"
        )
    for note in NOTES:
        print(note)
    print_lower_bound()
    print_any_of(args.quick, budget)
    print_compat(args.quick, budget)


def print_any_of(quick: bool, budget: float) -> None:
    """``AnyOf`` of k alternatives against k plain evaluations of the same references (target:
    no more than those k evaluations, give or take the noise, here 10%)."""
    print()
    header = (
        f"{'AnyOf, k alternatives':44} {'k plain':>10} {'AnyOf':>11} {'ratio':>8}"
        f" {'target':>8} {'met':>4}"
    )
    print(header)
    print("-" * len(header))
    rng = random.Random(13)
    out10, ref10 = flat(10, 2)
    list_out, list_ref = records(rng, 100 if quick else 300)
    inputs = {
        "dict 10 keys, average": (out10, ref10),
        f"{len(list_out)} records, average": (list_out, list_ref),
    }
    evaluator = create_json_match_evaluator(aggregator="average", list_aggregator="average")
    for name, (outputs, reference) in inputs.items():
        for k in (2, 4):
            alternatives = [reference] * k  # the same work per alternative on both sides

            def plain(alternatives: list[Any] = alternatives, outputs: Any = outputs) -> None:
                for alternative in alternatives:
                    evaluator(outputs=outputs, reference_outputs=alternative)

            any_of = partial(evaluator, outputs=outputs, reference_outputs=AnyOf(alternatives))
            base_time, any_of_time, ratio = paired_medians(plain, any_of, budget)
            print(
                f"{f'{name}, k={k}':44} {human(base_time):>10} {human(any_of_time):>11}"
                f" {ratio:>7.2f}× {'≤1×':>8} {'yes' if ratio <= 1.1 else 'NO':>4}"
            )


def print_compat(quick: bool, budget: float) -> None:
    """compat="openevals" (openevals' exact results) beside openevals itself."""
    print()
    header = f"{'compat=openevals':44} {'openevals':>10} {'compat':>11} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for workload in workloads(quick):
        theirs = caller(openevals_async if workload.is_async else openevals_sync, workload)
        factory = (
            create_async_json_match_evaluator if workload.is_async else create_json_match_evaluator
        )
        ours = caller(partial(factory, compat="openevals"), workload)
        assert repr(ours()) == repr(theirs()), workload.name  # the same results, dict for dict
        their_time = median_seconds(theirs, budget)
        our_time = median_seconds(ours, budget)
        print(
            f"{workload.name:44} {human(their_time):>10} {human(our_time):>11}"
            f" {their_time / our_time:>7.1f}×"
        )


if __name__ == "__main__":
    main()
