"""The pure core imports neither langsmith, langchain, openevals, agentevals nor asyncio.

Each module of the package is imported alone in a fresh interpreter and ``sys.modules`` is read
afterwards. Only the LangGraph capture edges may load LangGraph (and with it langchain-core,
langsmith and asyncio); everything else, the evaluators' edges included, loads langsmith only
when something could be watching and openevals only when a rubric is given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import matchevals

SOURCE = Path(matchevals.__file__).parent
FORBIDDEN = ("langsmith", "langchain", "langchain_core", "openevals", "agentevals", "asyncio")
LANGGRAPH_EDGES = {
    "matchevals.graph_trajectory.langgraph",  # capture from LangGraph runs (public, optional)
    "matchevals.graph_trajectory._checkpoints",  # reads a thread's StateSnapshots
    "matchevals.graph_trajectory._callbacks",  # LangChain callbacks of live graph runs
    "matchevals.graph_trajectory.utils",  # agentevals' extraction from a thread (public)
    "matchevals.graph_trajectory._signals",  # LangGraph's interrupt and resume values
    "matchevals.cli._demo_graph",  # the demo's real LangGraph graph
}
_LOADED = (
    "import importlib, json, sys\n"
    "importlib.import_module(sys.argv[1])\n"
    "{code}\n"
    "print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))\n"
)


def _module_names() -> list[str]:
    names = []
    for path in sorted(SOURCE.rglob("*.py")):
        parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


JUDGE_EDGES = {
    "matchevals.trajectory.llm",  # LLM-as-judge of trajectories, through openevals (public)
    "matchevals.graph_trajectory.llm",  # LLM-as-judge of graph runs, through openevals (public)
    "matchevals._scripted_judge",  # ScriptedJudge, a LangChain chat model
}
CORE = [name for name in _module_names() if name not in LANGGRAPH_EDGES | JUDGE_EDGES]


def _loaded_after(module: str, code: str = "") -> set[str]:
    environment = {**os.environ, "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
    completed = subprocess.run(
        [sys.executable, "-c", _LOADED.format(code=code), module],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    return set(json.loads(completed.stdout))


def test_the_edges_exist_and_the_core_is_everything_else() -> None:
    assert set(_module_names()) >= LANGGRAPH_EDGES | JUDGE_EDGES
    assert "matchevals.json_match._core" in CORE
    assert "matchevals.trajectory._match" in CORE
    assert "matchevals.graph_trajectory._superstep" in CORE


@pytest.mark.parametrize("module", CORE)
def test_a_core_module_loads_no_framework(module: str) -> None:
    assert sorted(_loaded_after(module) & set(FORBIDDEN)) == []


def test_the_probe_sees_what_a_module_loads() -> None:
    # the oracle: the LangGraph edge does load what the core may not
    assert {"langsmith", "langchain_core", "asyncio"} <= _loaded_after(
        "matchevals.graph_trajectory.langgraph"
    )


def test_evaluating_without_a_rubric_or_a_watcher_loads_no_framework() -> None:
    code = (
        "from matchevals.json_match import create_json_match_evaluator as j\n"
        "from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator as g\n"
        "from matchevals.trajectory import create_trajectory_match_evaluator as t\n"
        "assert j(aggregator='all')(outputs={'a': 1}, reference_outputs={'a': 2})[0]['score'] == 0"
        "\n"
        "steps = {'inputs': {'q': 1}, 'results': {'a': 1}, 'steps': [['a']]}\n"
        "assert g()(outputs=steps, reference_outputs={'steps': [['a']]})['score'] is True\n"
        "call = [{'role': 'ai', 'tool_calls': [{'name': 'x', 'args': {}}]}]\n"
        "assert t()(outputs=call, reference_outputs=call)['score'] is True"
    )
    assert sorted(_loaded_after("matchevals", code) & set(FORBIDDEN)) == []


@pytest.mark.parametrize(
    "module",
    [
        "matchevals.json_match",
        "matchevals.graph_trajectory",
        "matchevals.trajectory",
        "matchevals.testing",
        "matchevals.cli",
    ],
)
def test_public_packages_load_numpy_and_scipy_only_when_they_pair(module: str) -> None:
    # what keeps `import matchevals.json_match` and `matchevals --help` fast
    # (benchmarks/bench_import.py shows the times)
    assert sorted(_loaded_after(module) & {"numpy", "scipy", "rich"}) == []
