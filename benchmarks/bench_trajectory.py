"""Benchmark: matchevals' trajectory match beside openevals' (0.2.2), in one process.

Run with ``python benchmarks/bench_trajectory.py`` (tracing is switched off here). Prints the
median time per call of each workload for both libraries and their ratio; samples of the two
are interleaved, and times are CPU time of this process, so other load skews them less (on a
shared machine ratios still move by ±30% between runs).

Workloads (every result True, so both sides do the whole comparison):

- an agent run of 17 messages with 10 tool calls (OpenAI dicts, arguments as JSON strings),
  against a reference whose calls are permuted inside each message, in every mode;
- the same with LangChain message objects, and with ``tool_args_match_mode="subset"`` (info);
- 200 tool calls in unordered mode, the reference's calls shuffled across its messages.

A second table times ``compat="openevals"`` (openevals' exact answers) beside openevals.

A third times ``in_order`` (no peer has it) on an agent run of 1,000 tool calls against the same
turns with their calls permuted, and against every other turn of it (both True), then the
second reference with two turns swapped (False, explained) and its graded recall (target: under
50 ms each), with ``superset`` on the same pair beside it for scale.

A fourth times turn patterns (``trajectory_match_mode="pattern"``, no peer has them):
strict matching on the same 1,000-call run against a turn-by-turn pattern and against a
``Repeat`` loop (target: under 50 ms each), and partial credit over 200 turns against a
200-step pattern that differs in every tenth turn and lacks one step (target: under 1 s).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from openevals.trajectory.match import create_trajectory_match_evaluator as openevals_match

from matchevals.trajectory import (
    Repeat,
    TrajectoryScore,
    TurnStep,
    create_trajectory_match_evaluator,
)

TOOLS = ("search", "get_weather", "fetch_page", "calculator", "lookup_user")


def _per_call(call: Callable[[], Any], budget: float) -> int:
    call()
    start = time.process_time()
    call()
    return max(1, int(budget / max(time.process_time() - start, 1e-7)))


def medians(*calls: Callable[[], Any], repeats: int = 9, budget: float = 0.05) -> list[float]:
    """Median time per call of each callable, samples interleaved."""
    numbers = [_per_call(call, budget) for call in calls]
    samples: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for call, number, sink in zip(calls, numbers, samples, strict=True):
            start = time.process_time()
            for _ in range(number):
                call()
            sink.append((time.process_time() - start) / number)
    return [statistics.median(sink) for sink in samples]


def arguments(rng: random.Random, index: int) -> dict[str, Any]:
    """Realistic arguments: a few keys, strings and numbers, sometimes a nested object."""
    args: dict[str, Any] = {"query": f"question number {index}", "limit": rng.randint(1, 20)}
    if rng.random() < 0.5:
        args["filters"] = {"lang": rng.choice(["en", "fr"]), "since": "2024-01-01"}
    if rng.random() < 0.3:
        args["verbose"] = rng.random() < 0.5
    return args


def openai_call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def agent_run(batches: list[int], rng: random.Random) -> list[dict[str, Any]]:
    """System and user messages, then per batch an assistant message with that many calls
    followed by one tool message per call, then two text-only assistant messages."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": "Plan my trip and check the weather."},
    ]
    index = 0
    for size in batches:
        calls = []
        for _ in range(size):
            calls.append(openai_call(rng.choice(TOOLS), arguments(rng, index), f"call_{index}"))
            index += 1
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages += [
            {"role": "tool", "content": f"result {c['id']}", "tool_call_id": c["id"]} for c in calls
        ]
    messages.append({"role": "assistant", "content": "Let me put this together."})
    messages.append({"role": "assistant", "content": "Here is your plan."})
    return messages


def permuted_within_messages(run: list[dict[str, Any]], rng: random.Random) -> list[Any]:
    reference: list[Any] = json.loads(json.dumps(run))
    for message in reference:
        if message.get("tool_calls"):
            rng.shuffle(message["tool_calls"])
    return reference


def shuffled_across_messages(run: list[dict[str, Any]], rng: random.Random) -> list[Any]:
    reference: list[Any] = json.loads(json.dumps(run))
    slots = [(m, i) for m in reference for i in range(len(m.get("tool_calls") or ()))]
    calls = [m["tool_calls"][i] for m, i in slots]
    rng.shuffle(calls)
    for (message, index), call in zip(slots, calls, strict=True):
        message["tool_calls"][index] = call
    return reference


def as_langchain(run: list[dict[str, Any]]) -> list[Any]:
    converted: list[Any] = []
    for message in run:
        role = message["role"]
        if role == "system":
            converted.append(SystemMessage(message["content"]))
        elif role == "user":
            converted.append(HumanMessage(message["content"]))
        elif role == "tool":
            converted.append(ToolMessage(message["content"], tool_call_id=message["tool_call_id"]))
        else:
            calls = [
                {
                    "name": c["function"]["name"],
                    "args": json.loads(c["function"]["arguments"]),
                    "id": c["id"],
                }
                for c in message.get("tool_calls") or ()
            ]
            converted.append(AIMessage(message["content"], tool_calls=calls))
    return converted


