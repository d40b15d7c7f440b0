"""Errors in the command line's words: flags (not keyword arguments), FILE:LINE and the field,
JSON parse errors quoting the text around the failure, types named as JSON names them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matchevals.cli import main
from tests.cli.helpers import no_traceback, run, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def failing(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    """Run ``main`` in this process; return stderr of a run that exited 2."""
    capsys.readouterr()
    try:
        status = main([str(arg) for arg in args])
    except SystemExit as exited:  # argparse's own errors
        status = exited.code  # type: ignore[assignment]
    assert status == 2
    return capsys.readouterr().err


def test_a_truncated_jsonl_line_is_quoted_where_parsing_failed(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"a": 1}\n{"a": 1, "b"\n')
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 1}])
    completed = run("json", "out.jsonl", "ref.jsonl", "--format", "json", cwd=tmp_path)
    no_traceback(completed)
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[0] == (
        "matchevals: out.jsonl:2: not valid JSON at column 13 (expecting ':' delimiter): "
        '{"a": 1, "b" (the line ends there) (so ref.jsonl:2 is not scored)'
    )
    assert ref.exists()


def test_a_long_line_is_quoted_around_the_failure_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = json.dumps({"padding": "x" * 200})[:-1] + ', "b": tru, "c": "' + "y" * 200 + '"}'
    (tmp_path / "out.jsonl").write_text(line + "\n")
    write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}])
    err = failing(
        capsys, "json", tmp_path / "out.jsonl", tmp_path / "ref.jsonl", "--format", "json"
    )
    message = err.splitlines()[0].split(": ", 2)[2]
    column = line.index("tru") + 1
    assert message == (
        f"not valid JSON at column {column} (expecting value): …"
        + line[column - 1 - 30 : column - 1 + 10]
        + f"… (so {tmp_path / 'ref.jsonl'}:1 is not scored)"
    )


def test_a_broken_json_document_names_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "out.json").write_text('[\n  {"a": 1},\n  {"a" 2}\n]\n')
    write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}])
    err = failing(capsys, "json", tmp_path / "out.json", tmp_path / "ref.jsonl")
    assert err.strip() == (
        f"matchevals: error: {tmp_path / 'out.json'}: not valid JSON at line 3, column 8 "
        "(expecting ':' delimiter): {\"a\" 2}"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (5, "cannot score: outputs is a number, expected an object or a list of objects"),
        (None, "cannot score: outputs is a null value, expected an object or a list of objects"),
        ("text", "cannot score: outputs is a string that is not valid JSON"),
        ([{"a": 1}, True], "cannot score: outputs[1] is a boolean, expected an object"),
    ],
)
def test_types_are_named_as_json_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: object, message: str
) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [line])
    ref = write_jsonl(tmp_path / "ref.jsonl", [[{"a": 1}, {"a": 1}] if isinstance(line, list)
                                               else {"a": 1}])  # fmt: skip
    err = failing(capsys, "json", out, ref, "--format", "json")
    assert f"matchevals: {out}:1: {message}" in err


def test_id_key_problems_have_a_subject(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [[1, 2], {"x": 1}, {"id": True}, {"id": "a"}])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"id": "a"}])
    err = failing(capsys, "json", out, ref, "--id-key", "id", "--format", "json")
    assert f"{out}:1: the example is a list, not an object, so it has no --id-key 'id'" in err
    assert f"{out}:2: the example has no 'id' (the --id-key)" in err
    assert (
        f"{out}:3: the example's 'id' (the --id-key) is a boolean; expected a string or a number"
        in err
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_jsonl(tmp_path / "out.jsonl", [{"a": 1}]),
        write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}]),
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--rubric", "a=same"],
            "matchevals json: error: --rubric needs a judge: pass --judge MODULE:ATTRIBUTE or "
            "--model PROVIDER:NAME",
        ),
        (
            ["--model", "openai:gpt-4o-mini"],
            "matchevals json: error: --model only score --rubric keys: pass --rubric "
            "KEY=CRITERIA as well",
        ),
        (
            ["--list-match-modes", "items=ordered"],
            "matchevals json: error: --list-match-modes applies to lists inside objects: pass "
            "--nested as well",
        ),
        (["--judge", "nocolon"], "argument --judge: expected MODULE:ATTRIBUTE, such as"),
        (
            ["--rubric", "a=same", "--judge", "no_such_module_17:judge"],
            "matchevals json: error: --judge no_such_module_17:judge: no module named "
            "'no_such_module_17' (looked on PYTHONPATH and in the current directory)",
        ),
        (
            ["--rubric", "a=same", "--judge", "tests.cli.judges:missing"],
            "matchevals json: error: --judge tests.cli.judges:missing: tests.cli.judges has no "
            "attribute 'missing'",
        ),
        (
            ["--rubric", "a=same", "--judge", "tests.cli.judges:not_a_model"],
            "matchevals json: error: --judge tests.cli.judges:not_a_model is an int, not a "
            "LangChain chat model (langchain_core.language_models.BaseChatModel)",
        ),
        (
            ["--rubric", "a=same", "--judge", "tests.cli.judges:stock_fake"],
            "matchevals json: error: --judge tests.cli.judges:stock_fake: FakeListChatModel does "
            "not support with_structured_output (it raises NotImplementedError)",
        ),
    ],
)
def test_option_errors_speak_in_flags(
    files: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(ROOT)
    err = failing(capsys, "json", *files, *flags)
    assert message in err
    assert "judge=" not in err and "model=" not in err and "nested=True" not in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--threshold", "0.8"], "--threshold needs --partial-credit"),
        (["--threshold", "high"], "argument --threshold: expected a number; got 'high'"),
        (
            ["--partial-credit", "--threshold", "1.5"],
            "matchevals graph: error: --threshold is 1.5; it must be between 0 and 1",
        ),
    ],
)
def test_graph_option_errors_speak_in_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"steps": [["a"]]}])
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": [["a"]]}))
    err = failing(capsys, "graph", runs, reference, *flags)
    assert message in err
    assert "partial_credit=" not in err


def test_html_to_a_terminal_asks_for_a_file(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    err = failing(capsys, "json", *files, "--format", "html")
    assert "--format html writes a page: pass --output report.html" in err


@pytest.mark.parametrize(
    "flags",
    [
        ["--exclude-keys", "id"],
        ["--exclude-keys", "id", "debug"],
        ["--comparators", "v=numeric(abs_tol=1)"],
        ["--format", "json", "--exclude-keys", "id"],
    ],
)
def test_a_flag_of_several_values_before_the_files_leaves_them_files(
    tmp_path: Path, flags: list[str]
) -> None:
    """``--exclude-keys id out.jsonl ref.jsonl``: the files are the files, as if written first."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"id": 1, "v": 1}, {"id": 2, "v": 2}])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"id": 1, "v": 1}, {"id": 3, "v": 2}])
    written_first = run("json", out, ref, *flags, "--format", "jsonl")
    written_after = run("json", *flags, out, ref, "--format", "jsonl")
    no_traceback(written_after)
    assert written_after.returncode == written_first.returncode == 0, written_after.stderr
    assert written_after.stdout == written_first.stdout


def test_several_readings_of_which_words_are_the_files_is_an_error_saying_how(
    tmp_path: Path,
) -> None:
    names = [str(tmp_path / name) for name in ("a.json", "b.json", "c.json")]
    completed = run("json", "--exclude-keys", *names)
    assert completed.returncode == 2
    assert "put the files right after the command, or end the flag's values with --" in (
        completed.stderr
    )
    alone = run("json", "--exclude-keys", "id")
    assert "the following arguments are required: OUTPUTS, REFERENCES" in alone.stderr
