"""Hostile inputs, run in a subprocess by ``test_hostile_shapes.py`` (so a hang cannot stall the
suite): ``python -m tests.robustness.hostile_cases NAME ...`` prints one JSON line per case.

Each case returns a summary of what happened: ``kind`` is ``ok`` (with the scores, comment
lengths and anything the test checks), ``error`` (a ValueError/TypeError: type and message) or
``crash`` (any other exception); ``peak_mb`` is tracemalloc's peak during the call when the case
measures memory.
"""

from __future__ import annotations

import json
import random
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
)
from matchevals.json_match import create_json_match_evaluator

DEPTH = 10_000
BIG = 10 * 1024 * 1024


def deep_dict(leaf: Any = 1) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(DEPTH - 1):
        child: dict[str, Any] = {}
        node["a"] = child
        node = child
    node["a"] = leaf
    return root


def deep_list(leaf: Any = 1) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(DEPTH - 1):
        child: list[Any] = []
        node.append(child)
        node = child
    node.append(leaf)
    return root


def self_dict() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def self_list() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


def _json_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "count": len(results),
        "keys": [r["key"] for r in results[:5]],
        "scores": [r["score"] for r in results[:5]],
        "mean": sum(float(r["score"]) for r in results) / len(results) if results else None,
        "low_scores": [r["key"] for r in results if float(r["score"]) < 1][:5],
        "comment_max": max((len(r["comment"] or "") for r in results), default=0),
        "metadata_alignment": (results[0]["metadata"] or {}).get("alignment")
        if results and len(results) == 1
        else None,
    }


def _graph_summary(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "score": result["score"],
        "comment": result["comment"][:400],
        "comment_len": len(result["comment"]),
    }


# --- json_match ---------------------------------------------------------------------------------


def json_deep_dicts() -> Any:
    return _json_summary(
        create_json_match_evaluator()(
            outputs={"x": deep_dict()}, reference_outputs={"x": deep_dict()}
        )
    )


def json_deep_dicts_average_lists() -> Any:
    evaluator = create_json_match_evaluator(aggregator="average", list_aggregator="average")
    return _json_summary(
        evaluator(outputs=[{"x": deep_dict()}, {"y": 1}], reference_outputs=[{"y": 1}, {"x": 2}])
    )


def json_deep_dicts_nested() -> Any:
    evaluator = create_json_match_evaluator(nested=True)
    return _json_summary(evaluator(outputs={"x": deep_dict()}, reference_outputs={"x": 1}))


def json_deep_list_value() -> Any:
    return _json_summary(
        create_json_match_evaluator()(outputs={"x": deep_list()}, reference_outputs={"x": [1]})
    )


def json_deep_json_text() -> Any:
    text = '{"x": ' + "[" * DEPTH + "]" * DEPTH + "}"
    return _json_summary(create_json_match_evaluator()(outputs=text, reference_outputs={"x": 1}))


def json_self_dict_against_scalar() -> Any:
    return _json_summary(
        create_json_match_evaluator()(outputs={"x": self_dict()}, reference_outputs={"x": 1})
    )


def json_self_dicts() -> Any:
    return _json_summary(
        create_json_match_evaluator()(
            outputs={"x": self_dict()}, reference_outputs={"x": self_dict()}
        )
    )


def json_self_dict_top_level() -> Any:
    return _json_summary(
        create_json_match_evaluator()(outputs=self_dict(), reference_outputs={"a": 1, "self": 2})
    )


def json_self_lists_in_records() -> Any:
    return _json_summary(
        create_json_match_evaluator()(
            outputs=[{"x": self_list()}], reference_outputs=[{"x": self_list()}]
        )
    )


def json_big_string_equal() -> Any:
    text = "x" * BIG
    other = "".join(["x" * (BIG - 1), "x"])  # equal, not the same object
    evaluator = create_json_match_evaluator()
    return _json_summary(evaluator(outputs={"s": text}, reference_outputs={"s": other}))


def json_big_string_differs() -> Any:
    text = "x" * BIG
    evaluator = create_json_match_evaluator(aggregator="average")
    return _json_summary(
        evaluator(outputs={"s": text, "t": 1}, reference_outputs={"s": text[:-1] + "y", "t": 1})
    )


def json_100k_keys() -> Any:
    outputs = {f"key {i}": i for i in range(100_000)}
    references = {f"key {i}": i for i in reversed(range(100_000))}
    references["key 7"] = -1
    evaluator = create_json_match_evaluator(aggregator="average")
    summary = _json_summary(evaluator(outputs=outputs, reference_outputs=references))
    per_key = create_json_match_evaluator()(outputs=outputs, reference_outputs=references)
    summary["per_key_count"] = len(per_key)
    summary["per_key_low"] = [r["key"] for r in per_key if r["score"] != 1]
    return summary