def fmt(seconds: float) -> str:
    return f"{seconds * 1e6:8.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:8.2f} ms"


def main() -> int:
    rng = random.Random(15)
    run17 = agent_run([3, 4, 3], rng)  # 2 + (1 + 3) + (1 + 4) + (1 + 3) + 2 messages
    assert len(run17) == 17 and sum(len(m.get("tool_calls") or ()) for m in run17) == 10
    reference17 = permuted_within_messages(run17, rng)
    sizes: list[int] = []
    while sum(sizes) < 200:
        sizes.append(min(rng.randint(1, 5), 200 - sum(sizes)))
    run200 = agent_run(sizes, rng)
    assert sum(len(m.get("tool_calls") or ()) for m in run200) == 200
    reference200 = shuffled_across_messages(run200, rng)

    workloads: list[tuple[str, dict[str, Any], Any, Any, float | None]] = []
    for mode in ("strict", "unordered", "subset", "superset"):
        workloads.append(
            (f"17 msgs / 10 calls, {mode}", {"trajectory_match_mode": mode}, run17, reference17, 20)
        )
    workloads.append(
        (
            "17 msgs / 10 calls, unordered, args subset",
            {"trajectory_match_mode": "unordered", "tool_args_match_mode": "subset"},
            run17,
            reference17,
            None,
        )
    )
    workloads.append(
        (
            "17 msgs / 10 calls, strict, LangChain msgs",
            {"trajectory_match_mode": "strict"},
            as_langchain(run17),
            as_langchain(reference17),
            None,
        )
    )
    workloads.append(
        (
            "200 calls, unordered",
            {"trajectory_match_mode": "unordered"},
            run200,
            reference200,
            10,
        )
    )
    print(f"{'workload':<44} {'openevals':>11} {'matchevals':>11} {'ratio':>8} {'target':>7}  met")
    print("-" * 92)
    missed = 0
    for name, options, outputs, references, target in workloads:
        ours = create_trajectory_match_evaluator(**options)
        theirs = openevals_match(**options)
        expected = theirs(outputs=outputs, reference_outputs=references)
        assert isinstance(expected, dict), name  # openevals types it as a result or a list
        got = ours(outputs=outputs, reference_outputs=references)
        assert got["score"] is expected["score"] is True, name
        openevals_time, matchevals_time = medians(
            lambda: theirs(outputs=outputs, reference_outputs=references),  # noqa: B023
            lambda: ours(outputs=outputs, reference_outputs=references),  # noqa: B023
        )
        ratio = openevals_time / matchevals_time
        met = "" if target is None else ("yes" if ratio >= target else "NO")
        missed += met == "NO"
        shown_target = "info" if target is None else f"≥{target}×"
        print(
            f"{name:<44} {fmt(openevals_time)} {fmt(matchevals_time)} {ratio:7.1f}× "
            f"{shown_target:>7}  {met}"
        )
    print_compat(workloads)
    missed += print_in_order(rng)
    missed += print_patterns(rng)
    return 1 if missed and "--check" in sys.argv else 0


def print_compat(workloads: list[tuple[str, dict[str, Any], Any, Any, float | None]]) -> None:
    """compat="openevals" (openevals' exact answers) beside openevals itself."""
    print()
    print(f"{'compat=openevals':<44} {'openevals':>11} {'compat':>11} {'ratio':>8}")
    print("-" * 78)
    for name, options, outputs, references, _ in workloads:
        ours = create_trajectory_match_evaluator(**options, compat="openevals")
        theirs = openevals_match(**options)
        pair = {"outputs": outputs, "reference_outputs": references}
        assert ours(**pair) == theirs(**pair), name  # the same result, dict for dict
        openevals_time, compat_time = medians(
            lambda: theirs(**pair),  # noqa: B023
            lambda: ours(**pair),  # noqa: B023
        )
        ratio = openevals_time / compat_time
        print(f"{name:<44} {fmt(openevals_time)} {fmt(compat_time)} {ratio:7.1f}×")


