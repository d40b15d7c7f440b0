"""JSON match on small records: how aggregators, list aggregators and list match modes score.

Run: python examples/json_match_options.py

1. aggregator None / all / average on one pair of person records;
2. the six list_aggregator × aggregator combinations on two lists of people;
3. the ordered and superset list match modes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from matchevals.json_match import create_async_json_match_evaluator


def person(name: str, age: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "age": age, **extra}


async def show(title: str, *, outputs: Any, references: Any, **options: Any) -> None:
    evaluator = create_async_json_match_evaluator(**options)
    results = await evaluator(outputs=outputs, reference_outputs=references)
    print(f"{title}:")
    for result in results:
        print(f"  {result['key']} = {result['score']}")
        if result["comment"]:
            print(f"    why: {result['comment']}")
    print()


async def aggregator_demo() -> None:
    print("== 1. aggregator: one result per key, or one for the whole object ==\n")
    alice1 = person("Alice", 20, birth="1981-08-24")
    alice2 = person("Alice", 30, gender="female")
    for aggregator in (None, "all", "average"):
        await show(
            f"aggregator={aggregator}", aggregator=aggregator, outputs=alice1, references=alice2
        )


async def list_aggregator_demo() -> None:
    print("== 2. list_aggregator: how the items of a list combine ==\n")
    outputs = [person("Alice", 20), person("Bob", 20)]
    references = [person("Alice", 20), person("Bob", 30)]
    for list_aggregator in ("all", "average"):
        for aggregator in (None, "all", "average"):
            await show(
                f"list_aggregator={list_aggregator}; aggregator={aggregator}",
                list_aggregator=list_aggregator,
                aggregator=aggregator,
                outputs=outputs,
                references=references,
            )


async def list_match_mode_demo() -> None:
    print("== 3. list_match_mode: how list items are paired ==\n")
    alice, bob1, bob2 = person("Alice", 20), person("Bob", 30), person("Bob", 40)
    cases = [
        ("ordered", "average", [bob1, alice], [alice, bob1], "[bob1, alice]/[alice, bob1]"),
        (
            "ordered",
            "average",
            [alice, bob1, bob2],
            [alice, bob1],
            "[alice, bob1, bob2]/[alice, bob1]",
        ),
        ("ordered", "all", [alice, bob1, bob2], [alice, bob1], "[alice, bob1, bob2]/[alice, bob1]"),
        ("superset", "average", [bob1, alice], [bob1], "[bob1, alice]/[bob1]"),
        ("superset", "all", [bob1, alice], [bob1], "[bob1, alice]/[bob1]"),
        ("superset", "average", [bob2, alice], [bob1], "[bob2, alice]/[bob1]"),
        ("superset", "all", [bob2, alice], [bob1], "[bob2, alice]/[bob1]"),
    ]
    for mode, list_aggregator, outputs, references, label in cases:
        await show(
            f"{mode}; list_aggregator={list_aggregator}; aggregator=average; {label}",
            list_match_mode=mode,
            list_aggregator=list_aggregator,
            aggregator="average",
            outputs=outputs,
            references=references,
        )


async def main() -> None:
    await aggregator_demo()
    await list_aggregator_demo()
    await list_match_mode_demo()


if __name__ == "__main__":
    asyncio.run(main())
