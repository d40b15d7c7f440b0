"""Every JSONL line keeps its position: a blank line is an invalid example, never skipped.

Skipping it would pair each later output with the previous example's reference and report a
wrong mean with exit status 0 under ``--skip-invalid``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import main
from tests.cli.helpers import as_json, no_traceback, run

COUNT = 300
WRONG = {7, 150, 222}  # outputs that differ from their reference on one of two keys
BLANK = 100  # 0-based example whose output line is blank


def reference(index: int) -> dict[str, Any]:
    return {"id": f"e{index}", "name": f"item {index}", "size": index}


def output(index: int) -> dict[str, Any]:
    value = reference(index)
    if index in WRONG:
        value["size"] = -1
    return value


def lines(values: list[dict[str, Any]], blank_at: int | None, blank: str = "") -> str:
    text = [json.dumps(value) for value in values]
    if blank_at is not None:
        text[blank_at] = blank
    return "\n".join(text) + "\n"


# means over the 299 scored examples (aggregator average): a wrong one scores 2/3 on its three
# keys by position, 1/2 by id (the id key is not scored)
BY_POSITION = (COUNT - 1 - len(WRONG) / 3) / (COUNT - 1)
BY_ID = (COUNT - 1 - len(WRONG) / 2) / (COUNT - 1)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    outputs.write_text(lines([output(i) for i in range(COUNT)], BLANK))
    references.write_text(lines([reference(i) for i in range(COUNT)], None))
    return outputs, references


@pytest.mark.parametrize("skip_invalid", [False, True])
def test_a_blank_line_is_one_invalid_example_by_position(
    files: tuple[Path, Path], skip_invalid: bool
) -> None:
    outputs, references = files
    flags = ["--aggregator", "average", "--format", "json", "--fail-under", "0.99"]
    completed = run("json", outputs, references, *flags, *(["--skip-invalid"] * skip_invalid))
    no_traceback(completed)
    summary = as_json(completed)
    assert summary["examples_scored"] == COUNT - 1
    assert summary["invalid"] == 1
    assert summary["mean_score"] == pytest.approx(BY_POSITION)
    assert summary["warnings"] == []
    assert summary["problems"] == [
        {
            "where": f"{outputs}:{BLANK + 1}",
            "message": "blank line (each line of a JSONL file is one example) "
            f"(so {references}:{BLANK + 1} is not scored)",
        }
    ]
    assert completed.returncode == (0 if skip_invalid else 2)


@pytest.mark.parametrize("skip_invalid", [False, True])
def test_a_blank_line_is_one_invalid_example_by_id(
    files: tuple[Path, Path], skip_invalid: bool
) -> None:
    outputs, references = files
    flags = ["--aggregator", "average", "--format", "json", "--id-key", "id"]
    completed = run("json", outputs, references, *flags, *(["--skip-invalid"] * skip_invalid))
    no_traceback(completed)
    summary = as_json(completed)
    assert summary["examples_scored"] == COUNT - 1
    assert summary["invalid"] == 1  # the blank output line and its orphaned reference: one example
    assert summary["mean_score"] == pytest.approx(BY_ID)
    problems = summary["problems"]
    assert [p["where"] for p in problems] == [f"{outputs}:{BLANK + 1}", f"{references}:{BLANK + 1}"]
    assert problems[0]["message"].startswith("blank line")
    assert problems[1]["message"].startswith(f"no output with id 'e{BLANK}' (not counted again")
    assert completed.returncode == (0 if skip_invalid else 2)


@pytest.mark.parametrize("blank", ["   ", "\t", " \r"])
def test_whitespace_only_lines_are_blank_lines_too(tmp_path: Path, blank: str) -> None:
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    outputs.write_text(lines([output(i) for i in range(20)], 5, blank))
    references.write_text(lines([reference(i) for i in range(20)], None))
    report = tmp_path / "report.json"
    status = main(["json", str(outputs), str(references), "--format", "json", "-o", str(report)])
    summary = json.loads(report.read_text())["summary"]
    assert status == 2
    assert (summary["examples_scored"], summary["invalid"]) == (19, 1)
    assert summary["problems"][0]["where"] == f"{outputs}:6"
    assert summary["mean_score"] == pytest.approx((19 - 1 / 3) / 19)  # example 7 is wrong


def test_different_numbers_of_examples_are_said_first(tmp_path: Path) -> None:
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    values = [json.dumps(output(i)) for i in range(10)]
    outputs.write_text("\n".join([*values[:4], "", *values[4:]]) + "\n")  # one line too many
    references.write_text(lines([reference(i) for i in range(10)], None))
    table = run("json", outputs, references, "--skip-invalid")
    no_traceback(table)
    counts = f"{outputs} 11, {references} 10"
    warning = f"warning: the files hold different numbers of examples: {counts}"
    assert table.stdout.splitlines()[0] == warning
    as_document = run("json", outputs, references, "--format", "json")
    summary = as_json(as_document)
    assert next(iter(summary)) == "warnings"
    assert summary["warnings"] == [warning.removeprefix("warning: ")]
    assert summary["examples_per_file"] == {str(outputs): 11, str(references): 10}
    assert f"matchevals: {warning}" in as_document.stderr
    markdown = run("json", outputs, references, "--format", "markdown").stdout.splitlines()
    assert markdown[2] == f"> **Warning:** {warning.removeprefix('warning: ')}"


def test_an_example_without_its_partner_is_counted_once(tmp_path: Path) -> None:
    """Six bad output lines (one blank) with pairing by id: six invalid examples, each reported
    from both sides, not eleven."""
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    text = [json.dumps(output(i)) for i in range(30)]
    for index in (2, 5, 9, 14, 20):
        text[index] = text[index][:-3]  # truncated: not valid JSON
    text[25] = ""
    outputs.write_text("\n".join(text) + "\n")
    references.write_text(lines([reference(i) for i in range(30)], None))
    report = tmp_path / "report.json"
    argv = ["json", str(outputs), str(references), "--id-key", "id", "--format", "json"]
    assert main([*argv, "-o", str(report), "--skip-invalid"]) == 0
    summary = json.loads(report.read_text())["summary"]
    assert summary["invalid"] == 6
    assert summary["examples_scored"] == 24
    assert len(summary["problems"]) == 12
    assert summary["warnings"] == []
    positional = ["json", str(outputs), str(references), "--format", "json", "-o", str(report)]
    assert main(positional) == 2
    summary = json.loads(report.read_text())["summary"]
    assert (summary["invalid"], len(summary["problems"]), summary["examples_scored"]) == (6, 6, 24)
