"""A fixed battery of evaluations whose every detail (scores, comments, pairings) is printed as
JSON: ``test_determinism.py`` runs it under several ``PYTHONHASHSEED`` values and compares."""

from __future__ import annotations

import json
import random
from typing import Any

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import create_json_match_evaluator

KEYS = ["name", "age", "ключ", "a.b", "[*]", "", "tags", "é"]
VALUES: list[Any] = [1, 1.0, True, "x", "y", None, [1, 2], [2, 1], {"k": 1}, float("nan"), 2**70]


def records(rng: random.Random, count: int) -> list[dict[str, Any]]:
    return [
        {key: rng.choice(VALUES) for key in rng.sample(KEYS, rng.randint(0, 4))}
        for _ in range(count)
    ]


def battery() -> list[Any]:
    rng = random.Random(20261130)
    out: list[Any] = []
    evaluators = [
        create_json_match_evaluator(),
        create_json_match_evaluator(aggregator="average", list_aggregator="average"),
        create_json_match_evaluator(aggregator="all", list_match_mode="superset"),
        create_json_match_evaluator(list_match_mode="subset", alignment="greedy"),
        create_json_match_evaluator(aggregator="average", exclude_keys=["age"]),
        create_json_match_evaluator(nested=True, aggregator="average", list_aggregator="average"),
        create_json_match_evaluator(extra_keys="ignore", none_is_missing=True),
    ]
    for _ in range(40):
        outputs, references = records(rng, rng.randint(0, 6)), records(rng, rng.randint(0, 6))
        for evaluator in evaluators:
            out.append(evaluator(outputs=outputs, reference_outputs=references))
        out.append(evaluators[0](outputs=outputs[0] if outputs else {}, reference_outputs={}))
    # many identical-scoring candidates: tie-breaking decides the pairing
    ties = [{"a": 1, "b": i % 2} for i in range(8)]
    out.append(evaluators[1](outputs=ties, reference_outputs=list(reversed(ties))))
    partial = create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.5)
    strict = create_graph_trajectory_match_evaluator()
    names = ["a", "b", "c", "d"]
    for _ in range(40):
        steps = [rng.sample(names, rng.randint(0, 3)) for _ in range(rng.randint(0, 6))]
        reference = {
            "steps": [
                rng.sample(names, rng.randint(0, 2)),
                ReferenceStep(rng.sample(names, 2), rng.choice(["exact", "subset"]), True),
                Repeat([[rng.choice(names)], ["*"]], min=rng.randint(0, 1)),
                rng.sample(names, 1),
            ][: rng.randint(1, 4)]
        }
        out.append(partial(outputs={"steps": steps}, reference_outputs=reference))
        out.append(strict(outputs={"steps": steps}, reference_outputs=reference))
    rules = create_graph_trajectory_rules_evaluator(
        forbidden=["d", "c"], max_visits={"a": 1, "b": 0}, before=[("a", "b"), ("c", "a")]
    )
    out.append(rules(outputs=[{"steps": [["b", "a"], ["c", "d"], ["a"]]}, {"steps": []}]))
    return out


if __name__ == "__main__":
    print(json.dumps(battery(), sort_keys=False, ensure_ascii=False))