def json_100k_keys_all_differ() -> Any:
    outputs = {f"k{i}": i for i in range(100_000)}
    references = {f"k{i}": -i - 1 for i in range(100_000)}
    evaluator = create_json_match_evaluator(aggregator="average")
    return _json_summary(evaluator(outputs=outputs, reference_outputs=references))


def json_20k_records() -> Any:
    records = [{"id": i, "group": i % 7, "name": f"n{i}"} for i in range(20_000)]
    shuffled = list(records)
    random.Random(7).shuffle(shuffled)
    evaluator = create_json_match_evaluator(aggregator="average", list_aggregator="average")
    results = evaluator(outputs=shuffled, reference_outputs=records)
    summary = _json_summary(results)
    alignment = results[0]["metadata"]["alignment"]
    summary["pairs_ok"] = sorted(alignment) == sorted(
        [index, shuffled[index]["id"]] for index in range(len(shuffled))
    )
    summary["metadata_alignment"] = None
    return summary


def json_20k_records_one_changed() -> Any:
    records = [{"id": i, "v": i % 5} for i in range(20_000)]
    outputs = [dict(record) for record in reversed(records)]
    outputs[0]["v"] = -1  # the record with id 19999
    evaluator = create_json_match_evaluator(aggregator="all", list_aggregator="average")
    summary = _json_summary(evaluator(outputs=outputs, reference_outputs=records))
    summary["metadata_alignment"] = None
    return summary


def json_nested_100k_keys() -> Any:
    outputs = {f"key {i}": {"v": i} for i in range(100_000)}
    references = {f"key {i}": {"v": i} for i in range(100_000)}
    references["key 7"] = {"v": -1}
    evaluator = create_json_match_evaluator(nested=True, aggregator="average")
    return _json_summary(evaluator(outputs=outputs, reference_outputs=references))


def json_nested_20k_records_in_a_list_field() -> Any:
    records = [{"id": i, "tags": [i % 3, "x"], "meta": {"g": i % 7}} for i in range(20_000)]
    shuffled = list(records)
    random.Random(3).shuffle(shuffled)
    shuffled[5] = {**shuffled[5], "meta": {"g": -1}}
    evaluator = create_json_match_evaluator(
        nested=True, aggregator="average", list_aggregator="average"
    )
    return _json_summary(
        evaluator(outputs={"items": shuffled}, reference_outputs={"items": records})
    )


# --- graph_trajectory ---------------------------------------------------------------------------


def graph_deep_results() -> Any:
    return _graph_summary(
        graph_trajectory_match(
            outputs={"steps": [["a"]], "results": deep_dict()},
            reference_outputs={"steps": [["a"]], "results": deep_dict()},
            eval_results=True,
        )
    )


def graph_self_referencing_results() -> Any:
    return _graph_summary(
        graph_trajectory_match(
            outputs={"steps": [["a"]], "results": self_dict()},
            reference_outputs={"steps": [["a"]], "results": self_dict()},
            eval_results=True,
        )
    )


def graph_deep_steps() -> Any:
    return _graph_summary(
        graph_trajectory_match(
            outputs={"steps": deep_list("a")}, reference_outputs={"steps": [["a"]]}
        )
    )


def graph_self_referencing_steps() -> Any:
    return _graph_summary(
        graph_trajectory_match(outputs={"steps": self_list()}, reference_outputs={"steps": [["a"]]})
    )


def graph_big_node_name() -> Any:
    name = "n" * BIG
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    return _graph_summary(
        evaluator(
            outputs={"steps": [[name], ["b"]]}, reference_outputs={"steps": [[name + "!"], ["b"]]}
        )
    )


def graph_20k_supersteps() -> Any:
    steps = [["agent"], ["tools"]] * 10_000
    reference = [list(step) for step in steps]
    reference[-1] = ["end"]
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    return _graph_summary(
        evaluator(outputs={"steps": steps}, reference_outputs={"steps": reference})
    )


def graph_20k_supersteps_repeat() -> Any:
    steps = [["agent"], ["tools"]] * 10_000 + [["agent"]]
    reference = {"steps": [Repeat([["agent"], ["tools"]], min=1), ["agent"]]}
    return _graph_summary(
        graph_trajectory_match(outputs={"steps": steps}, reference_outputs=reference)
    )


def graph_2k_supersteps_all_shifted_partial() -> Any:
    steps = [["a"], ["b"]] * 1_000
    reference = [["b"], ["a"]] * 1_000
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    return _graph_summary(
        evaluator(outputs={"steps": steps}, reference_outputs={"steps": reference})
    )


