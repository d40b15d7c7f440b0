"""``--any-of-key`` through the real entry point: a reference line holding alternatives scores
as the best of them, on ``json``, ``trajectory`` and ``graph``; without the flag it is an
ordinary reference, and a bad one is an invalid example naming its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.helpers import as_json, no_traceback, run, write_jsonl


def scored_lines(completed: Any) -> list[dict[str, Any]]:
    assert completed.returncode in (0, 1), completed.stderr
    no_traceback(completed)
    return [json.loads(line) for line in completed.stdout.splitlines()][:-1]  # the summary last


def test_json_scores_each_example_as_its_best_alternative(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", [{"city": "Paris, France"}, {"city": "Lyon"}])
    references = write_jsonl(
        tmp_path / "ref.jsonl",
        [
            {"any_of": [{"city": "Paris"}, {"city": "Paris, France"}]},
            {"any_of": [{"city": "Marseille"}, {"city": "Nice"}]},
        ],
    )
    args = ("json", outputs, references, "--aggregator", "all", "--format", "jsonl")
    first, second = scored_lines(run(*args, "--any-of-key", "any_of"))
    assert first["score"] == 1
    assert first["results"][0]["metadata"]["any_of"] == {"chosen": 1, "scores": [0, 1]}
    assert second["score"] == 0
    assert second["results"][0]["comment"] == (
        'best of 2 alternatives, reference_outputs.any_of[0]: city: expected "Marseille", '
        'got "Lyon"'
    )
    # without the flag, {"any_of": [...]} is an ordinary reference with a key "any_of"
    plain = scored_lines(run(*args))
    assert [line["score"] for line in plain] == [0, 0]
    assert all("any_of" not in (line["results"][0]["metadata"] or {}) for line in plain)


def test_trajectory_and_graph_take_the_flag_too(tmp_path: Path) -> None:
    def ai(name: str) -> list[dict[str, Any]]:
        return [{"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": {}}]}]

    outputs = write_jsonl(tmp_path / "calls.jsonl", [ai("b"), ai("c")])
    references = write_jsonl(tmp_path / "accepted.jsonl", [{"one_of": [ai("a"), ai("b")]}] * 2)
    completed = run(
        "trajectory", outputs, references, "--any-of-key", "one_of", "--format", "jsonl"
    )
    assert [line["score"] for line in scored_lines(completed)] == [1, 0]

    def steps(*nodes: str) -> dict[str, Any]:
        return {"steps": [[node] for node in nodes]}

    runs = write_jsonl(tmp_path / "runs.jsonl", [steps("plan", "write"), steps("plan", "x")])
    reference = tmp_path / "routes.json"  # one reference file for every run
    reference.write_text(json.dumps({"any_of": [steps("plan", "search", "write"), steps("plan", "write")]}))  # fmt: skip # noqa: E501
    completed = run("graph", runs, reference, "--any-of-key", "any_of", "--format", "jsonl")
    lines = scored_lines(completed)
    assert [line["score"] for line in lines] == [1, 0]
    assert lines[0]["results"][0]["metadata"]["any_of"] == {"chosen": 1, "scores": [False, True]}


def test_a_bad_list_of_alternatives_is_an_invalid_example(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}, {"a": 1}])
    references = write_jsonl(tmp_path / "ref.jsonl", [{"any_of": []}, {"any_of": {"a": 1}}])
    completed = run("json", outputs, references, "--any-of-key", "any_of", "--format", "json")
    assert completed.returncode == 2
    no_traceback(completed)
    summary = as_json(completed)
    assert summary["invalid"] == 2
    text = json.dumps(summary)
    assert "reference_outputs.any_of is an empty list" in text
    assert "reference_outputs.any_of is an object; expected a list" in text