def print_in_order(rng: random.Random) -> int:
    """in_order on 1,000 calls beside superset on the same trajectories; 1 if a boolean that
    has a target missed it."""
    sizes: list[int] = []
    while sum(sizes) < 1000:
        sizes.append(min(rng.randint(1, 5), 1000 - sum(sizes)))
    run = agent_run(sizes, rng)
    whole = permuted_within_messages(run, rng)  # the same turns, calls permuted within each
    every_other: list[Any] = json.loads(json.dumps(whole))
    for message in [m for m in every_other if m.get("tool_calls")][1::2]:
        message["tool_calls"] = []  # left out: extra output calls between the reference's turns
    swapped: list[Any] = json.loads(json.dumps(every_other))
    kept = [message for message in swapped if message.get("tool_calls")]
    middle = len(kept) // 2
    kept[middle]["tool_calls"], kept[middle + 1]["tool_calls"] = (
        kept[middle + 1]["tool_calls"],
        kept[middle]["tool_calls"],
    )
    half = sum(len(m.get("tool_calls") or ()) for m in every_other)
    print()
    print(f"{'in_order on 1000 output calls (no peer)':<44} {'superset':>11} {'in_order':>11} {'target':>8}  met")  # fmt: skip # noqa: E501
    print("-" * 82)
    cases: list[tuple[str, Any, TrajectoryScore, float | None]] = [
        ("1000 reference calls, match (True)", whole, "match", 0.05),
        (f"{half} reference calls, match (True)", every_other, "match", 0.05),
        (f"{half}, two turns swapped, match (False)", swapped, "match", 0.05),
        (f"{half}, two turns swapped, recall", swapped, "recall", 0.05),
    ]
    missed = 0
    for name, references, score, target in cases:
        superset = create_trajectory_match_evaluator(trajectory_match_mode="superset", score=score)
        in_order = create_trajectory_match_evaluator(trajectory_match_mode="in_order", score=score)
        pair = {"outputs": run, "reference_outputs": references}
        assert superset(**pair)["score"] == 1, name
        got = in_order(**pair)["score"]
        assert (got is True) if "True" in name else (got is False or got < 1), name
        superset_time, in_order_time = medians(
            lambda: superset(**pair),  # noqa: B023
            lambda: in_order(**pair),  # noqa: B023
            repeats=5,
            budget=0.2,
        )
        met = "" if target is None else ("yes" if in_order_time < target else "NO")
        missed += met == "NO"
        shown = "info" if target is None else f"<{target * 1e3:.0f} ms"
        print(f"{name:<44} {fmt(superset_time)} {fmt(in_order_time)} {shown:>8}  {met}")
    return missed


def turn_by_turn(run: list[dict[str, Any]]) -> list[Any]:
    """One unordered TurnStep per assistant message of ``run``, with its calls and arguments."""
    pattern: list[Any] = []
    for message in run:
        if message["role"] != "assistant":
            continue
        calls = [
            {"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"])}
            for c in message.get("tool_calls") or ()
        ]
        pattern.append(TurnStep(calls, "unordered" if calls else "exact"))
    return pattern


def print_patterns(rng: random.Random) -> int:
    """Turn patterns (no peer): strict on 1,000 calls, partial credit on 200 turns; 1 per
    missed target."""
    sizes: list[int] = []
    while sum(sizes) < 1000:
        sizes.append(min(rng.randint(1, 5), 1000 - sum(sizes)))
    run = agent_run(sizes, rng)
    loop = [
        Repeat([TurnStep([{"name": tool} for tool in TOOLS for _ in range(5)], "subset")]),
        TurnStep([], "exact"),
        TurnStep([], "exact"),
    ]
    short = agent_run([1] * 198, rng)
    differing = turn_by_turn(short)
    for index in range(0, len(differing) - 2, 10):
        differing[index] = TurnStep([{"name": "other_tool"}])
    del differing[len(differing) // 2]
    strays = turn_by_turn(short)
    for index in range(0, len(strays) - 2, 2):
        strays[index] = TurnStep([{"name": "other_tool"}], optional=index % 4 == 0)
    strays.insert(50, Repeat([TurnStep([{"name": "search"}])], min=0, max=20))
    strict = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
    partial = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", partial_credit=True
    )
    cases: list[tuple[str, Any, Any, Any, float]] = [
        ("1000 calls, turn-by-turn pattern (True)", strict, run, turn_by_turn(run), 0.05),
        ("1000 calls, Repeat loop pattern (True)", strict, run, loop, 0.05),
        ("200 turns, partial credit (1 in 10 differ)", partial, short, differing, 1.0),
        ("200 turns, partial credit (1 in 2 differ)", partial, short, strays, 1.0),
    ]
    print()
    print(f"{'turn patterns (no peer)':<44} {'matchevals':>11} {'target':>8}  met")
    print("-" * 70)
    missed = 0
    for name, evaluator, outputs, pattern, target in cases:
        pair = {"outputs": outputs, "reference_outputs": pattern}
        score = evaluator(**pair)["score"]
        assert score is True or 0 < score < 1, name
        (elapsed,) = medians(lambda: evaluator(**pair), repeats=5, budget=0.2)  # noqa: B023
        met = "yes" if elapsed < target else "NO"
        missed += met == "NO"
        print(f"{name:<44} {fmt(elapsed)} {f'<{target * 1e3:.0f} ms':>8}  {met}")
    return missed


if __name__ == "__main__":
    raise SystemExit(main())
