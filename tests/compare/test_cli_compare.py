"""``matchevals compare`` through the real entry point: every format, the gates and their exit
statuses, bad input with exit 2 and no traceback, ``--help``, and tables at the terminal's
width."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from matchevals.cli._compare import WORST
from matchevals.compare import compare_runs
from matchevals.compare._builder import DEFAULT_WORST
from tests.cli.helpers import no_traceback, run
from tests.compare.helpers import person, save_run, scored


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("compare")
    base = [person(f"p{i}") for i in range(30)]
    worse = [person(f"p{i}", "age") if i < 10 else person(f"p{i}") for i in range(30)]
    one_worse = [person("p0", "city"), *base[1:]]
    return {
        "base": save_run(folder / "base.jsonl", base),
        "worse": save_run(folder / "worse.jsonl", worse),
        "one_worse": save_run(folder / "one_worse.jsonl", one_worse),
        "fewer": save_run(folder / "fewer.jsonl", [*base[:28], person("p99")]),
        "graph": save_run(folder / "graph.jsonl", [scored("p0", 1)], kind="graph"),
        "folder": folder,
    }


def test_the_table_says_what_changed_and_whether_it_matters(runs: dict[str, Path]) -> None:
    completed = run("compare", runs["base"], runs["worse"], columns=100)
    no_traceback(completed)
    assert completed.returncode == 0  # no gate asked for
    out = completed.stdout
    assert out.startswith("matchevals compare: WORSE (p = 0.000672, paired t-test)\n")
    assert "30 examples paired by id: 10 regressed, 0 improved, 20 unchanged" in out
    assert "mean score 1 → 0.8889: difference -0.1111, 95% CI [" in out
    assert "pass rate (score ≥ 1) 1 → 0.6667: 10 pass→fail, 0 fail→pass" in out
    assert re.search(r"json_match:age\s*│\s*1\s*│\s*0\.6667\s*│\s*-0\.3333", out)
    assert re.search(r"p0\s*│\s*1\s*│\s*0\.6667\s*│\s*-0\.3333\s*│\s*json: age", out)
    assert max(len(line) for line in out.splitlines()) <= 100


def test_fail_on_regression_exits_1_when_significantly_worse(runs: dict[str, Path]) -> None:
    worse = run("compare", runs["base"], runs["worse"], "--fail-on-regression")
    assert worse.returncode == 1
    assert "— FAILED" in worse.stdout.splitlines()[0]
    assert "failed because the new run is significantly worse (p = 0.000672 < alpha 0.05, " \
           "paired t-test)" in worse.stdout  # fmt: skip
    one = run("compare", runs["base"], runs["one_worse"], "--fail-on-regression")
    assert one.returncode == 0 and "— passed" in one.stdout.splitlines()[0]
    strict = run("compare", runs["base"], runs["one_worse"], "--strict")
    assert strict.returncode == 1 and "1 example regressed (--strict)" in strict.stdout
    lenient = run("compare", runs["base"], runs["worse"], "--fail-on-regression",
                  "--alpha", "0.0005")  # fmt: skip
    assert lenient.returncode == 0


def test_markdown_for_a_pull_request(runs: dict[str, Path]) -> None:
    completed = run("compare", runs["base"], runs["worse"], "--format", "markdown",
                    "--fail-on-regression", "--worst", "2", "--title", "new prompt")  # fmt: skip
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0] == "### new prompt — WORSE (p = 0.000672, paired t-test)"
    assert "| json_match:age | 1 | 0.6667 | -0.3333 |" in lines
    assert "| p0 | 1 | 0.6667 | -0.3333 | json: age |" in lines
    assert "| p2 | 1 | 0.6667 | -0.3333 | json: age |" not in lines  # --worst 2
    assert "#### Biggest regressions" in lines and "#### Biggest improvements" not in lines


def test_json_is_the_comparison_with_the_verdict_on_top(runs: dict[str, Path]) -> None:
    completed = run("compare", runs["base"], runs["worse"], "--format", "json", "--strict")
    document = json.loads(completed.stdout)
    assert document["passed"] is False and completed.returncode == 1
    assert document["failed_because"][1] == "10 examples regressed (--strict)"
    assert document["comparison"] == compare_runs(runs["base"], runs["worse"]).as_dict()
    assert document["comparison"]["regressions"][0]["newly_failing"] == {"json": ["age"]}


def test_html_is_written_where_asked(runs: dict[str, Path]) -> None:
    target = runs["folder"] / "comparison.html"
    completed = run("compare", runs["base"], runs["worse"], "--format", "html", "-o", target)
    assert completed.returncode == 0 and f"wrote {target}" in completed.stderr
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "matchevals-compare/1" in page
    to_stdout = run("compare", runs["base"], runs["worse"], "--format", "html")
    assert to_stdout.stdout.startswith("<!DOCTYPE html>")


def test_examples_one_run_lacks_exit_2_unless_skipped(runs: dict[str, Path]) -> None:
    completed = run("compare", runs["base"], runs["fewer"], "--format", "json")
    assert completed.returncode == 2
    document = json.loads(completed.stdout)
    assert document["failed_because"] == ["3 examples could not be compared"]
    assert [c["id"] for c in document["comparison"]["added"]] == ["p99"]
    assert [c["id"] for c in document["comparison"]["removed"]] == ["p28", "p29"]
    assert "matchevals: outputs.jsonl:29: id 'p28' is not in the new run" in completed.stderr
    skipped = run("compare", runs["base"], runs["fewer"], "--skip-invalid")
    assert skipped.returncode == 0
    assert "added (only the new run holds 1 example):" in skipped.stdout
    assert "removed (only the base run holds 2 examples):" in skipped.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("base", "missing.jsonl"), "matchevals compare: error: missing.jsonl: No such file"),
        (("base", "graph"), "matchevals compare: error: runs of different commands cannot be "
                            "compared"),
        (("base", "worse", "--id-key", "thread"), "--id-key 'thread': "),
        (("base", "worse", "--alpha", "1"), "argument --alpha: expected a number in (0, 1); "
                                            "got '1'"),
        (("base", "worse", "--pass-threshold", "0"), "expected a number in (0, 1]; got '0'"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_line(
    runs: dict[str, Path], arguments: tuple[str, ...], message: str
) -> None:
    files = [str(runs.get(word, word)) for word in arguments]
    completed = run("compare", *files, cwd=runs["folder"])
    no_traceback(completed)
    assert completed.returncode == 2
    assert message in completed.stderr


def test_not_a_saved_run_exits_2(runs: dict[str, Path], tmp_path: Path) -> None:
    outputs = tmp_path / "out.jsonl"
    outputs.write_text('{"id": "p0", "name": "Ann"}\n')
    completed = run("compare", runs["base"], outputs)
    assert completed.returncode == 2
    assert completed.stderr == (
        f'matchevals compare: error: {outputs}:1: not a line of a --format jsonl run (no "type" '
        "of example, invalid or summary)\n"
    )


def test_a_narrow_terminal_keeps_every_line_within_it(runs: dict[str, Path]) -> None:
    completed = run("compare", runs["base"], runs["worse"], columns=60)
    assert max(len(line) for line in completed.stdout.splitlines()) <= 60
    assert "p0  1 → 0.6667 (-0.3333)" in completed.stdout


def test_help_says_what_every_option_does(capsys: pytest.CaptureFixture[str]) -> None:
    from matchevals.cli import main

    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    for flag in ("--id-key", "--pass-threshold", "--alpha", "--fail-on-regression", "--strict",
                 "--format", "--output", "--worst", "--html-details", "--title"):  # fmt: skip
        block = re.split(r"\n  (?=-)|\n\n", text[text.index("\n  " + flag) + 3 :], maxsplit=1)[0]
        assert "e.g." in block, flag
    assert "exit status:" in text and "examples:" in text
    assert WORST == DEFAULT_WORST
