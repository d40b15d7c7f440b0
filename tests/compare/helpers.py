"""Runs for the comparison tests: examples as ``{"id", "results", ...}`` dicts, scored by the
real json_match evaluator, and saved runs written by the command line's own line writer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from matchevals._scoring import Scored, example_score
from matchevals.json_match import create_json_match_evaluator
from matchevals.report._lines import jsonl_line

EVALUATOR = create_json_match_evaluator()
REFERENCE = {"name": "Ann", "age": 30, "city": "Paris"}


def person(ident: Any, *wrong: str) -> dict[str, Any]:
    """An example scored by json_match: its outputs differ from :data:`REFERENCE` at ``wrong``."""
    outputs = {key: (f"not {value}" if key in wrong else value) for key, value in REFERENCE.items()}
    results = EVALUATOR(outputs=outputs, reference_outputs=REFERENCE)
    return {"id": ident, "results": results, "outputs": outputs, "reference_outputs": REFERENCE}


def scored(ident: Any, score: float, key: str = "match") -> dict[str, Any]:
    """An example with one result of ``score`` (a mismatch at ``key`` when below 1)."""
    metadata = {"mismatches": [{"path": key, "expected": 1, "actual": 0}]} if score < 1 else None
    return {"id": ident, "results": [{"key": key, "score": score, "metadata": metadata}]}


def save_run(
    path: Path,
    examples: Sequence[dict[str, Any]],
    *,
    kind: str = "json",
    id_key: str | None = "id",
    summary: bool = True,
    append: bool = False,
) -> Path:
    """A run as ``--format jsonl`` writes it: one line per example, then the summary line."""
    lines = []
    for index, example in enumerate(examples):
        results = example["results"]
        item = Scored(index, example["id"], f"outputs.jsonl:{index + 1}",
                      example_score(results), results)  # fmt: skip
        values = None
        if "outputs" in example:
            values = (json.dumps(example["outputs"]), json.dumps(example["reference_outputs"]))
        lines.append(jsonl_line(item, values))
    if summary:
        lines.append(json.dumps({"type": "summary", "kind": kind, "id_key": id_key,
                                 "examples_scored": len(examples)}))  # fmt: skip
    with path.open("a" if append else "w", encoding="utf-8") as file:
        file.write("".join(line + "\n" for line in lines))
    return path


def ids(changes: Iterable[Any]) -> list[Any]:
    return [change.id for change in changes]
