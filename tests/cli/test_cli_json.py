"""``matchevals json`` through the real entry point: formats, gates, pairing, bad input."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from matchevals.cli import main
from tests.cli.helpers import as_json, no_traceback, run, write_jsonl

PEOPLE = [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 40}, {"name": "Cy", "age": 5}]
ANSWERS = [{"name": "Ann", "age": 30}, {"name": "Bob", "age": 41}, {"name": "Cy", "age": 5}]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "out.jsonl", ANSWERS), write_jsonl(tmp_path / "ref.jsonl", PEOPLE)


def summary_of(capsys: pytest.CaptureFixture[str], *args: object) -> dict[str, object]:
    """Run ``main`` in this process (for checks of details; the formats and gates above
    also go through the real entry point)."""
    capsys.readouterr()
    main([*map(str, args), "--format", "json"])
    summary: dict[str, object] = json.loads(capsys.readouterr().out)["summary"]
    return summary


def test_json_format_summarizes_scores_per_key_and_the_worst_examples(
    files: tuple[Path, Path],
) -> None:
    completed = run("json", *files, "--format", "json")
    assert completed.returncode == 0, completed.stderr
    summary = as_json(completed)
    assert summary["examples_scored"] == 3
    assert summary["invalid"] == 0
    assert summary["mean_score"] == pytest.approx(2.5 / 3)
    assert summary["per_key"] == {
        "json_match:age": {"mean": pytest.approx(2 / 3), "count": 3},
        "json_match:name": {"mean": 1.0, "count": 3},
    }
    (worst,) = summary["worst"]  # type: ignore[misc]
    assert worst["where"] == f"{files[0]}:2"
    assert worst["score"] == 0.5
    assert worst["results"][0]["comment"] == "age: expected 40, got 41"


def test_table_format_is_a_readable_summary(files: tuple[Path, Path]) -> None:
    completed = run("json", *files)
    assert completed.returncode == 0
    out = completed.stdout
    assert "matchevals json: 3 examples scored, 0 invalid, mean score 0.8333" in out
    assert "json_match:age" in out and "0.6667" in out
    assert "age: expected 40, got 41" in out
    assert "\x1b[" not in out  # no colour codes when not on a terminal


def test_jsonl_format_streams_one_line_per_example_then_the_summary(
    files: tuple[Path, Path],
) -> None:
    completed = run("json", *files, "--format", "jsonl", "--aggregator", "average")
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["example", "example", "example", "summary"]
    assert [line["score"] for line in lines[:3]] == [1.0, 0.5, 1.0]
    assert [line["index"] for line in lines[:3]] == [0, 1, 2]
    assert lines[1]["results"] == [
        {
            "key": "json_match:average",
            "score": 0.5,
            "comment": "age: expected 40, got 41",
            "metadata": lines[1]["results"][0]["metadata"],
        }
    ]
    assert lines[3]["mean_score"] == pytest.approx(2.5 / 3)


def test_markdown_format_is_a_ci_comment(files: tuple[Path, Path]) -> None:
    completed = run("json", *files, "--format", "markdown", "--fail-under", "0.9")
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0] == "### matchevals json — FAILED (fail-under 0.9)"
    assert "**3** examples scored, **0** invalid, mean score **0.8333**" in lines
    assert "| json_match:age | 0.6667 | 3 |" in lines
    assert f"| {files[0]}:2 | 0.5 | age: expected 40, got 41 |" in lines


def test_output_file_gets_the_report_and_stdout_stays_empty(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "report.json"
    completed = run("json", *files, "--format", "json", "--output", target)
    assert completed.returncode == 0
    assert completed.stdout == ""
    assert json.loads(target.read_text()) == json.loads(
        run("json", *files, "--format", "json").stdout
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_text_only_stdout_gets_the_lines_decoded_then_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """Report lines are made as bytes in the report's encoding; a standard output with no
    binary buffer (an ``io.StringIO`` in its place) gets them as text, in order."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"name": "Zoë", "i": i} for i in range(2500)])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"name": "Zoé", "i": i} for i in range(2500)])
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(["json", str(out), str(ref), "--format", "jsonl", "--workers", workers]) == 0
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["index"] for line in lines[:-1]] == list(range(2500))
    assert lines[0]["outputs"] == {"name": "Zoë", "i": 0}
    assert lines[-1]["type"] == "summary" and lines[-1]["examples_scored"] == 2500