def graph_100k_node_superstep_exact_partial() -> Any:
    nodes = [f"n{i}" for i in range(100_000)]
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    return _graph_summary(
        evaluator(
            outputs={"steps": [nodes]},
            reference_outputs={"steps": [ReferenceStep(nodes[1:] + nodes[:1], "exact")]},
        )
    )


def graph_2k_optional_steps() -> Any:
    reference = {"steps": [ReferenceStep(["*"], optional=True) for _ in range(2_000)] + [["b"]]}
    return _graph_summary(
        graph_trajectory_match(outputs={"steps": [["a"]] * 3}, reference_outputs=reference)
    )


def graph_partial_credit_past_the_limit() -> Any:
    steps = [[f"a{i}"] for i in range(6_000)]
    reference = [[f"b{i}"] for i in range(6_000)]
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    return _graph_summary(
        evaluator(outputs={"steps": steps}, reference_outputs={"steps": reference})
    )


def graph_20k_runs() -> Any:
    runs = [{"steps": [["a"], ["b"]]} for _ in range(20_000)]
    references = [{"steps": [["a"], ["b"]]} for _ in range(20_000)]
    references[-1] = {"steps": [["a"], ["c"]]}
    return _graph_summary(graph_trajectory_match(outputs=runs, reference_outputs=references))


def graph_rules_20k_supersteps() -> Any:
    evaluator = create_graph_trajectory_rules_evaluator(
        forbidden=["drop"], max_visits={"agent": 10_000}, before=[("plan", "agent")]
    )
    steps = [["plan"]] + [["agent"], ["tools"]] * 10_000
    results = evaluator(outputs={"steps": steps})
    return {"scores": [r["score"] for r in results], "comments": [r["comment"] for r in results]}


CASES: dict[str, tuple[Callable[[], Any], bool]] = {
    # name: (case, measure memory)
    "json_deep_dicts": (json_deep_dicts, False),
    "json_deep_dicts_average_lists": (json_deep_dicts_average_lists, False),
    "json_deep_dicts_nested": (json_deep_dicts_nested, False),
    "json_deep_list_value": (json_deep_list_value, False),
    "json_deep_json_text": (json_deep_json_text, False),
    "json_self_dict_against_scalar": (json_self_dict_against_scalar, False),
    "json_self_dicts": (json_self_dicts, False),
    "json_self_dict_top_level": (json_self_dict_top_level, False),
    "json_self_lists_in_records": (json_self_lists_in_records, False),
    "json_big_string_equal": (json_big_string_equal, True),
    "json_big_string_differs": (json_big_string_differs, True),
    "json_100k_keys": (json_100k_keys, True),
    "json_100k_keys_all_differ": (json_100k_keys_all_differ, False),
    "json_20k_records": (json_20k_records, True),
    "json_20k_records_one_changed": (json_20k_records_one_changed, False),
    "json_nested_100k_keys": (json_nested_100k_keys, False),
    "json_nested_20k_records_in_a_list_field": (json_nested_20k_records_in_a_list_field, False),
    "graph_deep_results": (graph_deep_results, False),
    "graph_self_referencing_results": (graph_self_referencing_results, False),
    "graph_deep_steps": (graph_deep_steps, False),
    "graph_self_referencing_steps": (graph_self_referencing_steps, False),
    "graph_big_node_name": (graph_big_node_name, True),
    "graph_20k_supersteps": (graph_20k_supersteps, True),
    "graph_20k_supersteps_repeat": (graph_20k_supersteps_repeat, False),
    "graph_2k_supersteps_all_shifted_partial": (graph_2k_supersteps_all_shifted_partial, False),
    "graph_100k_node_superstep_exact_partial": (graph_100k_node_superstep_exact_partial, False),
    "graph_2k_optional_steps": (graph_2k_optional_steps, False),
    "graph_partial_credit_past_the_limit": (graph_partial_credit_past_the_limit, False),
    "graph_20k_runs": (graph_20k_runs, False),
    "graph_rules_20k_supersteps": (graph_rules_20k_supersteps, False),
}


def run_case(name: str) -> dict[str, Any]:
    case, measure = CASES[name]
    report: dict[str, Any] = {"case": name}
    if measure:
        tracemalloc.start()
    try:
        report.update(kind="ok", value=case())
    except (ValueError, TypeError) as error:
        report.update(
            kind="error",
            type=type(error).__name__,
            message=str(error)[:2000],
            message_len=len(str(error)),
        )
    except BaseException as error:
        report.update(kind="crash", type=type(error).__name__, message=str(error)[:500])
    if measure:
        report["peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return report


def main(names: list[str]) -> None:
    sys.setrecursionlimit(1000)  # the default: what a user's process has
    for name in names:
        print(json.dumps(run_case(name), default=repr), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(CASES))
