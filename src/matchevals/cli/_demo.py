"""``matchevals demo``: the main job on bundled example data, in three parts.

1. JSON match on small records: aggregators, list aggregators, list match modes.
2. A batch of extracted invoices with realistic mistakes, scored as ``matchevals json`` does.
3. A real LangGraph fan-out graph, captured while it runs and matched superstep by superstep
   (with the ``langgraph`` extra; otherwise the bundled trajectories are scored instead).
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["DATA", "run_demo"]

DATA = Path(__file__).resolve().parent / "data"


@contextlib.contextmanager
def _inside(directory: Path) -> Iterator[None]:
    """Run in ``directory`` so reports name the bundled files briefly."""
    previous = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(previous)


def _person(name: str, age: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "age": age, **extra}


def _seed_cases() -> list[tuple[str, dict[str, Any], Any, Any]]:
    alice_born, alice_female = (
        _person("Alice", 20, birth="1981-08-24"),
        _person("Alice", 30, gender="female"),
    )
    two_out = [_person("Alice", 20), _person("Bob", 20)]
    two_ref = [_person("Alice", 20), _person("Bob", 30)]
    alice, bob30, bob40 = _person("Alice", 20), _person("Bob", 30), _person("Bob", 40)
    cases: list[tuple[str, dict[str, Any], Any, Any]] = [
        (f"aggregator={agg}", {"aggregator": agg}, alice_born, alice_female)
        for agg in (None, "all", "average")
    ]
    cases += [
        (
            f"list_aggregator={la}; aggregator={agg}",
            {"list_aggregator": la, "aggregator": agg},
            two_out,
            two_ref,
        )
        for la in ("all", "average")
        for agg in (None, "all", "average")
    ]
    modes = [
        ("ordered", "average", [bob30, alice], [alice, bob30], "[bob30, alice] vs [alice, bob30]"),
        ("ordered", "average", [alice, bob30, bob40], [alice, bob30], "[alice, bob30, bob40]"),
        ("ordered", "all", [alice, bob30, bob40], [alice, bob30], "[alice, bob30, bob40]"),
        ("superset", "average", [bob30, alice], [bob30], "[bob30, alice] vs [bob30]"),
        ("superset", "all", [bob40, alice], [bob30], "[bob40, alice] vs [bob30]"),
    ]
    cases += [
        (
            f"{mode}; list_aggregator={la}; {label}",
            {"list_match_mode": mode, "list_aggregator": la, "aggregator": "average"},
            outputs,
            references,
        )
        for mode, la, outputs, references, label in modes
    ]
    return cases


def _seed_demos() -> None:
    from matchevals.json_match import create_json_match_evaluator

    print("== 1. JSON match on small records: aggregators and list modes ==\n")
    for title, options, outputs, references in _seed_cases():
        results = create_json_match_evaluator(**options)(
            outputs=outputs, reference_outputs=references
        )
        scores = ", ".join(f"{r['key']} = {r['score']}" for r in results)
        print(f"  {title}: {scores}")
    print()


_BATCH = (
    "matchevals json extraction_outputs.jsonl extraction_references.jsonl --id-key id",
    "--nested --comparators 'total=numeric(abs_tol=0.01)' 'vendor=text()'",
)


def _batch() -> int:
    from matchevals.cli import main

    print("== 2. A batch of extracted invoices with realistic mistakes ==")
    print(f"   {_BATCH[0]} \\\n     {_BATCH[1]}\n")  # the command it runs, as typed
    with _inside(DATA):
        return main(shlex.split(" ".join(_BATCH))[1:])


def _live_graph() -> None:
    import json

    from matchevals.cli._demo_graph import fan_out_graph
    from matchevals.graph_trajectory import ReferenceStep, create_graph_trajectory_match_evaluator
    from matchevals.graph_trajectory._side_by_side import trajectory_side_by_side
    from matchevals.graph_trajectory.langgraph import capture_graph_runs

    graph = fan_out_graph()
    inputs = [{"topics": ["a", "b"]}, {"topics": ["a"]}, {"topics": ["a", "b", "c"]}]
    with capture_graph_runs() as captured:
        for value in inputs:
            graph.invoke(value)
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    for run, value in zip(captured.trajectories, inputs, strict=True):
        steps = [
            ReferenceStep(["plan"], "exact"),
            ReferenceStep(["audit", *(["research"] * len(value["topics"]))], "unordered"),
            ReferenceStep(["write"], "exact"),
        ]
        reference = {"inputs": None, "results": None, "steps": steps}
        result: Any = evaluator(outputs=run, reference_outputs=reference)
        print(f"  topics={json.dumps(value['topics'])}: score {result['score']:.3g}")
        if result["score"] < 1:
            print(f"    {result['comment']}")
        for line in trajectory_side_by_side(run["steps"], steps, result["metadata"]["runs"][0]):
            print("  " + line)
        print()


def run_demo(*, graph: bool = True) -> int:
    """Print the three demos; return 0 (the exit status of ``matchevals demo``)."""
    _seed_demos()
    _batch()
    print()
    if not graph:
        return 0
    print("== 3. A LangGraph fan-out graph, captured and matched superstep by superstep ==\n")
    try:
        import langgraph  # noqa: F401
    except ImportError:
        from matchevals.cli import main

        print("  (LangGraph is not installed: pip install 'matchevals[langgraph]' to run it live;")
        print("   scoring the bundled trajectories instead)\n")
        with _inside(DATA):
            main(["graph", "trajectories.jsonl", "trajectory_reference.json", "--partial-credit"])
        return 0
    _live_graph()
    return 0