def test_where_newlines_are_translated_the_lines_go_through_the_text_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On Windows a text handle writes ``\\n`` as ``\\r\\n``: lines made as bytes are
    written as text there too, so the report's line ends agree."""
    outputs = write_jsonl(tmp_path / "out.jsonl", [{"city": "Zürich"}, {"city": "Bern"}])
    references = write_jsonl(tmp_path / "ref.jsonl", [{"city": "Zurich"}, {"city": "Bern"}])
    binary = io.BytesIO()
    stdout = io.TextIOWrapper(binary, encoding="ascii", newline="\r\n")
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(os, "linesep", "\r\n")
    assert main(["json", str(outputs), str(references), "--format", "jsonl"]) == 0
    stdout.flush()
    written = binary.getvalue()
    lines = written.split(b"\r\n")
    assert lines[-1] == b"" and all(b"\n" not in line for line in lines)
    assert [json.loads(line)["type"] for line in lines[:-1]] == ["example", "example", "summary"]
    assert json.loads(lines[0])["outputs"] == {"city": "Zürich"}


@pytest.mark.parametrize(("bar", "status"), [("0.9", 1), ("0.8333", 0), ("0", 0), ("1", 1)])
def test_fail_under_is_a_ci_gate(files: tuple[Path, Path], bar: str, status: int) -> None:
    assert main(["json", *map(str, files), "--fail-under", bar]) == status


def test_fail_under_with_nothing_scored_fails(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run("json", empty, empty, "--fail-under", "0").returncode == 1
    assert main(["json", str(empty), str(empty)]) == 0
    empty.write_text("\n\n")  # blank lines at the end of a file are not examples
    assert main(["json", str(empty), str(empty), "--fail-under", "0"]) == 1
    assert main(["json", str(empty), str(empty)]) == 0


def test_id_key_pairs_by_id_and_is_not_scored(tmp_path: Path) -> None:
    outputs = write_jsonl(
        tmp_path / "out.jsonl",
        [{"id": 3, "name": "Cy"}, {"id": 1, "name": "Ann"}, {"id": 2, "name": "Bobby"}],
    )
    references = write_jsonl(
        tmp_path / "ref.jsonl",
        [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}],
    )
    by_id = run("json", outputs, references, "--id-key", "id", "--format", "jsonl")
    lines = [json.loads(line) for line in by_id.stdout.splitlines()]
    assert [(line["id"], line["score"]) for line in lines[:3]] == [(3, 1.0), (1, 1.0), (2, 0.0)]
    assert [r["key"] for r in lines[0]["results"]] == ["json_match:name"]  # "id" removed
    by_position = as_json(run("json", outputs, references, "--format", "json"))
    assert by_position["mean_score"] < 1 / 3


def test_id_key_problems_name_file_and_line(tmp_path: Path) -> None:
    outputs = write_jsonl(
        tmp_path / "out.jsonl",
        [{"id": "a", "x": 1}, {"x": 2}, {"id": "zz", "x": 3}, {"id": "a", "x": 1}],
    )
    references = write_jsonl(
        tmp_path / "ref.jsonl", [{"id": "a", "x": 1}, {"id": "b", "x": 2}, {"id": "b", "x": 9}]
    )
    completed = run("json", outputs, references, "--id-key", "id", "--format", "json")
    assert completed.returncode == 2
    summary = as_json(completed)
    assert summary["examples_scored"] == 1
    assert [(p["where"], p["message"]) for p in summary["problems"]] == [  # type: ignore[union-attr]
        (f"{references}:3", f"duplicate id 'b' (first at {references}:2)"),
        (f"{outputs}:2", "the example has no 'id' (the --id-key)"),
        (f"{outputs}:3", "no reference with id 'zz'"),
        (f"{outputs}:4", "duplicate id 'a' in the outputs"),
        (
            f"{references}:2",
            "no output with id 'b' (not counted again: it may be one of the output lines "
            "whose id could not be read)",
        ),
    ]
    assert summary["invalid"] == 4  # out.jsonl:2 has no id: it may be the output of 'b'


