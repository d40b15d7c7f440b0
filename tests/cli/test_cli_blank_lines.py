"""Every JSONL line keeps its position: a blank line between examples is an invalid example,
never skipped; blank lines at the end of a file (an editor's last newline) are no examples.

Skipping a blank line between examples would pair each later output with the previous
example's reference and report a wrong mean with exit status 0 under ``--skip-invalid``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.cli import main
from matchevals.cli._read import Reader
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
    assert " ".join(table.stdout.split()).startswith(warning)  # first, wrapped to the terminal
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


@pytest.mark.parametrize("pairing", [[], ["--id-key", "id"]])
@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("ending", ["\n", "\n\n", "  \n\t\n", "\r\n"])
def test_blank_lines_at_the_end_of_a_file_are_not_examples(
    tmp_path: Path, pairing: list[str], workers: str, ending: str
) -> None:
    """An editor's trailing newline (or a few) on either file: every example is scored, no
    invalid example, no warning that the files differ, exit 0."""
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    outputs.write_text(lines([reference(i) for i in range(1200)], None) + ending)
    references.write_text(lines([reference(i) for i in range(1200)], None) + ending * 2)
    completed = run("json", outputs, references, *pairing, "--format", "json", "--workers", workers)
    no_traceback(completed)
    summary = as_json(completed)
    assert (summary["examples_scored"], summary["invalid"], summary["warnings"]) == (1200, 0, [])
    assert completed.returncode == 0


def test_a_blank_line_before_more_blank_lines_and_an_example_is_still_an_example(
    tmp_path: Path,
) -> None:
    """Blank lines followed by an example, even across chunks, each keep their place."""
    outputs, references = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    values = [json.dumps(reference(i)) for i in range(1000)]  # one chunk
    outputs.write_text("\n".join([*values, "", "", values[0]]) + "\n\n")
    references.write_text("\n".join([*values, *values[:3]]) + "\n")
    report = tmp_path / "report.json"
    assert main(["json", str(outputs), str(references), "--format", "json", "-o", str(report)]) == 2
    summary = json.loads(report.read_text())["summary"]
    assert (summary["examples_scored"], summary["invalid"]) == (1001, 2)
    assert [p["where"] for p in summary["problems"]] == [f"{outputs}:1001", f"{outputs}:1002"]


@settings(max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.sampled_from([b'{"a": 1}', b"", b"  ", b"\t"]), max_size=12),
    counts=st.lists(st.integers(1, 4), min_size=1, max_size=8),
)
def test_chunks_are_the_lines_without_the_blank_ones_at_the_end(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes], counts: list[int]
) -> None:
    """The oracle: the file's lines, blank lines at its end dropped, taken in chunks."""
    path = tmp_path_factory.mktemp("chunks") / "x.jsonl"
    data = b"".join(piece + b"\n" for piece in pieces)
    path.write_bytes(data)
    kept = data.splitlines(keepends=True)
    while kept and not kept[-1].strip():
        kept.pop()
    taken: list[bytes] = []
    offsets: list[int] = []
    with Reader(path) as reader:
        for count in [*counts, 100]:
            chunk = reader.read(count)
            assert chunk.first == len(taken) and len(chunk) <= count
            taken += chunk.lines
            offsets += chunk.offsets
            places = zip(chunk.offsets, chunk.lines, strict=True)
            assert [reader.fetch(offset, len(line)) for offset, line in places] == chunk.lines
        assert reader.read_so_far == len(kept)
    assert taken == kept
