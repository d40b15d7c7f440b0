"""``--judge MODULE:ATTRIBUTE``: rubric keys scored from the command line by any LangChain chat
model, here a scripted one from a test module (offline), through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import as_json, no_traceback, run, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = [{"name": "Ann", "summary": "likes cats"}, {"name": "Bob", "summary": "same text"}]
REFERENCES = [
    {"name": "Ann", "summary": "is fond of cats"},
    {"name": "Bob", "summary": "same text"},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_jsonl(tmp_path / "out.jsonl", OUTPUTS),
        write_jsonl(tmp_path / "ref.jsonl", REFERENCES),
    )


def judged(files: tuple[Path, Path], judge: str, *extra: str) -> dict[str, object]:
    completed = run(
        "json", *files, "--rubric", "summary=says the same thing", "--judge", judge,
        "--format", "jsonl", *extra, cwd=ROOT,  # the test module is found from the cwd
    )  # fmt: skip
    no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    return {
        "scores": [{r["key"]: r["score"] for r in line["results"]} for line in lines[:-1]],
        "comments": [r["comment"] for r in lines[0]["results"] if r["key"].endswith("summary")],
    }


@pytest.mark.parametrize(
    ("judge", "summary_score"),
    [
        ("tests.cli.judges:approving", 1),  # an object
        ("tests.cli.judges:rejecting", 0),
        ("tests.cli.judges:make_rejecting", 0),  # a zero-argument factory
        ("tests.cli.judges:Approving", 1),  # a class
    ],
)
def test_the_judge_scores_the_rubric_keys(
    files: tuple[Path, Path], judge: str, summary_score: int
) -> None:
    got = judged(files, judge)
    assert got["scores"] == [
        {"json_match:name": 1, "json_match:summary": summary_score},
        {"json_match:name": 1, "json_match:summary": 1},  # equal values: no judge call
    ]
    reason = (
        "summary looks right"
        if summary_score
        else "summary: judged not to match: summary says something else"
    )
    assert got["comments"] == [reason]  # the judge's reasoning (use_reasoning is on)


def test_the_judge_reaches_worker_processes(files: tuple[Path, Path]) -> None:
    got = judged(files, "tests.cli.judges:rejecting", "--workers", "2")
    assert got["scores"] == [
        {"json_match:name": 1, "json_match:summary": 0},
        {"json_match:name": 1, "json_match:summary": 1},
    ]


def test_a_judge_in_the_summary(files: tuple[Path, Path]) -> None:
    completed = run(
        "json", *files, "--rubric", "summary=same", "--judge", "tests.cli.judges:rejecting",
        "--format", "json", "--fail-under", "0.9", cwd=ROOT,
    )  # fmt: skip
    assert completed.returncode == 1
    summary = as_json(completed)
    assert summary["per_key"]["json_match:summary"] == {"mean": 0.5, "count": 2}  # type: ignore[index]
    assert summary["passed"] is False