def test_malformed_lines_are_reported_counted_and_the_rest_is_scored(tmp_path: Path) -> None:
    outputs = write_jsonl(
        tmp_path / "out.jsonl", ANSWERS, raw={1: "{not json", 3: '"just a string"'}
    )
    references = write_jsonl(
        tmp_path / "ref.jsonl",
        [PEOPLE[0], {"name": "?"}, PEOPLE[1], {"name": "?"}, PEOPLE[2], {"n": 1}],
    )
    completed = run("json", outputs, references, "--format", "json")
    no_traceback(completed)
    assert completed.returncode == 2
    summary = as_json(completed)
    assert summary["examples_scored"] == 3
    assert summary["mean_score"] == pytest.approx(2.5 / 3)
    problems = [(p["where"], p["message"][:21]) for p in summary["problems"]]  # type: ignore[union-attr]
    assert problems == [
        (f"{outputs}:2", "not valid JSON at col"),
        (f"{outputs}:4", "cannot score: outputs"),
        (f"{references}:6", "no partner: the outpu"),
    ]
    assert f"matchevals: {outputs}:2: not valid JSON" in completed.stderr
    skipped = run("json", outputs, references, "--skip-invalid")
    assert skipped.returncode == 0
    assert "3 examples scored, 3 invalid" in skipped.stdout
    assert f"{outputs}:2: not valid JSON" in skipped.stdout


def test_workers_give_the_same_results_in_the_same_order(tmp_path: Path) -> None:
    count = 4500  # several chunks (of CHUNK_LINES) per worker
    outputs = [{"k": i, "v": i % 7, "tags": [i % 3, i % 5]} for i in range(count)]
    references = [{"k": i, "v": i % 5, "tags": [i % 5, i % 3]} for i in range(count)]
    out = write_jsonl(tmp_path / "out.jsonl", outputs, raw={10: "oops", 700: "[1,"})
    ref = write_jsonl(tmp_path / "ref.jsonl", [*references, {"k": -1}, {"k": -2}])
    one = run("json", out, ref, "--format", "jsonl", "--workers", "1", "--aggregator", "average")
    two = run("json", out, ref, "--format", "jsonl", "--workers", "2", "--aggregator", "average")
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout
    lines = [json.loads(line) for line in two.stdout.splitlines()]
    examples = [line for line in lines if line["type"] == "example"]
    assert [e["index"] for e in examples] == list(range(count))
    assert lines[-1]["invalid"] == 2


def test_evaluator_options_are_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = write_jsonl(tmp_path / "o.jsonl", [[{"a": 1, "skip": 1}, {"a": 2, "skip": 2}]])
    ref = write_jsonl(tmp_path / "r.jsonl", [[{"a": 2, "skip": 0}, {"a": 1, "skip": 0}]])
    default = summary_of(capsys, "json", out, ref, "--aggregator", "average")
    assert default["mean_score"] == 0.0  # "skip" differs in every pairing
    excluded = summary_of(
        capsys, "json", out, ref, "--aggregator", "average", "--exclude-keys", "skip"
    )
    assert excluded["mean_score"] == 1.0
    ordered = summary_of(
        capsys, "json", out, ref, "--aggregator", "average",
        "--exclude-keys", "skip", "--list-match-mode", "ordered",
    )  # fmt: skip
    assert ordered["mean_score"] == 0.0
    averaged = summary_of(
        capsys, "json", out, ref, "--aggregator", "none",
        "--exclude-keys=skip,a", "--list-aggregator", "average",
    )  # fmt: skip
    assert averaged["per_key"] == {}


def test_every_expressible_factory_option_has_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    import inspect

    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
    from matchevals.json_match import create_json_match_evaluator

    for command, factory, skipped in [
        ("json", create_json_match_evaluator, {"judge"}),  # --model names the judge instead
        ("graph", create_graph_trajectory_match_evaluator, {"results_evaluator"}),
    ]:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        usage = capsys.readouterr().out
        for name in inspect.signature(factory).parameters.keys() - skipped:
            assert "--" + name.replace("_", "-") in usage, name


