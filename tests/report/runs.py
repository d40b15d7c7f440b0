"""Runs the report tests share: files for ``matchevals json`` and ``graph``, the CLI's own
summaries of them, and the data embedded in a page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.cli.helpers import no_traceback, run, write_jsonl

DATA_TAG = '<script type="application/json" id="matchevals-data">'


def document_of(page: str) -> dict[str, Any]:
    """The data a page embeds (what its script draws)."""
    start = page.index(DATA_TAG) + len(DATA_TAG)
    document: dict[str, Any] = json.loads(page[start : page.index("</script>", start)])
    return document


def people() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """60 people (two pages of the examples table), with mistakes at regular places:
    every 3rd age is off by one, every 4th city is Lyon, every 5th has a tag missing."""
    references, outputs = [], []
    for i in range(60):
        reference = {
            "id": f"p-{i:02}",
            "name": f"Person {i}",
            "age": 20 + i,
            "address": {"city": "Paris", "zip": f"750{i % 20:02}"},
            "tags": ["a", "b"],
        }
        output = json.loads(json.dumps(reference))
        if i % 3 == 0:
            output["age"] += 1
        if i % 4 == 0:
            output["address"]["city"] = "Lyon"
        if i % 5 == 0:
            output["tags"] = ["a"]
        references.append(reference)
        outputs.append(output)
    outputs.reverse()  # paired by --id-key, not by position
    return outputs, references


PATTERN = {
    "inputs": None,
    "results": None,
    "steps": [
        {"steps": ["plan"], "match_mode": "exact"},
        {"repeat": [["tools"], ["agent"]], "min": 1, "max": None},
        {"steps": ["write"], "match_mode": "exact"},
    ],
}
RUNS = [
    {"id": "t-0", "steps": [["plan"], ["tools"], ["agent"], ["write"]]},  # matches
    {"id": "t-1", "steps": [["plan"], ["research"], ["write"], ["write"]]},  # leaves at 1
    {"id": "t-2", "steps": [["plan"], ["tools"], ["agent"], ["tools"], ["write"]]},  # at 4
]


@dataclass
class Run:
    """One command's files, and what the CLI itself says of them."""

    command: str
    files: tuple[Path, Path]
    flags: tuple[str, ...]
    folder: Path

    def __post_init__(self) -> None:
        self._ran: dict[tuple[str, ...], Any] = {}

    def cli(self, *more: str) -> Any:
        """The command with these flags, run once (the files do not change)."""
        if more not in self._ran:
            completed = run(self.command, *self.files, *self.flags, *more)
            no_traceback(completed)
            self._ran[more] = completed
        return self._ran[more]

    def summary(self) -> dict[str, Any]:
        summary: dict[str, Any] = json.loads(self.cli("--format", "json").stdout)["summary"]
        return summary

    def lines(self) -> list[dict[str, Any]]:
        """The ``--format jsonl`` example lines."""
        found = [json.loads(line) for line in self.cli("--format", "jsonl").stdout.splitlines()]
        return [line for line in found if line["type"] == "example"]

    def page(self, name: str = "report.html", *more: str) -> Path:
        target = self.folder / name
        completed = self.cli("--format", "html", "-o", str(target), *more)
        assert completed.returncode in (0, 1), completed.stderr
        return target


def json_run(folder: Path) -> Run:
    outputs, references = people()
    files = (
        write_jsonl(folder / "outputs.jsonl", outputs),
        write_jsonl(folder / "references.jsonl", references),
    )
    return Run("json", files, ("--id-key", "id", "--nested", "--fail-under", "0.9"), folder)


def graph_run(folder: Path) -> Run:
    reference = folder / "reference.json"
    reference.write_text(json.dumps(PATTERN))
    files = (write_jsonl(folder / "runs.jsonl", RUNS), reference)
    return Run("graph", files, (), folder)


def hundred_thousand() -> Iterator[dict[str, Any]]:
    """100,000 examples of four kinds (right; age wrong; city wrong; both), in turn."""
    from matchevals.json_match import create_json_match_evaluator

    evaluator = create_json_match_evaluator(aggregator="average")
    kinds = []
    for wrong in range(4):
        reference = {"name": "Ann", "age": 30, "city": "Paris", "tags": ["a", "b"]}
        output = {**reference, "age": 30 + (wrong & 1), "city": "Lyon" if wrong & 2 else "Paris"}
        kinds.append((output, reference, evaluator(outputs=output, reference_outputs=reference)))
    for i in range(100_000):
        output, reference, results = kinds[i % 4]
        yield {"results": results, "outputs": output, "reference_outputs": reference,
               "id": f"ex-{i}"}  # fmt: skip
