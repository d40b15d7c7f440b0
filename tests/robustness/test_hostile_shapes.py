"""Hostile shapes: 10,000 levels of nesting, self-reference, a 10 MB string, 100,000 keys,
20,000 records or supersteps. Each gives a clear error or the correct result, within bounded
memory (tracemalloc's peak, where it means something); never a RecursionError or a hang.

The cases live in ``hostile_cases.py`` and run in one subprocess at the default recursion limit;
a case that does not finish within the timeout fails as a hang (no wall-time assertions).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.robustness._support import ROOT, python_env
from tests.robustness.hostile_cases import CASES

TIMEOUT = 240


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    import json

    command = [sys.executable, "-m", "tests.robustness.hostile_cases", *CASES]
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=TIMEOUT, env=python_env(), cwd=ROOT
        )
        stdout = completed.stdout
    except subprocess.TimeoutExpired as error:  # the cases that finished still count
        raw = error.stdout or ""
        stdout = raw.decode() if isinstance(raw, bytes) else raw
    found = {}
    for line in stdout.splitlines():
        report = json.loads(line)
        found[report["case"]] = report
    return found


def report_of(reports: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    assert name in reports, f"{name} did not finish within {TIMEOUT} s (a hang) or crashed hard"
    report = reports[name]
    assert report["kind"] != "crash", f"{name}: {report['type']}: {report['message']}"
    return report


def value_of(reports: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    report = report_of(reports, name)
    assert report["kind"] == "ok", f"{name} raised {report['type']}: {report['message']}"
    return report["value"]  # type: ignore[no-any-return]


def error_of(reports: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    report = report_of(reports, name)
    assert report["kind"] == "error", f"{name} returned {report['value']}"
    assert report["message"].strip()
    assert report["message_len"] < 500, "the error message is not short enough to read"
    return report


# --- json_match ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["json_deep_dicts", "json_deep_dicts_average_lists", "json_deep_json_text"]
)
def test_json_match_10000_levels_is_a_clear_error(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    report = error_of(reports, name)
    assert report["type"] == "ValueError"
    assert "nested too deeply" in report["message"]


@pytest.mark.parametrize("name", ["json_deep_dicts_nested", "json_deep_list_value"])
def test_json_match_10000_levels_against_a_plain_value_is_a_clear_error(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    # Every value becomes JSON data first, at any depth, so how deep a value may go does not
    # depend on what it is compared with.
    report = error_of(reports, name)
    assert report["type"] == "ValueError"
    assert report["message"] == "outputs: nested too deeply to compare"


def test_json_match_self_referencing_values_are_clear_errors(
    reports: dict[str, dict[str, Any]],
) -> None:
    # A value that contains itself has no JSON form, whatever it is compared with.
    expected = {
        "json_self_dict_against_scalar": "outputs.x.self: the value contains itself",
        "json_self_dict_top_level": "outputs.self: the value contains itself",
        "json_self_dicts": "outputs.x.self: the value contains itself",
        "json_self_lists_in_records": "outputs[0].x[1]: the value contains itself",
    }
    for name, start in expected.items():
        report = error_of(reports, name)
        assert report["type"] == "ValueError"
        assert report["message"].startswith(start), (name, report["message"])


def test_json_match_10_mb_strings(reports: dict[str, dict[str, Any]]) -> None:
    equal = value_of(reports, "json_big_string_equal")
    assert equal["scores"] == [1]
    differs = value_of(reports, "json_big_string_differs")
    assert differs["scores"] == [0.5] and differs["comment_max"] < 300
    # The case itself allocates 20 MB of strings; the evaluation adds at most one more copy.
    for name in ["json_big_string_equal", "json_big_string_differs"]:
        assert reports[name]["peak_mb"] < 35


def test_json_match_100000_keys(reports: dict[str, dict[str, Any]]) -> None:
    value = value_of(reports, "json_100k_keys")
    assert value["scores"] == [0.99999]
    assert value["per_key_count"] == 100_000
    assert value["per_key_low"] == ["json_match:key 7"]
    assert reports["json_100k_keys"]["peak_mb"] < 200
    every = value_of(reports, "json_100k_keys_all_differ")
    assert every["scores"] == [0.0]
    assert every["comment_max"] < 500  # the comment names a few differences, not 100,000


def test_json_match_20000_records(reports: dict[str, dict[str, Any]]) -> None:
    value = value_of(reports, "json_20k_records")
    assert value["scores"] == [1.0] and value["pairs_ok"]
    assert reports["json_20k_records"]["peak_mb"] < 100
    changed = value_of(reports, "json_20k_records_one_changed")
    assert changed["scores"] == [0.99995]


def test_json_match_nested_paths_at_scale(reports: dict[str, dict[str, Any]]) -> None:
    assert value_of(reports, "json_nested_100k_keys")["scores"] == [0.99999]
    value = value_of(reports, "json_nested_20k_records_in_a_list_field")
    # one leaf wrong in one of 20,000 records (each with a few scored paths): just below 1
    assert value["count"] == 1
    assert 1 - 1 / 40_000 < value["scores"][0] < 1
    assert value["comment_max"] < 300


# --- graph_trajectory ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["graph_deep_results", "graph_self_referencing_results"])
def test_graph_results_too_deep_or_cyclic_is_a_clear_error(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    report = error_of(reports, name)
    assert report["type"] == "ValueError"
    assert report["message"].startswith("outputs.results")


def test_graph_hostile_steps_are_clear_errors(reports: dict[str, dict[str, Any]]) -> None:
    deep = error_of(reports, "graph_deep_steps")
    assert deep["message"] == "outputs.steps[0][0] is a list, expected a node name (str)"
    cyclic = error_of(reports, "graph_self_referencing_steps")
    assert cyclic["message"] == "outputs.steps[0] is an int, expected a list of node names"


def test_graph_10_mb_node_names_keep_comments_short(reports: dict[str, dict[str, Any]]) -> None:
    value = value_of(reports, "graph_big_node_name")
    assert value["score"] == 0.5
    assert value["comment_len"] < 400
    assert reports["graph_big_node_name"]["peak_mb"] < 40


def test_graph_20000_supersteps(reports: dict[str, dict[str, Any]]) -> None:
    partial = value_of(reports, "graph_20k_supersteps")
    assert partial["score"] == 0.99995
    assert partial["comment"].startswith("run 0, superstep 19999 ")
    assert reports["graph_20k_supersteps"]["peak_mb"] < 50
    assert value_of(reports, "graph_20k_supersteps_repeat")["score"] is True
    runs = value_of(reports, "graph_20k_runs")
    assert runs["score"] is False and runs["comment"].startswith("run 19999, superstep 1 ")
    optional = value_of(reports, "graph_2k_optional_steps")
    assert optional["score"] is False and optional["comment_len"] < 600
    rules = value_of(reports, "graph_rules_20k_supersteps")
    assert rules["scores"] == [True, True, True]


def test_graph_partial_credit_on_long_different_runs(reports: dict[str, dict[str, Any]]) -> None:
    # 2,000 supersteps shifted by one: the best alignment leaves one out on each side.
    assert value_of(reports, "graph_2k_supersteps_all_shifted_partial")["score"] == 0.9995
    # one superstep of 100,000 nodes in exact mode, rotated by one: LCS 99,999 of 100,000
    assert value_of(reports, "graph_100k_node_superstep_exact_partial")["score"] == 0.99999
    # past the alignment's size limit: a clear error, not minutes of work
    report = error_of(reports, "graph_partial_credit_past_the_limit")
    assert report["type"] == "ValueError" and "use strict matching" in report["message"]
