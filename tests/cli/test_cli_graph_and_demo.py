"""``matchevals graph`` and ``matchevals demo`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import matchevals.cli
from matchevals.cli import main
from tests.cli.helpers import no_traceback, run, write_jsonl

RUNS = [
    {"inputs": None, "results": None, "steps": [["plan"], ["audit", "research"], ["write"]]},
    {"inputs": None, "results": None, "steps": [["plan"], ["research"], ["write"]]},
    {"inputs": None, "results": None, "steps": [["plan"], ["audit", "research"]]},
]
REFERENCE = {
    "inputs": None,
    "results": None,
    "steps": [
        {"steps": ["plan"], "match_mode": "exact"},
        {"steps": ["audit", "research"], "match_mode": "superset"},
        ["write"],
    ],
}


@pytest.fixture
def graph_files(tmp_path: Path) -> tuple[Path, Path]:
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps(REFERENCE))
    return write_jsonl(tmp_path / "runs.jsonl", RUNS), reference


def test_graph_scores_every_run_against_one_reference(graph_files: tuple[Path, Path]) -> None:
    completed = run("graph", *graph_files, "--format", "jsonl")
    assert completed.returncode == 0, completed.stderr
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [line.get("score") for line in lines[:3]] == [1.0, 0.0, 0.0]
    assert lines[1]["results"][0]["comment"].startswith("run 0, superstep 1 (superset")
    summary = lines[3]
    assert summary["per_key"] == {
        "graph_trajectory_match": {"mean": pytest.approx(1 / 3), "count": 3},
        "superstep 0": {"mean": 1.0, "count": 3, "unchecked": 0},
        "superstep 1": {"mean": pytest.approx(2 / 3), "count": 3, "unchecked": 0},
        "superstep 2": {"mean": 1.0, "count": 2, "unchecked": 0},
    }


def test_graph_partial_credit_and_fail_under(graph_files: tuple[Path, Path]) -> None:
    completed = run(
        "graph", *graph_files, "--partial-credit", "--fail-under", "0.9", "--format", "markdown"
    )
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0] == "### matchevals graph — FAILED (fail-under 0.9)"
    assert "mean score **0.8333**" in completed.stdout  # runs score 1, 3/4 and 3/4
    assert "| superstep 1 | 0.6667 | 3 |" in completed.stdout


def test_graph_references_paired_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = write_jsonl(
        tmp_path / "runs.jsonl",
        [{"id": "b", "steps": [["x"]]}, {"id": "a", "steps": [["y"]]}, {"id": "c", "steps": "no"}],
    )
    references = write_jsonl(
        tmp_path / "refs.jsonl",
        [{"id": "a", "steps": [["y"]]}, {"id": "b", "steps": [["x"]]}, {"id": "c", "steps": []}],
    )
    status = main(["graph", str(runs), str(references), "--id-key", "id", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert status == 2
    assert (summary["examples_scored"], summary["mean_score"]) == (2, 1.0)
    assert summary["problems"] == [
        {
            "where": f"{runs}:3",
            "message": "cannot score: outputs.steps is a str; expected a list of supersteps",
        }
    ]


def test_graph_bad_reference_is_a_clean_error(tmp_path: Path) -> None:
    runs = write_jsonl(tmp_path / "runs.jsonl", RUNS)
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": [{"steps": ["a"], "match_mode": "fuzzy"}]}))
    completed = run("graph", runs, reference, "--format", "json")
    no_traceback(completed)
    assert completed.returncode == 2
    summary = json.loads(completed.stdout)["summary"]
    assert summary["invalid"] == 3
    assert "match_mode is 'fuzzy'" in summary["problems"][0]["message"]


def test_demo_runs_all_three_parts() -> None:
    completed = run("demo")
    no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "aggregator=average: json_match:average = 0.25" in out
    assert "list_aggregator=average; aggregator=average: json_match:average = 0.75" in out
    assert "superset; list_aggregator=all; [bob40, alice] vs [bob30]: json_match:average = 0" in out
    assert "matchevals json: 6 examples scored, 0 invalid, mean score 0.875" in out
    assert '"2024-15-03"' in out  # the swapped date, among the worst examples
    if pytest.importorskip("langgraph"):
        assert 'topics=["a", "b"]: score 1' in out
        assert 'topics=["a", "b", "c"]: score 0.583' in out
        assert "> 1 " in out and "<- first divergence" in out


def test_bundled_data_is_small() -> None:
    data = Path(matchevals.cli.__file__).parent / "data"  # what the package ships
    sizes = {path.name: path.stat().st_size for path in data.iterdir()}
    assert set(sizes) == {
        "extraction_outputs.jsonl",
        "extraction_references.jsonl",
        "trajectories.jsonl",
        "trajectory_reference.json",
    }
    assert max(sizes.values()) < 10_000


@pytest.mark.parametrize("workers", ["1", "2"])
def test_one_shared_reference_with_id_key_scores_every_run_labelled(
    tmp_path: Path, workers: str
) -> None:
    """One reference (a ``.json`` object) applies to every run; ``--id-key`` only labels the
    runs (and is not part of what is scored). A run without the key is said to lack it."""
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps(REFERENCE))
    runs = [{**run, "thread": f"t{n}"} for n, run in enumerate(RUNS)]
    path = write_jsonl(tmp_path / "runs.jsonl", [*runs, RUNS[0]])
    completed = run(
        "graph", path, reference, "--id-key", "thread", "--format", "jsonl", "--workers", workers
    )
    no_traceback(completed)
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    examples = [line for line in lines if line["type"] == "example"]
    assert [(line["index"], line["id"]) for line in examples] == [(0, "t0"), (1, "t1"), (2, "t2")]
    assert [line["score"] for line in examples] == [1.0, 0.0, 0.0]
    assert "thread" not in examples[0]["outputs"]
    assert lines[3] == {
        "type": "invalid",
        "where": f"{path}:4",
        "message": "the example has no 'thread' (the --id-key)",
    }
    assert completed.returncode == 2
    table = run("graph", path, reference, "--id-key", "thread", "--skip-invalid")
    assert table.returncode == 0, table.stderr
    assert "┃ thread ┃" in table.stdout and "│ t1 " in table.stdout  # the worst, by label
