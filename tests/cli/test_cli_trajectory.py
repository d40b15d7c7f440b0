"""``matchevals trajectory`` through the real entry point: the formats, gates, pairing and bad
input of ``matchevals json``, on agent trajectories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import main
from matchevals.trajectory import create_trajectory_match_evaluator
from tests.cli.helpers import as_json, no_traceback, run, write_jsonl


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def ai(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": list(calls)}


ASK = {"role": "user", "content": "help"}
OUTPUTS: list[Any] = [
    [
        ASK,
        ai(call("search", q="x"), call("search", q="x", lang="en")),
    ],  # optimal pairing
    [ASK, ai(call("weather", city="sf"))],
    {"messages": [ASK, {"role": "assistant", "content": "no tools needed"}]},
]
REFERENCES: list[Any] = [
    [ASK, ai(call("search", q="x", lang="en"), call("search", q="x"))],
    [ASK, ai(call("weather", city="SF"))],
    {"messages": [ASK, {"role": "assistant", "content": "another answer"}]},
]
SUBSET = ("--tool-args-match-mode", "subset")


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_jsonl(tmp_path / "out.jsonl", OUTPUTS),
        write_jsonl(tmp_path / "ref.jsonl", REFERENCES),
    )


def summary_of(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    status = main(["trajectory", *map(str, args), "--format", "json"])
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)["summary"]
    return status, summary


def test_json_format_scores_each_trajectory_as_the_evaluator_does(
    files: tuple[Path, Path],
) -> None:
    completed = run("trajectory", *files, *SUBSET, "--format", "json")
    assert completed.returncode == 0, completed.stderr
    summary = as_json(completed)
    evaluator = create_trajectory_match_evaluator(tool_args_match_mode="subset")
    direct = [
        evaluator(outputs=o, reference_outputs=r) for o, r in zip(OUTPUTS, REFERENCES, strict=True)
    ]
    assert [d["score"] for d in direct] == [True, False, True]
    assert summary["examples_scored"] == 3
    assert summary["mean_score"] == pytest.approx(2 / 3)
    assert summary["per_key"] == {
        "trajectory_strict_match": {"mean": pytest.approx(2 / 3), "count": 3}
    }
    (worst,) = summary["worst"]
    assert worst["where"] == f"{files[0]}:2"
    assert worst["results"] == [direct[1]]  # the whole result: comment, pairing, mismatches


def test_table_format_names_the_worst_examples_and_why(files: tuple[Path, Path]) -> None:
    completed = run("trajectory", *files)
    assert completed.returncode == 0, completed.stderr
    assert "matchevals trajectory: 3 examples scored, 0 invalid, mean score 0.6667" in (
        completed.stdout
    )
    assert "trajectory_strict_match" in completed.stdout
    flat = " ".join(completed.stdout.replace("│", " ").split())  # the table wraps long cells
    assert (
        "weather args.city (outputs[1].tool_calls[0] vs reference_outputs[1].tool_calls[0]): "
        'expected "SF", got "sf"' in flat
    )
    no_traceback(completed)


@pytest.mark.parametrize(("bar", "status"), [("0.6", 0), ("0.7", 1)])
def test_fail_under_is_a_ci_gate(files: tuple[Path, Path], bar: str, status: int) -> None:
    assert run("trajectory", *files, *SUBSET, "--fail-under", bar).returncode == status


def test_greedy_alignment_reproduces_openevals_and_says_so(files: tuple[Path, Path]) -> None:
    completed = run(
        "trajectory", *files, *SUBSET, "--alignment", "greedy", "--format", "markdown",
        "--fail-under", "0.5",
    )  # fmt: skip
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0] == (
        "### matchevals trajectory — FAILED (fail-under 0.5)"
    )
    assert "mean score **0.3333**" in completed.stdout
    assert "a maximum pairing (alignment='optimal') matches" in completed.stdout


def test_modes_and_graded_scores_are_flags(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, summary = summary_of(
        capsys, *files, "--trajectory-match-mode", "unordered", "--score", "f1"
    )
    assert status == 0
    # f1 of the calls: the same two calls, the one call differs, and no calls on either side
    assert summary["per_key"] == {
        "trajectory_unordered_match_f1": {"mean": pytest.approx(2 / 3), "count": 3}
    }
    status, summary = summary_of(capsys, *files, "--score", "recall", "--fail-under", "0.7")
    assert status == 1
    assert summary["worst"][0]["results"][0]["metadata"]["recall"] == 0.0


def test_in_order_is_a_mode_of_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    in_order, swapped = [ai(call("a")), ai(call("b"))], [ai(call("b")), ai(call("a"))]
    outputs = write_jsonl(tmp_path / "out.jsonl", [in_order, swapped])
    references = write_jsonl(tmp_path / "ref.jsonl", [in_order, in_order])
    status, summary = summary_of(
        capsys, outputs, references, "--trajectory-match-mode", "in_order", "--fail-under", "1"
    )
    assert status == 1
    assert summary["per_key"] == {"trajectory_in_order_match": {"mean": 0.5, "count": 2}}
    completed = run("trajectory", "--help")
    assert "in_order (every call of the reference, its turns in order" in " ".join(
        completed.stdout.split()
    )


def test_jsonl_format_streams_each_result_in_input_order(files: tuple[Path, Path]) -> None:
    completed = run("trajectory", *files, *SUBSET, "--format", "jsonl")
    lines = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [line.get("score") for line in lines[:3]] == [1.0, 0.0, 1.0]
    assert lines[1]["results"][0]["metadata"]["mismatches"][0]["path"] == "city"
    assert lines[3]["type"] == "summary"
    assert lines[3]["mean_score"] == pytest.approx(2 / 3)


def test_json_files_hold_one_trajectory_or_a_list_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one_out, one_ref = tmp_path / "one_out.json", tmp_path / "one_ref.json"
    one_out.write_text(json.dumps(OUTPUTS[1]))
    one_ref.write_text(json.dumps(REFERENCES[1]))
    status, summary = summary_of(capsys, one_out, one_ref)
    assert (status, summary["examples_scored"], summary["mean_score"]) == (0, 1, 0.0)
    assert summary["worst"][0]["where"] == str(one_out)
    many_out, many_ref = tmp_path / "many_out.json", tmp_path / "many_ref.json"
    many_out.write_text(json.dumps(OUTPUTS))
    many_ref.write_text(json.dumps(REFERENCES))
    status, summary = summary_of(capsys, many_out, many_ref, *SUBSET)
    assert (summary["examples_scored"], summary["mean_score"]) == (3, pytest.approx(2 / 3))
    assert summary["worst"][0]["where"] == f"{many_out}[1]"
    state = tmp_path / "state.json"  # one LangGraph state: one trajectory
    state.write_text(json.dumps({"messages": OUTPUTS[1], "step": 3}))
    status, summary = summary_of(capsys, state, one_ref)
    assert (summary["examples_scored"], summary["mean_score"]) == (1, 0.0)


def test_a_json_list_mixing_messages_and_trajectories_is_refused(tmp_path: Path) -> None:
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([ASK, [ASK]]))
    completed = run("trajectory", mixed, mixed)
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        f"matchevals: error: {mixed}: a list whose item 0 is a message but item 1 is a "
        "trajectory; a .json file holds one trajectory (a list of messages) or a list of "
        "trajectories"
    )


def test_one_message_per_line_is_invalid_not_a_trajectory_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", [ASK, *OUTPUTS[1]])  # a message per line
    references = write_jsonl(tmp_path / "ref.jsonl", [[ASK], [ASK], [ASK]])
    status, summary = summary_of(capsys, outputs, references)
    assert status == 2
    assert summary["examples_scored"] == 0
    assert summary["problems"][0] == {
        "where": f"{outputs}:1",
        "message": "cannot score: outputs is one message, not a trajectory; each example is a "
        'list of messages or {"messages": [...]} (one trajectory per line of a JSONL file)',
    }
    assert len(summary["problems"]) == 3


def test_bad_trajectories_are_named_counted_and_the_rest_is_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = [ASK, {"role": "assistant", "tool_calls": [
        {"id": "1", "function": {"name": "search", "arguments": '{"q": '}}]}]  # fmt: skip
    outputs = write_jsonl(tmp_path / "out.jsonl", [OUTPUTS[0], broken, OUTPUTS[2]], raw={3: "{"})
    references = write_jsonl(tmp_path / "ref.jsonl", [*REFERENCES, REFERENCES[2]])
    status, summary = summary_of(capsys, outputs, references, *SUBSET)
    assert status == 2
    assert (summary["examples_scored"], summary["invalid"]) == (2, 2)
    assert summary["problems"][0]["where"] == f"{outputs}:2"
    assert summary["problems"][0]["message"].startswith(
        "cannot score: outputs[1].tool_calls[0].function.arguments is not valid JSON: "
    )
    assert summary["problems"][1]["where"] == f"{outputs}:4"
    skipped = run("trajectory", outputs, references, *SUBSET, "--skip-invalid")
    assert skipped.returncode == 0
    no_traceback(skipped)


def test_id_key_pairs_trajectories_by_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outputs = write_jsonl(
        tmp_path / "out.jsonl",
        [{"id": "b", "messages": OUTPUTS[1]}, {"id": "a", "messages": OUTPUTS[0]}],
    )
    references = write_jsonl(
        tmp_path / "ref.jsonl",
        [{"id": "a", "messages": REFERENCES[0]}, {"id": "b", "messages": REFERENCES[1]}],
    )
    status, summary = summary_of(capsys, outputs, references, "--id-key", "id", *SUBSET)
    assert status == 0
    assert summary["mean_score"] == 0.5
    assert [(w["id"], w["score"]) for w in summary["worst"]] == [("b", 0.0)]


def test_workers_give_the_same_results_in_the_same_order(tmp_path: Path) -> None:
    outputs = write_jsonl(tmp_path / "out.jsonl", OUTPUTS * 30)
    references = write_jsonl(tmp_path / "ref.jsonl", REFERENCES * 30)
    one = run("trajectory", outputs, references, *SUBSET, "--format", "jsonl")
    two = run("trajectory", outputs, references, *SUBSET, "--format", "jsonl", "--workers", "2")
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout


@pytest.mark.parametrize(
    "flags",
    [
        ("--trajectory-match-mode", "fuzzy"),
        ("--tool-args-match-mode", "loose"),
        ("--score", "accuracy"),
        ("--alignment", "best"),
    ],
)
def test_bad_options_exit_2_with_a_clean_message(files: tuple[Path, Path], flags: Any) -> None:
    completed = run("trajectory", *files, *flags)
    assert completed.returncode == 2
    assert f"argument {flags[0]}: {flags[1]!r} is not one of:" in completed.stderr
    no_traceback(completed)


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    completed = run("trajectory", tmp_path / "nothing.jsonl", tmp_path / "ref.jsonl")
    assert completed.returncode == 2
    assert completed.stderr.startswith("matchevals: error: ")
    no_traceback(completed)