def test_comparator_flags_build_the_built_in_comparators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matchevals.json_match.comparators")
    out = write_jsonl(tmp_path / "o.jsonl", [{"price": 10.004, "name": " ANN"}])
    ref = write_jsonl(tmp_path / "r.jsonl", [{"price": 10, "name": "ann"}])
    plain = summary_of(capsys, "json", out, ref)
    assert plain["mean_score"] == 0.0
    tolerant = summary_of(
        capsys, "json", out, ref, "--comparators", "price=numeric(abs_tol=0.01)", "name=text()"
    )
    assert tolerant["mean_score"] == 1.0
    with pytest.raises(SystemExit) as exited:
        main(["json", str(out), str(ref), "--comparators", "price=nope()"])
    assert exited.value.code == 2
    assert "unknown comparator 'nope'" in capsys.readouterr().err


def test_comparator_flags_as_the_readme_writes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bare name calls the built-in with no arguments; arguments are Python literals; an
    expression that is not a literal is refused, naming the flag."""
    out = write_jsonl(tmp_path / "o.jsonl", [{"tags": ["b", "a"], "code": "ABC-12"}])
    ref = write_jsonl(tmp_path / "r.jsonl", [{"tags": ["a", "b"], "code": "XYZ-9"}])
    assert summary_of(capsys, "json", out, ref)["mean_score"] == 0.0
    readme = ["tags=unordered", 'code=regex(r"[A-Z]{3}-\\d+")']
    assert summary_of(capsys, "json", out, ref, "--comparators", *readme)["mean_score"] == 1.0
    with pytest.raises(SystemExit) as exited:
        main(["json", str(out), str(ref), "--comparators", "name=similar(normalize=text())"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "matchevals json: error: --comparators name: 'similar(normalize=text())' is not a "
        "comparator call such as numeric(abs_tol=0.01)"
    )


BAD_INVOCATIONS = [
    (["missing.jsonl", "ref.jsonl"], "missing.jsonl: no such file"),
    (["data.csv", "ref.jsonl"], "data.csv: expected a .json or .jsonl file"),
    (["out.jsonl", "ref.jsonl", "--aggregator", "median"], "'median' is not one of"),
    (["out.jsonl", "ref.jsonl", "--fail-under", "2"], "expected a number in [0, 1]"),
    (["out.jsonl", "ref.jsonl", "--workers", "0"], "at least 1"),
    (["out.jsonl", "ref.jsonl", "--workers", "two"], "at least 1; got 'two'"),
    (["out.jsonl", "ref.jsonl", "--html-details", "-1"], "at least 0; got '-1'"),
    (["out.jsonl", "ref.jsonl", "--rubric", "a=b"], "--rubric needs a judge: pass --judge"),
    (["bad.json", "ref.jsonl"], "bad.json: not valid JSON"),
]


@pytest.fixture
def folder(files: tuple[Path, Path]) -> Path:
    (files[0].parent / "data.csv").write_text("a,b\n")
    (files[0].parent / "bad.json").write_text("{")
    return files[0].parent


@pytest.mark.parametrize("case", [0, 2, 8])
def test_bad_invocations_exit_2_with_a_clean_message(folder: Path, case: int) -> None:
    args, message = BAD_INVOCATIONS[case]
    completed = run("json", *args, cwd=folder)
    no_traceback(completed)
    assert completed.returncode == 2
    assert message in completed.stderr


@pytest.mark.parametrize(("args", "message"), BAD_INVOCATIONS)
def test_every_bad_invocation_is_exit_2_in_process(
    folder: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(folder)
    try:
        status = main(["json", *args])
    except SystemExit as exited:  # argparse's own errors
        status = exited.code  # type: ignore[assignment]
    assert status == 2
    assert message in capsys.readouterr().err


def test_json_files_hold_one_example_or_a_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps([{"a": 1}, {"a": 2}]))
    two = tmp_path / "two.json"
    two.write_text(json.dumps([{"a": 1}, {"a": 3}]))
    listed = summary_of(capsys, "json", one, two)
    assert (listed["examples_scored"], listed["mean_score"]) == (2, 0.5)
    single_out, single_ref = tmp_path / "so.json", tmp_path / "sr.json"
    single_out.write_text(json.dumps({"a": [1, 2]}))
    single_ref.write_text(json.dumps({"a": [1, 2]}))
    single = summary_of(capsys, "json", single_out, single_ref)
    assert (single["examples_scored"], single["mean_score"]) == (1, 1.0)
