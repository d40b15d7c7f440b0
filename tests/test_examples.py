"""Every script under examples/ runs and prints what its docs promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_structured_extraction_scores_nested_paths_with_comparators() -> None:
    out = run_example("structured_extraction.py")
    assert "receipt 0:\n  all fields match" in out  # case, float noise, tag order forgiven
    assert 'json_match:merchant.city = 0: merchant.city: expected "Portland", got "Salem"' in out
    assert "json_match:total = 0: total: expected 23.48, got 24.48" in out
    assert "json_match:items[*].price = 0.5: outputs.items[1] has no partner" in out
    means = dict(
        line.strip().split(" = ") for line in out.split("mean score per field:\n")[1].splitlines()
    )
    assert means == {
        "json_match:items[*].name": "0.833",
        "json_match:items[*].price": "0.833",
        "json_match:merchant.city": "0.667",
        "json_match:merchant.name": "1",
        "json_match:tags": "1",
        "json_match:total": "0.667",
    }


def test_langgraph_agent_evaluated_with_langsmith_offline() -> None:
    pytest.importorskip("langgraph")
    out = run_example("langgraph_langsmith_eval.py")
    assert "compare two cities: graph_trajectory_match_partial = 1" in out
    assert "one topic: graph_trajectory_match_partial = 1" in out
    assert "skip-check three topics: graph_trajectory_match_partial = 0.583" in out
    assert "missing fact_check" in out


def test_pytest_example_passes_with_the_plugin() -> None:
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGSMITH_TEST_TRACKING": "false"}
    env.pop("PYTEST_ADDOPTS", None)  # this suite's own selection is not the example's
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "test_with_pytest.py",
        ],
        capture_output=True,
        text=True,
        cwd=EXAMPLES,
        env=env,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = "5 passed" if _has_langgraph() else "3 passed, 2 skipped"
    assert expected in completed.stdout


def _has_langgraph() -> bool:
    try:
        import langgraph  # noqa: F401
    except ImportError:
        return False
    return True
