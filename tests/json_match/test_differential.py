"""alignment="greedy" reproduces the installed openevals, on thousands of seeded random inputs.

Compared wherever openevals' own sync and async evaluators agree (they disagree on some inputs:
see the README) and every item has something to score (openevals reports such items under a
private sentinel key). Values avoid mixing booleans with numbers, where openevals uses Python
equality (True == 1) and matchevals JSON equality.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from openevals.json import create_async_json_match_evaluator as openevals_async
from openevals.json import create_json_match_evaluator as openevals_sync

from matchevals.json_match import create_json_match_evaluator

KEYS = ["a", "b", "c", "d"]
VALUES: list[Any] = [0, 1, 2, "x", "y", None, [1, 2], {"k": 1}]
CASES = 3000


def random_item(rng: random.Random, excluded: list[str]) -> dict[str, Any]:
    keys = rng.sample(KEYS, rng.randint(1, len(KEYS)))
    if all(key in excluded for key in keys):
        keys.append(next(key for key in KEYS if key not in excluded))
    return {key: rng.choice(VALUES) for key in keys}


def random_case(rng: random.Random) -> tuple[Any, Any, dict[str, Any]]:
    excluded = rng.sample(KEYS, rng.choice([0, 0, 0, 1]))
    options = {
        "aggregator": rng.choice([None, "average", "all"]),
        "list_aggregator": rng.choice(["average", "all"]),
        "list_match_mode": rng.choice(["same_elements", "subset", "superset", "ordered"]),
        "exclude_keys": excluded,
    }
    if rng.random() < 0.15:
        return random_item(rng, excluded), random_item(rng, excluded), options
    outputs = [random_item(rng, excluded) for _ in range(rng.randint(0, 5))]
    references = [random_item(rng, excluded) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.4:  # shuffled near-copies make pairing decisions interesting
        references = [dict(item) for item in outputs]
        rng.shuffle(references)
        if references and rng.random() < 0.7:
            references[0] = random_item(rng, excluded)
    return outputs, references, options


def nothing_to_score(outputs: Any, references: Any, mode: str) -> bool:
    """No item is counted: matchevals gives 1 here on purpose, openevals 0 or 1."""
    if isinstance(outputs, dict):
        return False
    counted = {"superset": len(references), "subset": len(outputs)}
    return counted.get(mode, max(len(outputs), len(references))) == 0


def as_scores(results: list[Any]) -> dict[str, float]:
    return {result["key"]: float(result["score"]) for result in results}


def test_greedy_alignment_reproduces_openevals() -> None:
    rng = random.Random(20261130)
    compared = 0

    async def run_all() -> None:
        nonlocal compared
        for _ in range(CASES):
            outputs, references, options = random_case(rng)
            if nothing_to_score(outputs, references, options["list_match_mode"]):
                continue
            expected = as_scores(
                openevals_sync(**options)(outputs=outputs, reference_outputs=references)
            )
            expected_async = as_scores(
                await openevals_async(**options)(outputs=outputs, reference_outputs=references)
            )
            if expected != expected_async:
                continue
            got = as_scores(
                create_json_match_evaluator(alignment="greedy", **options)(
                    outputs=outputs, reference_outputs=references
                )
            )
            assert got == pytest.approx(expected), (outputs, references, options)
            compared += 1

    asyncio.run(run_all())
    assert compared > CASES * 0.8
