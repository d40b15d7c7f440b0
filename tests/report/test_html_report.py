"""The HTML report without a browser: what the page embeds, from the command line
(``--format html``, ``matchevals report``) and from Python (results, values, ``langsmith.evaluate``
rows); that it loads nothing from anywhere; and what a 100,000-example run embeds.

``test_report_in_browser.py`` opens these pages in Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from langsmith import evaluate
from langsmith.evaluation import EvaluationResult
from langsmith.schemas import Example

from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
from matchevals.json_match import create_json_match_evaluator
from matchevals.report import DEFAULT_DETAILS, render_html_report, write_html_report
from tests.cli.helpers import no_traceback, run, write_jsonl
from tests.langsmith_offline import offline_client
from tests.report.runs import (
    PATTERN,
    RUNS,
    Run,
    document_of,
    graph_run,
    hundred_thousand,
    json_run,
)
from tests.test_examples import EXAMPLES

# langsmith 0.3.45 (the lower bound) drops a result's "metadata" inside evaluate (its
# EvaluationResult has no such field), so a row's differences cannot be located; 0.15.1 keeps it.
KEEPS_METADATA = "metadata" in (  # a pydantic v1 model there, v2 here
    getattr(EvaluationResult, "model_fields", None) or EvaluationResult.__fields__
)


@pytest.fixture(scope="module")
def people(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return json_run(tmp_path_factory.mktemp("people"))


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return graph_run(tmp_path_factory.mktemp("graphs"))


def test_the_page_loads_nothing_from_anywhere(people: Run) -> None:
    page = people.page().read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in page  # the Content-Security-Policy
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert not re.search(r"<script[^>]+src=|<link[^>]+stylesheet|@import|url\(", page)
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|importScripts)\b", page)
    assert page.count("<script") == 2 and page.count("<style>") == 1  # data and code, inline


def test_the_cli_page_holds_what_the_summary_says(people: Run) -> None:
    summary, lines = people.summary(), people.lines()
    document = document_of(people.page().read_text())
    shown = document["summary"]
    for fact in ("examples_scored", "invalid", "mean_score", "passed", "failed_because"):
        assert shown[fact] == summary[fact], fact
    assert shown["passed"] is False and shown["fail_under"] == 0.9
    assert shown["id_key"] == "id" and shown["files"] == [str(f) for f in people.files]
    rows = document["rows"]
    assert rows["score"] == [line["score"] for line in lines]  # every score, in input order
    assert [rows["where_prefix"] + where for where in rows["where"]] == [
        line["where"] for line in lines
    ]
    assert rows["id"] == [line["id"] for line in lines]
    per_key = {row["key"]: (row["mean"], row["count"]) for row in document["keys"]}
    assert per_key == {k: (v["mean"], v["count"]) for k, v in summary["per_key"].items()}
    assert len(document["details"]) == 60  # fewer than --html-details: all of them


def test_an_example_in_detail_has_its_differences_on_both_sides(people: Run) -> None:
    line = next(line for line in people.lines() if line["id"] == "p-08")  # city is Lyon
    detail = document_of(people.page().read_text())["details"][str(line["index"])]
    assert detail["outputs"] == line["outputs"] and "id" not in line["outputs"]  # --id-key
    assert detail["reference_outputs"] == line["reference_outputs"]
    assert (line["outputs"]["address"]["city"], line["reference_outputs"]["address"]["city"]) == (
        "Lyon",
        "Paris",
    )
    found = [
        (d["key"], d["at_expected"], d["at_actual"], d["expected"], d["actual"])
        for d in detail["differences"]
    ]
    city = ["address", "city"]
    assert found == [("json_match:address.city", city, city, '"Paris"', '"Lyon"')]
    assert [r["key"] for r in detail["results"]] == [r["key"] for r in line["results"]]


def test_details_are_for_the_worst_n_and_every_score_stays(people: Run) -> None:
    lines = people.lines()
    document = document_of(people.page("five.html", "--html-details", "5").read_text())
    worst = sorted(lines, key=lambda line: (line["score"], line["index"]))[:5]
    assert sorted(document["details"], key=int) == sorted(str(line["index"]) for line in worst)
    assert len(document["rows"]["score"]) == 60 and document["details_limit"] == 5


def test_a_saved_run_makes_the_same_page(people: Run) -> None:
    folder = people.folder
    saved = folder / "run.jsonl"
    assert people.cli("--format", "jsonl", "-o", str(saved)).returncode == 1
    completed = run("report", saved)
    no_traceback(completed)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == (
        f"matchevals: wrote {folder / 'run.html'}: 60 examples, full details for the 60 "
        "lowest-scoring\n"
    )
    assert document_of((folder / "run.html").read_text()) == document_of(people.page().read_text())


def test_a_saved_run_cut_short_still_makes_a_page_and_says_so(people: Run) -> None:
    folder = people.folder
    saved = folder / "cut.jsonl"
    people.cli("--format", "jsonl", "-o", str(saved))
    lines = saved.read_text().splitlines()
    saved.write_text("\n".join(lines[:10]) + "\n")  # no summary line
    completed = run("report", saved, "-o", folder / "cut.html", "--title", "cut short")
    assert completed.returncode == 0, completed.stderr
    document = document_of((folder / "cut.html").read_text())
    assert document["summary"]["examples_scored"] == 10
    assert document["summary"]["warnings"] == [
        f"{saved} has no summary line: the run may have been cut short"
    ]
    assert "<title>cut short</title>" in (folder / "cut.html").read_text()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"a": 1}\n', 'x.jsonl:1: not a line of a --format jsonl run (no "type" of example,'),
        (
            '{"type": "example", "results": 3}\n',
            "x.jsonl:1: the example line['results'] is a number; expected an evaluator result",
        ),
        ("\n", "x.jsonl: holds no lines of a --format jsonl run"),
        ('{"type": "summary"\n', "x.jsonl:1: not valid JSON"),
    ],
)
def test_report_refuses_what_is_not_a_saved_run(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "x.jsonl").write_text(content)
    completed = run("report", "x.jsonl", cwd=tmp_path)
    no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"matchevals: error: {message}"), completed.stderr
    assert not (tmp_path / "x.html").exists()


def test_report_never_overwrites_its_run(tmp_path: Path) -> None:
    (tmp_path / "x.html").write_text('{"type": "summary"}\n')
    completed = run("report", "x.html", cwd=tmp_path)
    assert completed.returncode == 2
    assert "the report would overwrite the run it is made from" in completed.stderr
    assert (tmp_path / "x.html").read_text() == '{"type": "summary"}\n'


def test_a_graph_page_draws_each_run_against_its_reference(graphs: Run) -> None:
    lines = graphs.lines()
    document = document_of(graphs.page("graph.html").read_text())
    assert document["summary"]["kind"] == "graph"
    steps = {row["key"]: row for row in document["keys"] if row["superstep"]}
    assert steps["superstep 2"]["unchecked"] == 1 and steps["superstep 2"]["count"] == 2
    (lane,) = document["details"]["1"]["swimlanes"]  # t-1 leaves the pattern at superstep 1
    metadata = lines[1]["results"][0]["metadata"]["runs"][0]
    assert lane["divergence"] == metadata["divergence"]["superstep"] == 1
    assert [c["verdict"] for c in lane["columns"]] == metadata["verdicts"]
    assert [c["first_divergence"] for c in lane["columns"]] == [False, True, False, False]
    assert [c["actual"] for c in lane["columns"]] == RUNS[1]["steps"]
    assert [(c["nodes"], c["mode"]) for c in lane["columns"][:2]] == [
        (["plan"], "exact"),
        (["tools"], "unordered"),  # what the pattern expected where the run went elsewhere
    ]
    located = document["details"]["1"]["differences"]
    assert [(d["kind"], d["at_actual"], d["at_expected"]) for d in located] == [
        ("divergence", ["steps", 1], ["steps", 1, "repeat", 0])
    ]
    assert PATTERN["steps"][1]["repeat"][0] == ["tools"]  # type: ignore[index]


def results_for(pairs: list[tuple[Any, Any]]) -> list[dict[str, Any]]:
    evaluator = create_json_match_evaluator(aggregator="average")
    return [
        {"results": evaluator(outputs=o, reference_outputs=r), "outputs": o,
         "reference_outputs": r, "id": f"e{i}"}
        for i, (o, r) in enumerate(pairs)
    ]  # fmt: skip


def test_from_python_with_values(tmp_path: Path) -> None:
    pairs = [({"a": 1, "b": 2}, {"a": 1, "b": 3}), ({"a": 1}, {"a": 1})]
    path = write_html_report(results_for(pairs), tmp_path / "r.html", title="mine", fail_under=0.8)
    document = document_of(path.read_text(encoding="utf-8"))
    assert document["summary"] | {} == document["summary"]
    summary = document["summary"]
    assert (summary["title"], summary["examples_scored"], summary["mean_score"]) == (
        "mine",
        2,
        0.75,
    )
    assert summary["passed"] is False
    assert summary["failed_because"] == ["the mean score 0.75 is below --fail-under 0.8"]
    assert document["rows"]["id"] == ["e0", "e1"]
    assert [
        (d["at_expected"], d["at_actual"]) for d in document["details"]["0"]["differences"]
    ] == [(["b"], ["b"])]


def test_from_python_with_results_alone() -> None:
    evaluator = create_json_match_evaluator()
    results = [evaluator(outputs={"a": i}, reference_outputs={"a": 1}) for i in range(3)]
    document = document_of(render_html_report(results))
    assert document["rows"]["score"] == [0.0, 1.0, 0.0]
    assert document["summary"]["passed"] is None  # no gate given
    assert document["details"]["0"]["omitted"] == "only results were given, not the values"


def test_a_graph_threshold_in_the_results_is_a_gate() -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=True, threshold=0.8)
    reference = {"inputs": None, "results": None, "steps": [["a"], ["b"], ["c"]]}
    steps = ([["a"], ["b"], ["c"]], [["a"], ["x"], ["c"]])
    runs = [{"inputs": None, "results": None, "steps": s} for s in steps]
    examples = [
        {"results": evaluator(outputs=r, reference_outputs=reference), "outputs": r,
         "reference_outputs": reference} for r in runs
    ]  # fmt: skip
    summary = document_of(render_html_report(examples))["summary"]
    assert summary["threshold"] == 0.8 and summary["below_threshold"] == 1
    assert summary["passed"] is False
    assert summary["failed_because"] == ["1 example scored below --threshold 0.8"]


def test_from_a_langsmith_evaluate_run() -> None:
    people = [("Ann", 30, 30), ("Bob", 40, 41), ("Cy", 5, 5)]
    data = [
        Example(
            id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs={"name": name, "age": said},
            outputs={"name": name, "age": age}, created_at=datetime.now(timezone.utc),
        )
        for name, age, said in people
    ]  # fmt: skip
    rows = list(
        evaluate(
            lambda inputs: dict(inputs),
            data=data,
            evaluators=[create_json_match_evaluator(aggregator="average")],
            upload_results=False,
            client=offline_client(),
        )
    )
    document = document_of(render_html_report(rows))
    by_id = dict(zip(document["rows"]["id"], document["rows"]["score"], strict=True))
    assert by_id == {str(item.id): (0.5 if name == "Bob" else 1.0) for item, (name, *_) in
                     zip(data, people, strict=True)}  # fmt: skip
    bob = str(data[1].id)
    detail = next(
        d for d in document["details"].values() if document["rows"]["id"][d["index"]] == bob
    )
    assert detail["outputs"] == {"name": "Bob", "age": 41}
    assert detail["reference_outputs"] == {"name": "Bob", "age": 40}
    located = [(d["at_expected"], d["at_actual"]) for d in detail["differences"]]
    assert located == ([(["age"], ["age"])] if KEEPS_METADATA else [])


@pytest.mark.parametrize(
    ("examples", "error", "message"),
    [
        ([{"key": "a", "score": 1}, 7], TypeError, "examples[1] is a number; expected an "),
        ([{"score": 1}], TypeError, "examples[0] has no 'key': a result is"),
        ([{"results": [{"key": "a", "score": 1}, "x"]}], TypeError, "examples[0]['results'][1] is"),
    ],
)
def test_bad_examples_are_named(examples: list[Any], error: type, message: str) -> None:
    with pytest.raises(error) as raised:
        render_html_report(examples)
    assert str(raised.value).startswith(message)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match=r"^details must be a whole number >= 0; got -1$"):
        render_html_report([], details=-1)
    with pytest.raises(ValueError, match=r"^fail_under must be a number in \[0, 1\]; got 2$"):
        render_html_report([], fail_under=2)


def test_values_cannot_end_the_script_early() -> None:
    nasty = {"text": "</script><script>alert(1)</script>\u2028<!--"}
    page = render_html_report(results_for([(nasty, {"text": "x"})]))
    assert page.count("</script>") == 2  # the data's and the code's own
    assert document_of(page)["details"]["0"]["outputs"] == nasty
    assert "<title>matchevals report</title>" in page


def test_a_hundred_thousand_examples_embed_every_score_and_the_worst_in_full() -> None:
    """What keeps the page quick to open: 100,000 scores, ids and one-line reasons, and the
    values and differences of the worst 1,000 only."""
    page = render_html_report(hundred_thousand())
    document = document_of(page)
    assert len(document["rows"]["score"]) == 100_000
    assert document["rows"]["id"][99_999] == "ex-99999"
    assert len(document["details"]) == DEFAULT_DETAILS == 1000
    worst = sorted(int(index) for index in document["details"])
    assert worst == list(range(3, 4000, 4))  # both keys wrong, in input order
    assert len(page) < 6_000_000  # ~35 bytes a row (reasons stored once), ~1 kB a detail
    assert document["details"]["3"]["outputs"] == {
        "name": "Ann", "age": 31, "city": "Lyon", "tags": ["a", "b"],
    }  # fmt: skip
    assert document["rows"]["why_texts"][document["rows"]["why"][3]] == (
        'age: expected 30, got 31; city: expected "Paris", got "Lyon"'
    )


def test_an_input_problem_is_on_the_page(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}], raw={1: '{"a": '})
    references = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 2}])
    completed = run("json", outputs, references, "--format", "html", "-o", tmp_path / "p.html")
    assert completed.returncode == 2
    document = document_of((tmp_path / "p.html").read_text())
    assert document["summary"]["invalid"] == 1 and document["problems_total"] == 1
    (problem,) = document["problems"]
    assert problem["where"] == f"{outputs}:2"
    assert problem["message"].startswith('not valid JSON at column 6 (expecting value): {"a":')


def test_the_example_writes_a_report_of_a_langsmith_run(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "html_report.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[-1] == f"wrote {tmp_path / 'report.html'} (4 examples)"
    document = document_of((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert sorted(document["rows"]["score"]) == [pytest.approx(1 / 3), 1.0, 1.0, 1.0]
    assert document["summary"]["passed"] is False  # the mean 0.833 is below 0.9
    (detail,) = [d for d in document["details"].values() if d["outputs"]["name"] == "Di"]
    located = [(d["path"], d["expected"], d["actual"]) for d in detail["differences"]]
    assert located == ([("age", "62", "63"), ("city", '"Lyon"', "null")] if KEEPS_METADATA else [])


def test_a_trajectory_difference_is_located_on_both_sides() -> None:
    """An argument that differs is the argument's node on each side (LangChain ``args``), or
    its call's arguments where they are JSON text (OpenAI); named with its tool and ``args``;
    an extra call is the call, with its tool's name."""
    from matchevals.report import render_html_report
    from matchevals.trajectory import create_trajectory_match_evaluator
    from tests.report.runs import document_of

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")

    def call(name: str, arguments: str) -> dict[str, Any]:
        return {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": name, "arguments": arguments}}]}  # fmt: skip

    outputs = [{"role": "user", "content": "hi"}, call("weather", '{"city": "Paris"}'),
               call("extra", "{}")]  # fmt: skip
    references = [{"role": "user", "content": "hi"}, call("weather", '{"city": "Lyon"}')]
    chat = {"messages": [{"role": "ai", "content": "", "tool_calls": [
        {"name": "weather", "args": {"city": "Rome"}, "id": "1"}]}]}  # fmt: skip
    expected = {"messages": [{"role": "ai", "content": "", "tool_calls": [
        {"name": "weather", "args": {"city": "Oslo"}, "id": "1"}]}]}  # fmt: skip
    examples = [
        {"outputs": outputs, "reference_outputs": references,
         "results": evaluator(outputs=outputs, reference_outputs=references)},
        {"outputs": chat, "reference_outputs": expected,
         "results": evaluator(outputs=chat, reference_outputs=expected)},
    ]  # fmt: skip
    details = document_of(render_html_report(examples))["details"]
    found = [
        (d["kind"], d["path"], d["at_expected"], d["at_actual"], d["expected"], d["actual"])
        for detail in details.values()
        for d in detail["differences"]
    ]
    arguments = [1, "tool_calls", 0, "function", "arguments"]
    assert sorted(found, key=str) == sorted([
        ("arg", "weather args.city", arguments, arguments, '"Lyon"', '"Paris"'),
        ("extra_call", "[2].tool_calls[0]", None, [2, "tool_calls", 0], "—", "extra({})"),
        ("arg", "weather args.city", ["messages", 0, "tool_calls", 0, "args", "city"],
         ["messages", 0, "tool_calls", 0, "args", "city"], '"Oslo"', '"Rome"'),
    ], key=str)  # fmt: skip
