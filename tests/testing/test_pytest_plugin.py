"""The pytest plugin, as installed (entry point pytest11), run on test files in a fresh pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TEST_FILE = """
import pytest
from matchevals.graph_trajectory import graph_trajectory_match
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.testing import assert_json_match

evaluator = create_json_match_evaluator(aggregator="average")


def test_bare_score():
    evaluate = create_json_match_evaluator(aggregator="all")
    results = evaluate(outputs={"name": "Ann", "age": 20}, reference_outputs={"age": 30})
    result = results[0]
    assert result["score"]


def test_threshold_on_a_list_of_results():
    results = create_json_match_evaluator()(
        outputs={"city": "Paris", "zip": "75001"},
        reference_outputs={"city": "Paris", "zip": "75002"},
    )
    assert all(r["score"] for r in results)


def test_graph_score():
    result = graph_trajectory_match(
        outputs={"steps": [["a"], ["b"]]}, reference_outputs={"steps": [["a"], ["b", "c"]]}
    )
    assert result["score"] is True


def test_compared_result():
    result = evaluator(outputs={"x": 1}, reference_outputs={"x": 2})[0]
    assert result == {"key": "json_match:average", "score": 1, "comment": None, "metadata": None}


def test_assertion_helper_is_not_explained_twice():
    assert_json_match({"a": 1}, {"a": 2})


def test_unrelated_failure_is_left_alone():
    value = 3
    assert value == 4


@pytest.mark.asyncio
async def test_async_score():
    evaluate = create_async_json_match_evaluator()
    results = await evaluate(outputs={"n": [1, 2]}, reference_outputs={"n": [2, 1]})
    assert results[0]["score"] == 1


def test_passing_result_is_quiet():
    result = evaluator(outputs={"x": 1}, reference_outputs={"x": 1})[0]
    assert result["score"] == 1
"""


def run_pytest(tmp_path: Path, source: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(source))
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGSMITH_TEST_TRACKING": "false"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def section(output: str, test: str) -> str:
    """The test's own failure report: up to the next test's header or the next ``===`` section
    (the short summary, whose messages repeat every explanation when pytest runs under ``CI``)."""
    start = output.index(f"_ {test} _")
    ends = [output.find(separator, start + 1) for separator in ("\n____", "\n====")]
    return output[start : min((end for end in ends if end > 0), default=None)]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> str:
    completed = run_pytest(tmp_path_factory.mktemp("plugin"), TEST_FILE, "--trace-config")
    assert "7 failed, 1 passed" in completed.stdout, completed.stdout + completed.stderr
    return completed.stdout


def test_plugin_is_registered_through_its_entry_point_and_can_be_turned_off(
    outcome: str, tmp_path: Path
) -> None:
    assert "PLUGIN registered: <module 'matchevals.pytest_plugin'" in outcome  # --trace-config
    off = run_pytest(tmp_path, TEST_FILE, "-p", "no:matchevals")
    assert "7 failed, 1 passed" in off.stdout
    assert "matchevals explains:" not in off.stdout


def test_bare_score_assertion_shows_the_differing_path(outcome: str) -> None:
    text = section(outcome, "test_bare_score")
    assert "E       matchevals explains:" in text
    assert "E         result: json_match:all = 0" in text
    assert ["E", "age", "30", "20"] in rows(text)
    # one result under two names (results[0] and result) is explained once, by its own name
    assert "results[0]:" not in text and text.count("json_match:all = 0") == 1


def test_list_of_results_shows_only_the_failing_ones(outcome: str) -> None:
    text = section(outcome, "test_threshold_on_a_list_of_results")
    assert "results[1]: json_match:zip = 0" in text
    assert ["E", "zip", '"75002"', '"75001"'] in rows(text)
    assert "results[0]" not in text


def test_graph_result_shows_the_first_divergence(outcome: str) -> None:
    text = section(outcome, "test_graph_score")
    assert "result: graph_trajectory_match = False" in text
    assert "run 0: 2 supersteps (2 expected); per superstep 0:ok 1:DIFF" in text
    assert "first divergence at superstep 1: expected [b, c], got [b]" in text


def test_comparison_goes_through_assertrepr_compare(outcome: str) -> None:
    text = section(outcome, "test_compared_result")
    assert "left: json_match:average = 0" in text
    assert ["E", "x", "2", "1"] in rows(text)
    assert "Omitting 1 identical items" in text  # pytest's own diff follows
    assert text.count("matchevals explains:") == 1


def test_assertion_helpers_are_not_explained_twice(outcome: str) -> None:
    text = section(outcome, "test_assertion_helper_is_not_explained_twice")
    assert "json_match: 1 of 1 results below the threshold 1.0" in text
    assert "matchevals explains:" not in text


def test_async_tests_are_explained_too(outcome: str) -> None:
    text = section(outcome, "test_async_score")
    assert "results[0]: json_match:n = 0" in text
    assert ["E", "n[0]", "2", "1"] in rows(text)


def test_unrelated_failures_are_left_alone(outcome: str) -> None:
    text = section(outcome, "test_unrelated_failure_is_left_alone")
    assert "assert 3 == 4" in text
    assert "matchevals" not in text


GRAPH_RUNS_TEST = """
import pytest
from langgraph.graph import START, StateGraph
from typing import Annotated, TypedDict
import operator


class State(TypedDict):
    log: Annotated[list, operator.add]


def build():
    builder = StateGraph(State)
    for name in "abcd":
        builder.add_node(name, lambda s, n=name: {"log": [n]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge(["b", "c"], "d")
    return builder.compile()


def test_sync(graph_runs):
    graph = build()
    graph.invoke({"log": []})
    graph.invoke({"log": ["again"]})
    assert [t["steps"] for t in graph_runs.trajectories] == [[["a"], ["b", "c"], ["d"]]] * 2
    assert graph_runs.trajectories[1]["inputs"] == {"log": ["again"]}


async def test_async(graph_runs):
    await build().ainvoke({"log": []})
    assert graph_runs.trajectories[0]["steps"] == [["a"], ["b", "c"], ["d"]]


def test_each_test_starts_empty(graph_runs):
    assert graph_runs.trajectories == []
"""


def test_graph_runs_fixture_captures_the_tests_langgraph_runs(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    (tmp_path / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n")
    completed = run_pytest(tmp_path, GRAPH_RUNS_TEST)
    assert "3 passed" in completed.stdout, completed.stdout + completed.stderr


def test_graph_runs_fixture_skips_cleanly_without_langgraph(tmp_path: Path) -> None:
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'langgraph' or name.startswith('langgraph.'):\n"
        "            raise ImportError('blocked for this test')\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    source = "def test_needs_graph(graph_runs):\n    raise AssertionError('must not run')\n"
    (tmp_path / "test_sample.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert "1 skipped" in completed.stdout, completed.stdout + completed.stderr
    assert "graph_runs needs LangGraph" in completed.stdout
