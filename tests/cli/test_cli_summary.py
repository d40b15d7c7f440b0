"""Summaries carry their verdict: ``passed`` with the gates that decided it (``--fail-under``,
graph ``--threshold``), the ``--id-key`` column, and supersteps left unchecked after a run left
its reference pattern shown as unchecked, not averaged as 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import main
from tests.cli.helpers import run, write_jsonl

PATTERN = {
    "steps": [
        {"steps": ["plan"], "match_mode": "exact"},
        {"repeat": [["tools"], ["agent"]], "min": 1, "max": None},
        ["write"],
    ]
}
RUNS = [
    {"steps": [["plan"], ["tools"], ["agent"], ["write"]]},  # matches
    {"steps": [["plan"], ["research"], ["write"], ["write"]]},  # leaves the pattern at 1
    {"steps": [["plan"], ["tools"], ["agent"], ["tools"], ["write"]]},  # leaves it at 4
]


def call(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    return status, capsys.readouterr().out


@pytest.fixture
def graph_files(tmp_path: Path) -> tuple[Path, Path]:
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps(PATTERN))
    return write_jsonl(tmp_path / "runs.jsonl", RUNS), reference


def test_unchecked_supersteps_are_counted_apart_not_averaged_as_zero(
    graph_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = call(capsys, "graph", *graph_files, "--format", "json")
    assert status == 0
    per_key = json.loads(out)["summary"]["per_key"]
    # verdicts: [m, m, m, m], [m, x, u, u], [m, m, m, m, x]  (x mismatch, u unchecked)
    assert per_key["superstep 1"] == {"mean": pytest.approx(2 / 3), "count": 3, "unchecked": 0}
    assert per_key["superstep 2"] == {"mean": 1.0, "count": 2, "unchecked": 1}
    assert per_key["superstep 3"] == {"mean": 1.0, "count": 2, "unchecked": 1}
    assert per_key["superstep 4"] == {"mean": 0.0, "count": 1, "unchecked": 0}
    status, markdown = call(capsys, "graph", *graph_files, "--format", "markdown")
    assert "| key | mean | count | unchecked |" in markdown
    assert "| superstep 2 | 1 | 2 | 1 |" in markdown
    status, table = call(capsys, "graph", *graph_files)
    row = next(line for line in table.splitlines() if line.startswith("│ 2 "))
    assert row.split("│")[1:5] == [" 2         ", "      1 ", "       2 ", "         1 "]


def test_threshold_is_a_gate_in_the_summary_and_the_exit_status(
    graph_files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("graph", *graph_files, "--partial-credit", "--threshold", "0.8")
    status, out = call(capsys, *args, "--format", "json")
    summary = json.loads(out)["summary"]
    scores = sorted(
        r["score"] for r in [json.loads(line) for line in call(capsys, *args, "--format",
                             "jsonl")[1].splitlines()[:-1]] for r in r["results"]
    )  # fmt: skip
    below = sum(score < 0.8 for score in scores)
    assert below == 1
    assert status == 1
    assert summary["passed"] is False
    assert summary["threshold"] == 0.8 and summary["below_threshold"] == 1
    assert summary["failed_because"] == ["1 example scored below --threshold 0.8"]
    status, markdown = call(capsys, *args, "--format", "markdown")
    assert status == 1
    assert markdown.splitlines()[0] == "### matchevals graph — FAILED (threshold 0.8)"
    assert "> **Failed because:** 1 example scored below --threshold 0.8" in markdown
    assert "**1** below threshold 0.8" in markdown
    status, table = call(capsys, *args)
    words = " ".join(table.split())
    assert status == 1
    assert words.startswith(
        "matchevals graph: 3 examples scored, 0 invalid, mean score 0.7778, 1 below threshold "
        "0.8 — FAILED (threshold 0.8) failed because 1 example scored below --threshold 0.8 "
    )
    status, _ = call(capsys, "graph", *graph_files, "--partial-credit", "--threshold", "0.5")
    assert status == 0


@pytest.mark.parametrize(("bar", "passed"), [("0.5", True), ("0.9", False)])
def test_json_summary_says_passed_and_why_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bar: str, passed: bool
) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}, {"a": 2}])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 1}])
    status, text = call(capsys, "json", out, ref, "--fail-under", bar, "--format", "json")
    summary: dict[str, Any] = json.loads(text)["summary"]
    assert status == (0 if passed else 1)
    assert summary["passed"] is passed and summary["fail_under"] == float(bar)
    reasons = [] if passed else ["the mean score 0.5 is below --fail-under 0.9"]
    assert summary["failed_because"] == reasons
    assert "threshold" not in summary  # a graph gate


def test_invalid_input_fails_the_verdict_unless_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}], raw={1: "{"})
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 1}])
    status, text = call(capsys, "json", out, ref, "--format", "json")
    assert status == 2
    assert json.loads(text)["summary"]["failed_because"] == ["1 invalid example"]
    status, text = call(capsys, "json", out, ref, "--format", "json", "--skip-invalid")
    assert status == 0 and json.loads(text)["summary"]["passed"] is True
    status, markdown = call(capsys, "json", out, ref, "--format", "markdown")
    assert markdown.splitlines()[0] == "### matchevals json — FAILED"


def test_the_id_key_column_in_the_table_and_the_markdown(tmp_path: Path) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [{"id": "x-7", "a": 2}, {"id": "y-9", "a": 1}])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"id": "y-9", "a": 1}, {"id": "x-7", "a": 1}])
    table = run("json", out, ref, "--id-key", "id").stdout.splitlines()
    header = next(line for line in table if "why" in line)
    assert [cell.strip() for cell in header.strip("┃").split("┃")] == [
        "example", "id", "score", "why",
    ]  # fmt: skip
    row = next(line for line in table if "x-7" in line)
    assert [cell.strip() for cell in row.strip("│").split("│")] == [
        "line 1", "x-7", "0", "a: expected 1, got 2",
    ]  # fmt: skip
    markdown = run("json", out, ref, "--id-key", "id", "--format", "markdown").stdout
    assert "| example | id | score | why |" in markdown
    assert f"| {out}:1 | x-7 | 0 | a: expected 1, got 2 |" in markdown


def test_a_mean_is_written_alike_by_every_report(tmp_path: Path) -> None:
    """25 right of 32: a mean of 0.78125, a tie at four digits, rounded up everywhere (the
    table, Markdown, the HTML page's card and key rows), as the page's own numbers are."""
    from tests.report.runs import document_of

    out = write_jsonl(tmp_path / "out.jsonl", [{"a": int(i < 25)} for i in range(32)])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}] * 32)
    table = run("json", out, ref).stdout
    assert "mean score 0.7813 —" in " ".join(table.split())
    assert "│ json_match:a │ 0.7813 │    32 │" in table
    markdown = run("json", out, ref, "--format", "markdown").stdout
    assert "mean score **0.7813**" in markdown and "| json_match:a | 0.7813 | 32 |" in markdown
    page = tmp_path / "page.html"
    assert run("json", out, ref, "--format", "html", "-o", page).returncode == 0
    document = document_of(page.read_text())
    assert document["summary"]["mean_score_text"] == "0.7813"
    assert document["keys"][0]["mean_text"] == "0.7813"


def test_counts_are_said_in_words(tmp_path: Path) -> None:
    """One invalid example is '1 example', nothing scored has no mean to show."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}], raw={1: "{"})
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 2}])
    table = " ".join(run("json", out, ref).stdout.split())
    assert "1 example scored, 1 invalid, mean score 1 — FAILED" in table
    assert "invalid input (1 example):" in table
    bad = write_jsonl(tmp_path / "bad.jsonl", [], raw={0: "{"})
    lonely = write_jsonl(tmp_path / "one.jsonl", [{"a": 1}])
    nothing = " ".join(run("json", bad, lonely).stdout.split())
    assert "no example scored, 1 invalid — FAILED" in nothing
    assert "mean score" not in nothing
    markdown = run("json", bad, lonely, "--format", "markdown").stdout
    assert "no example scored, **1** invalid" in markdown
