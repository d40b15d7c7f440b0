"""CLI faults, through the real ``matchevals`` command: truncated files, invalid UTF-8, a 50 MB
JSONL line, mismatched example counts, a full disk, an unwritable ``--output``. Each gives a clear
message (no traceback), the documented exit status (0 ok, 1 below --fail-under, 2 invalid input
or usage error) and accounts for every valid example in the report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, TextIO

import pytest

from tests.robustness._support import python_env


def command() -> str:
    beside = Path(sys.executable).parent / "matchevals"
    found = str(beside) if beside.exists() else shutil.which("matchevals")
    if not found:
        pytest.skip("the matchevals command is not installed")
    return found


def cli(
    *args: str | Path, cwd: Path, stdout: TextIO | int = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [command(), *(os.path.relpath(a, cwd) if isinstance(a, Path) else a for a in args)],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env=python_env(COLUMNS="200"),
            timeout=180,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError("matchevals did not finish within 180 s (a hang)") from error


def report_lines(completed: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]


def clean(completed: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in completed.stderr, completed.stderr[-2000:]
    assert "Traceback" not in (completed.stdout or "")


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def accounted(lines: list[dict[str, Any]]) -> tuple[list[str], list[str], dict[str, Any]]:
    examples = [line["where"] for line in lines if line["type"] == "example"]
    invalid = [line["where"] for line in lines if line["type"] == "invalid"]
    (summary,) = [line for line in lines if line["type"] == "summary"]
    assert summary["examples_scored"] == len(examples)
    assert summary["invalid"] == len(invalid)
    return examples, invalid, summary


@pytest.fixture
def references(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "references.jsonl", [b'{"a": %d}' % i for i in range(4)])


def test_a_truncated_jsonl_file(tmp_path: Path, references: Path) -> None:
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_bytes(b'{"a": 0}\n{"a": 1}\n{"a": 2}\n{"a": ')  # cut mid-line, no newline
    completed = cli("json", outputs, references, "--format", "jsonl", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    examples, invalid, summary = accounted(report_lines(completed))
    assert examples == ["outputs.jsonl:1", "outputs.jsonl:2", "outputs.jsonl:3"]
    assert invalid == ["outputs.jsonl:4"]
    assert summary["mean_score"] == 1.0
    assert "outputs.jsonl:4: not valid JSON" in completed.stderr


def test_a_truncated_json_file(tmp_path: Path, references: Path) -> None:
    outputs = tmp_path / "outputs.json"
    outputs.write_bytes(b'[{"a": 0}, {"a": 1}, {"a"')
    completed = cli("json", outputs, references, "--format", "json", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    assert "outputs.json: not valid JSON" in completed.stderr


def test_invalid_utf8_on_one_line(tmp_path: Path, references: Path) -> None:
    outputs = write_lines(
        tmp_path / "outputs.jsonl",
        [b'{"a": 0}', b'{"a": "\xff\xfe"}', b'{"a": 2}', b'{"a": 3}'],
    )
    completed = cli("json", outputs, references, "--format", "jsonl", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    assert "outputs.jsonl:2: not valid UTF-8" in completed.stderr
    examples, invalid, summary = accounted(report_lines(completed))
    assert examples == ["outputs.jsonl:1", "outputs.jsonl:3", "outputs.jsonl:4"]
    assert invalid == ["outputs.jsonl:2"]
    assert summary["mean_score"] == 1.0  # line 3 still pairs with reference line 3
    skipped = cli("json", outputs, references, "--skip-invalid", "--format", "jsonl", cwd=tmp_path)
    clean(skipped)
    assert skipped.returncode == 0
    assert accounted(report_lines(skipped))[1] == ["outputs.jsonl:2"]


def test_a_50_mb_jsonl_line(tmp_path: Path) -> None:
    big = json.dumps({"a": "x" * (50 * 1024 * 1024)}).encode()
    outputs = write_lines(tmp_path / "outputs.jsonl", [b'{"a": 1}', big, b'{"a": 3}'])
    references = write_lines(
        tmp_path / "references.jsonl", [b'{"a": 1}', b'{"a": "y"}', b'{"a": 3}']
    )
    completed = cli("json", outputs, references, "--format", "json", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 0
    summary = json.loads(completed.stdout)["summary"]
    assert summary["examples_scored"] == 3 and summary["invalid"] == 0
    assert summary["mean_score"] == pytest.approx(2 / 3)
    (worst,) = [w for w in summary["worst"] if w["score"] < 1]
    assert worst["where"] == "outputs.jsonl:2"
    assert len(worst["results"][0]["comment"]) < 200


@pytest.mark.parametrize("outputs_count", [2, 6])
def test_mismatched_example_counts(tmp_path: Path, references: Path, outputs_count: int) -> None:
    outputs = write_lines(
        tmp_path / "outputs.jsonl", [b'{"a": %d}' % i for i in range(outputs_count)]
    )
    completed = cli("json", outputs, references, "--format", "jsonl", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    examples, invalid, _ = accounted(report_lines(completed))
    paired = min(outputs_count, 4)
    assert examples == [f"outputs.jsonl:{i}" for i in range(1, paired + 1)]
    if outputs_count < 4:
        assert invalid == ["references.jsonl:3", "references.jsonl:4"]
        assert "no partner: the outputs ran out" in completed.stderr
    else:
        assert invalid == ["outputs.jsonl:5", "outputs.jsonl:6"]
        assert "no partner: the references ran out" in completed.stderr


def test_graph_runs_with_broken_lines(tmp_path: Path) -> None:
    runs = write_lines(
        tmp_path / "runs.jsonl",
        [
            b'{"steps": [["a"], ["b"]]}',
            b'{"steps": [["a"], ["\xff"]]}',
            b'{"steps": "not a list"}',
            b'{"steps": [["a"], ["c"]]}',
            b'{"steps": [["a"',
        ],
    )
    reference = tmp_path / "reference.json"
    reference.write_text('{"steps": [["a"], ["b"]]}')
    completed = cli("graph", runs, reference, "--format", "jsonl", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    examples, invalid, summary = accounted(report_lines(completed))
    assert examples == ["runs.jsonl:1", "runs.jsonl:4"]
    assert invalid == ["runs.jsonl:2", "runs.jsonl:3", "runs.jsonl:5"]
    assert summary["mean_score"] == 0.5


@pytest.mark.parametrize("where", ["a directory", "under a file", "missing directory"])
def test_an_unwritable_output(tmp_path: Path, references: Path, where: str) -> None:
    outputs = write_lines(tmp_path / "outputs.jsonl", [b'{"a": %d}' % i for i in range(4)])
    target = {
        "a directory": tmp_path,
        "under a file": outputs / "report.json",
        "missing directory": tmp_path / "missing" / "report.json",
    }[where]
    completed = cli("json", outputs, references, "--output", target, cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"matchevals: error: {os.path.relpath(target, tmp_path)}: ")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("destination", ["--output", "stdout"])
@pytest.mark.parametrize("report_format", ["table", "jsonl"])
def test_a_full_disk(
    tmp_path: Path, references: Path, destination: str, report_format: str
) -> None:
    outputs = write_lines(tmp_path / "outputs.jsonl", [b'{"a": %d}' % i for i in range(4)])
    arguments: list[str | Path] = ["json", outputs, references, "--format", report_format]
    if destination == "--output":
        completed = cli(*arguments, "--output", "/dev/full", cwd=tmp_path)
    else:
        with open("/dev/full", "w") as full:
            completed = cli(*arguments, cwd=tmp_path, stdout=full)
    clean(completed)
    assert completed.returncode == 2
    assert "No space left on device" in completed.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_full_disk_under_a_long_report(tmp_path: Path, references: Path, workers: str) -> None:
    """Batches larger than the file's buffer fail as they are written, not only at close."""
    outputs = write_lines(tmp_path / "outputs.jsonl", [b'{"a": %d}' % i for i in range(3000)])
    arguments = ["json", outputs, references, "--format", "jsonl", "--workers", workers]
    completed = cli(*arguments, "--skip-invalid", "--output", "/dev/full", cwd=tmp_path)
    clean(completed)
    assert completed.returncode == 2
    assert completed.stderr.startswith("matchevals: error: cannot write the report to /dev/full")
