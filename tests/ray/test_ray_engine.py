"""``--engine ray``: a Ray pool scores the chunks; the report is the local run's, byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import executable, no_traceback, run, write_jsonl
from tests.cli.test_cli_scale import shuffled_by_id

pytest.importorskip("ray")


def test_ray_actors_give_the_bytes_of_one_local_process_pairing_by_id(
    tmp_path: Path, ray_address: str
) -> None:
    out, ref = shuffled_by_id(tmp_path, 4000)  # every pairing problem, several chunks per actor
    flags = ["--id-key", "id", "--format", "jsonl", "--aggregator", "average"]
    local = run("json", out, ref, *flags)
    on_ray = run("json", out, ref, *flags, "--engine", "ray", "--ray-address", ray_address)
    no_traceback(on_ray)
    assert local.returncode == on_ray.returncode == 2
    assert on_ray.stdout == local.stdout
    assert on_ray.stderr == local.stderr  # the same problems, and no word from Ray
    summary = json.loads(local.stdout.splitlines()[-1])
    # 8 problems; 2 of them not counted again (an orphan whose partner's id could not be read)
    assert (summary["examples_scored"], summary["invalid"]) == (3999, 6)


def test_ray_actors_score_graphs_against_one_reference(tmp_path: Path, ray_address: str) -> None:
    runs = [{"steps": [["a"], ["b", "c"]] if i % 3 else [["a"], ["b"]]} for i in range(3000)]
    path = write_jsonl(tmp_path / "runs.jsonl", runs, raw={10: "[", 400: ""})
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": [["a"], ["b", "c"]]}))
    flags = ["--format", "jsonl", "--partial-credit", "--ray-address", ray_address]
    local = run("graph", path, reference, "--format", "jsonl", "--partial-credit")
    on_ray = run("graph", path, reference, *flags, "--engine", "ray", "--workers", "2")
    assert local.returncode == on_ray.returncode == 2
    assert on_ray.stdout == local.stdout
    summary = json.loads(on_ray.stdout.splitlines()[-1])
    assert (summary["examples_scored"], summary["invalid"]) == (3000, 2)
    assert summary["per_key"]["superstep 1"] == {"mean": 2 / 3, "count": 3000, "unchecked": 0}


def test_without_an_address_a_local_ray_is_started_for_the_run(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", [{"a": i % 4, "b": [i]} for i in range(300)])
    references = write_jsonl(tmp_path / "ref.jsonl", [{"a": i % 3, "b": [i]} for i in range(299)])
    flags = ["--format", "jsonl", "--aggregator", "average"]
    local = run("json", outputs, references, *flags)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["LANGSMITH_TRACING"] = "false"
    on_ray = subprocess.run(
        [executable(), "json", str(outputs), str(references), *flags, "--engine", "ray"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert local.returncode == on_ray.returncode == 2  # one output has no reference
    assert on_ray.stdout == local.stdout
    assert on_ray.stderr == local.stderr
    last = json.loads(on_ray.stdout.splitlines()[-1])
    assert last["examples_per_file"] == {str(outputs): 300, str(references): 299}


def test_more_actors_than_the_cluster_has_cpus_is_an_error_not_a_wait(
    tmp_path: Path, ray_address: str
) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    completed = run(
        "json", out, out, "--engine", "ray", "--workers", "3", "--ray-address", ray_address
    )
    assert completed.returncode == 2
    assert completed.stderr == (
        "matchevals: error: --workers 3: the Ray cluster has 2 CPUs, one per actor\n"
    )


def test_ray_actors_write_the_html_page_of_one_local_process(
    tmp_path: Path, ray_address: str
) -> None:
    out, ref = shuffled_by_id(tmp_path, 600)
    flags = ["--id-key", "id", "--format", "html", "--html-details", "20", "--skip-invalid"]
    local, on_ray = tmp_path / "local.html", tmp_path / "ray.html"
    assert run("json", out, ref, *flags, "-o", local).returncode == 0
    completed = run(
        "json", out, ref, *flags, "-o", on_ray, "--engine", "ray", "--ray-address", ray_address
    )
    no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert on_ray.read_text() == local.read_text()
    assert "full details for the 20 lowest-scoring" in completed.stderr
