"""Every script under examples/ runs and prints what its docs promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_example(name: str) -> str:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_json_match_options_print_their_scores() -> None:
    out = run_example("json_match_options.py")
    blocks = {
        block.split(":\n")[0]: [line.strip() for line in block.splitlines()[1:] if "=" in line]
        for block in out.split("\n\n")
        if ":\n" in block
    }
    assert blocks["aggregator=None"] == [
        "json_match:age = 0",
        "json_match:birth = 0",
        "json_match:gender = 0",
        "json_match:name = 1",
    ]
    assert blocks["aggregator=all"] == ["json_match:all = 0"]
    assert blocks["aggregator=average"] == ["json_match:average = 0.25"]
    assert blocks["list_aggregator=average; aggregator=None"] == [
        "json_match:age = 0.5",
        "json_match:name = 1.0",
    ]
    assert blocks["list_aggregator=average; aggregator=average"] == ["json_match:average = 0.75"]
    ordered = "ordered; list_aggregator=average; aggregator=average;"
    assert blocks[f"{ordered} [bob1, alice]/[alice, bob1]"] == ["json_match:average = 0.0"]
    assert blocks[f"{ordered} [alice, bob1, bob2]/[alice, bob1]"] == [
        "json_match:average = 0.6666666666666666"
    ]
    superset = "superset; list_aggregator=all; aggregator=average;"
    assert blocks[f"{superset} [bob1, alice]/[bob1]"] == ["json_match:average = 1"]
    assert blocks[f"{superset} [bob2, alice]/[bob1]"] == ["json_match:average = 0"]
