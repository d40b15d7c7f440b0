"""A 100,000-line JSONL is streamed: peak memory does not grow with the number of lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import executable

MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)
PADDING = "x" * 200


def write(path: Path, count: int, shift: int) -> None:
    with path.open("w") as handle:
        for i in range(count):
            record = {"id": i, "name": f"n{i}", "age": i % 90 + shift * (i % 10 == 0), "p": PADDING}
            handle.write(json.dumps(record) + "\n")


def peak_rss_kib(*args: str | Path) -> int:
    """Run ``matchevals`` as the only child of a fresh process; return its peak RSS."""
    completed = subprocess.run(
        [sys.executable, "-c", MEASURE, executable(), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    status, peak = completed.stdout.split()
    assert status == "0", completed.stderr
    return int(peak)


def test_a_100000_line_jsonl_is_scored_in_bounded_memory(tmp_path: Path) -> None:
    sizes = {"small": 1_000, "large": 100_000}
    peaks: dict[str, int] = {}
    for name, count in sizes.items():
        outputs, references = tmp_path / f"{name}_out.jsonl", tmp_path / f"{name}_ref.jsonl"
        write(outputs, count, shift=1)
        write(references, count, shift=0)
        report = tmp_path / f"{name}.json"
        peaks[name] = peak_rss_kib(
            "json", outputs, references, "--aggregator", "average", "--format", "json", "-o", report
        )
        summary = json.loads(report.read_text())["summary"]
        assert summary["examples_scored"] == count
        assert summary["mean_score"] == 1 - 0.1 / 4  # every 10th record has a wrong age
    input_mib = (tmp_path / "large_out.jsonl").stat().st_size * 2 / 2**20
    growth_mib = (peaks["large"] - peaks["small"]) / 1024
    assert input_mib > 45  # holding both files' records in memory would take several times this
    assert growth_mib < 25, (peaks, input_mib)
