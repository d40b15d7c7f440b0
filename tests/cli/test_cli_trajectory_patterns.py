"""``matchevals trajectory --trajectory-match-mode pattern``: turn patterns in their JSON form
read from reference files, strict and with ``--partial-credit``, scored as the evaluator does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import main
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.cli.helpers import as_json, no_traceback, run, write_jsonl

ASK = {"role": "user", "content": "find it"}


def ai(*names: str, text: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if names:
        message["tool_calls"] = [{"name": name, "args": {"q": name}} for name in names]
    return message


LOOP = {
    "turns": [
        {"repeat": [{"calls": [{"name": "search"}]}], "min": 1, "max": 3},
        {"calls": [], "match_mode": "exact"},
    ]
}
OUTPUTS: list[Any] = [
    {"messages": [ASK, ai("search"), ai("search"), ai(text="found")]},
    [ASK, ai(text="no idea")],
    [ASK, ai("search"), ai("fetch"), ai(text="found")],
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_jsonl(tmp_path / "out.jsonl", OUTPUTS),
        write_jsonl(tmp_path / "ref.jsonl", [LOOP] * len(OUTPUTS)),
    )


def test_patterns_from_reference_files_score_as_the_evaluator_does(
    files: tuple[Path, Path],
) -> None:
    completed = run("trajectory", *files, "--trajectory-match-mode", "pattern", "--format", "json")
    assert completed.returncode == 0, completed.stderr
    summary = as_json(completed)
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
    direct = [evaluator(outputs=o, reference_outputs=LOOP) for o in OUTPUTS]
    assert [d["score"] for d in direct] == [True, False, False]
    assert summary["per_key"] == {
        "trajectory_pattern_match": {"mean": pytest.approx(1 / 3), "count": 3}
    }
    assert {worst["where"] for worst in summary["worst"]} == {f"{files[0]}:2", f"{files[0]}:3"}
    by_line = {worst["where"]: worst["results"] for worst in summary["worst"]}
    assert by_line[f"{files[0]}:3"] == [direct[2]]


def test_partial_credit_flag_and_fail_under(files: tuple[Path, Path]) -> None:
    completed = run(
        "trajectory", *files, "--trajectory-match-mode", "pattern", "--partial-credit",
        "--fail-under", "0.9", "--format", "json",
    )  # fmt: skip
    assert completed.returncode == 1
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode="pattern", partial_credit=True
    )
    scores = [evaluator(outputs=o, reference_outputs=LOOP)["score"] for o in OUTPUTS]
    assert scores == [1.0, 0.5, pytest.approx(2 / 3)]
    summary = as_json(completed)
    assert summary["per_key"] == {
        "trajectory_pattern_match_partial": {"mean": pytest.approx(sum(scores) / 3), "count": 3}
    }


def test_partial_credit_without_pattern_mode_is_refused(files: tuple[Path, Path]) -> None:
    completed = run("trajectory", *files, "--partial-credit")
    assert completed.returncode == 2
    no_traceback(completed)
    assert "--partial-credit applies to trajectory_match_mode='pattern'" in completed.stderr


def test_a_pattern_reference_in_another_mode_is_an_invalid_example(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["trajectory", *map(str, files), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert status == 2
    assert summary["examples_scored"] == 0
    assert "reference_outputs is a turn pattern" in json.dumps(summary["problems"])


def test_one_pattern_in_a_json_file_serves_every_run(tmp_path: Path) -> None:
    """A ``.json`` holding one ``{"turns": [...]}`` is the reference of every run (the shape of
    any good run), with or without ``--id-key``; the scores are the evaluator's on each run."""
    outputs = write_jsonl(tmp_path / "out.jsonl", OUTPUTS)
    pattern = tmp_path / "pattern.json"
    pattern.write_text(json.dumps(LOOP))
    completed = run("trajectory", outputs, pattern, "--trajectory-match-mode", "pattern",
                    "--format", "json")  # fmt: skip
    summary = as_json(completed)
    assert summary["per_key"] == {
        "trajectory_pattern_match": {"mean": pytest.approx(1 / 3), "count": 3}
    }
    assert (summary["examples_scored"], summary["invalid"]) == (3, 0)
    labelled = write_jsonl(
        tmp_path / "labelled.jsonl",
        [{"id": f"run-{n}", "messages": messages} for n, messages in
         enumerate([OUTPUTS[0]["messages"], OUTPUTS[1], OUTPUTS[2]])],
    )  # fmt: skip
    by_id = run("trajectory", labelled, pattern, "--trajectory-match-mode", "pattern",
                "--id-key", "id", "--format", "json")  # fmt: skip
    assert as_json(by_id)["per_key"] == summary["per_key"]


def test_a_json_list_of_patterns_is_one_pattern_per_run(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", OUTPUTS[:2])
    patterns = tmp_path / "patterns.json"
    patterns.write_text(json.dumps([LOOP, {"turns": ["*"]}]))
    summary = as_json(
        run("trajectory", outputs, patterns, "--trajectory-match-mode", "pattern",
            "--format", "json")
    )  # fmt: skip
    assert summary["per_key"] == {"trajectory_pattern_match": {"mean": 1.0, "count": 2}}
