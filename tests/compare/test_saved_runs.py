"""Comparing runs saved with ``--format jsonl``: the real command line's runs, several runs in
one file as trials, and every way a file can be wrong, said with its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._scoring import Scored
from matchevals.compare import Trials, compare_runs
from matchevals.compare._saved import plain_example
from matchevals.report._examples import example_from
from matchevals.report._lines import jsonl_line, read_head
from matchevals.report._saved import SavedRunError
from tests.cli.helpers import run, write_jsonl
from tests.compare.helpers import ids, save_run, scored


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """json runs by id (base and new), a json run by position, and a graph run, as the
    command line saves them."""
    folder = tmp_path_factory.mktemp("runs")
    references = [{"id": f"p{i}", "name": f"n{i}", "age": i} for i in range(6)]
    write_jsonl(folder / "ref.jsonl", references)
    base = [dict(r) for r in references]
    new = [dict(r) for r in references]
    new[1]["age"] = 99  # regresses
    new[2]["name"] = "x"  # regresses
    base[3]["age"] = 99  # improves
    new.reverse()
    write_jsonl(folder / "base_out.jsonl", base)
    write_jsonl(folder / "new_out.jsonl", new)
    runs: dict[str, Path] = {}
    for name, outputs, flags in (
        ("base", "base_out.jsonl", ("--id-key", "id")),
        ("new", "new_out.jsonl", ("--id-key", "id")),
        ("by_position", "base_out.jsonl", ()),
    ):
        runs[name] = folder / f"{name}.jsonl"
        completed = run("json", folder / outputs, folder / "ref.jsonl", *flags,
                        "--format", "jsonl", "-o", runs[name])  # fmt: skip
        assert completed.returncode == 0, completed.stderr
    write_jsonl(folder / "graph_runs.jsonl", [{"steps": [["a"], ["b"]]}])
    (folder / "graph_ref.json").write_text(json.dumps({"steps": [["a"], ["b"]]}))
    runs["graph"] = folder / "graph.jsonl"
    completed = run("graph", folder / "graph_runs.jsonl", folder / "graph_ref.json",
                    "--format", "jsonl", "-o", runs["graph"])  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    return runs


def test_the_command_lines_runs_pair_by_id(cli_runs: dict[str, Path]) -> None:
    comparison = compare_runs(cli_runs["base"], cli_runs["new"])
    assert (comparison.paired_by, comparison.id_key, comparison.kind) == ("id", "id", "json")
    assert comparison.counts["regressed"] == 2 and comparison.counts["improved"] == 1
    assert sorted(ids(comparison.regressions)) == ["p1", "p2"]
    newly = {c.id: c.newly_failing for c in comparison.regressions}
    assert newly == {"p1": {"json": ("age",)}, "p2": {"json": ("name",)}}
    assert comparison.regressions[0].new_where.startswith(str(cli_runs["base"].parent))
    assert comparison.regressions[0].new_examples[0].outputs["name"] in ("n1", "x")


def test_runs_of_different_commands_or_keys_are_refused(cli_runs: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match=r"runs of different commands cannot be compared: .*"
                       r"base.jsonl holds json runs; .*graph.jsonl holds graph runs"):  # fmt: skip
        compare_runs(cli_runs["base"], cli_runs["graph"])
    with pytest.raises(ValueError, match=r"was scored with --id-key 'id' and .*by_position.jsonl "
                       r"scored by position \(no --id-key\)"):  # fmt: skip
        compare_runs(cli_runs["base"], cli_runs["by_position"])
    with pytest.raises(ValueError, match=r"--id-key 'thread': .*was scored with --id-key 'id'; "
                       r"pass --id-key 'id'"):  # fmt: skip
        compare_runs(cli_runs["base"], cli_runs["new"], id_key="thread")
    with pytest.raises(ValueError, match=r"by position .*leave out --id-key"):
        compare_runs(cli_runs["by_position"], cli_runs["by_position"], id_key="id")
    assert compare_runs(cli_runs["base"], cli_runs["new"], id_key="id").paired == 6


def test_runs_scored_by_position_pair_by_position(cli_runs: dict[str, Path]) -> None:
    comparison = compare_runs(cli_runs["by_position"], cli_runs["by_position"])
    assert (comparison.paired_by, comparison.paired, comparison.id_key) == ("position", 6, None)


def test_several_runs_in_one_file_are_trials(tmp_path: Path) -> None:
    base = save_run(tmp_path / "base.jsonl", [scored(i, 1) for i in range(3)])
    new = tmp_path / "new.jsonl"
    for trial in range(4):  # example 0 fails twice, example 2 once
        fails = {0: trial < 2, 1: False, 2: trial == 3}
        save_run(new, [scored(i, 0 if fails[i] else 1) for i in range(3)], append=trial > 0)
    comparison = compare_runs(base, new)
    repeated = comparison.repeated["new"]
    assert repeated is not None and (repeated.fewest_trials, repeated.most_trials) == (4, 4)
    assert repeated.pass_hat_k[4] == pytest.approx(1 / 3)  # only example 1 passes all four
    assert repeated.pass_at_k[3] == 1.0
    assert {c.id: c.new_score for c in comparison.regressions} == {0: 0.5, 2: 0.75}
    split = [tmp_path / f"new-{trial}.jsonl" for trial in range(2)]
    for trial, path in enumerate(split):
        save_run(path, [scored(i, 0 if i == trial else 1) for i in range(3)])
    from_files = compare_runs(base, Trials(*split))
    assert from_files.repeated["new"] is not None
    assert {c.id: c.new_score for c in from_files.regressions} == {0: 0.5, 1: 0.5}


def test_a_duplicate_id_within_one_run_is_listed(tmp_path: Path) -> None:
    base = save_run(tmp_path / "base.jsonl", [scored("a", 1), scored("b", 1), scored("a", 0)])
    new = save_run(tmp_path / "new.jsonl", [scored("a", 1), scored("b", 0)])
    comparison = compare_runs(base, new)
    assert [str(p) for p in comparison.problems] == [
        f"{base}:3: duplicate id 'a' in one run (first at {base}:1)"
    ]
    assert comparison.counts["regressed"] == 1 and comparison.invalid == 1


def test_a_run_cut_short_is_compared_and_said_to_be(tmp_path: Path) -> None:
    base = save_run(tmp_path / "base.jsonl", [scored("a", 1)], summary=False)
    new = save_run(tmp_path / "new.jsonl", [scored("a", 1)])
    comparison = compare_runs(base, new)
    assert comparison.warnings == (
        f"{base} has no summary line after its last run: it may have been cut short",
    )
    assert comparison.paired == 1


def _lines(path: Path, *lines: Any) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines))  # fmt: skip
    return path


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": "a", "name": "Ann"}'],
         ':1: not a line of a --format jsonl run (no "type" of example, invalid or summary)'),
        (["<!DOCTYPE html>"], ":1: not valid JSON at column 1"),
        ([], ": holds no lines of a --format jsonl run"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_saved_run_is_an_error(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = _lines(tmp_path / "x.jsonl", *lines) if lines else tmp_path / "x.jsonl"
    path.touch()
    good = save_run(tmp_path / "good.jsonl", [scored("a", 1)])
    with pytest.raises(SavedRunError) as raised:
        compare_runs(good, path)
    assert str(raised.value) == str(path) + message or message in str(raised.value)
    assert str(raised.value).startswith(str(path))


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SavedRunError, match=r"nothing\.jsonl: No such file or directory"):
        compare_runs(tmp_path / "nothing.jsonl", tmp_path / "nothing.jsonl")


def test_lines_that_cannot_be_compared_are_listed_with_their_place(tmp_path: Path) -> None:
    good = save_run(tmp_path / "good.jsonl", [scored(i, 1) for i in range(4)])
    head = '{"type": "example", "index": 0, "id": 0, "where": "o:1", "score": 1, '
    bad = _lines(
        tmp_path / "bad.jsonl",
        head + '"results": [{"key": "k", "score": 1}], "id": 7}',  # a second id: 7 wins
        '{"type": "example", "index": 1, "id": 1, "where": "o:2", "score": 1.5, "results": []}',
        '{"type": "example", "index": 2, "where": "o:3", "score": 1, "results": []}',
        {"type": "invalid", "where": "o:4", "message": "not valid JSON"},
        {"type": "summary", "kind": "json", "id_key": "id"},
    )
    comparison = compare_runs(good, bad)
    assert [str(p) for p in comparison.problems] == [
        f"{bad}:3: the example line has no id (a string or a number)",
        f"{bad}:1: the line is not the example its head names (a second 'type' or 'id' in it, "
        "or the file changed while it was read)",
        f"{bad}:2: the example['score'] is 1.5; scores are bools or numbers in [0, 1]",
    ]
    assert comparison.warnings == (
        f"{bad}: 1 example the run could not score, not compared (the first at {bad}:4, o:4: "
        "not valid JSON)",
    )
    assert ids(comparison.removed) == [2, 3] and comparison.paired == 0


def test_examples_numbered_as_scored_cannot_pair_by_position(tmp_path: Path) -> None:
    # a graph run against one reference numbers its examples as it scores them: after an
    # invalid line, an example's number is not its position
    outputs = tmp_path / "runs.jsonl"
    write_jsonl(outputs, [{"steps": [["a"]]}, {"steps": [["b"]]}], raw={1: "not json"})
    (tmp_path / "ref.json").write_text(json.dumps({"steps": [["a"]]}))
    saved = tmp_path / "graph.jsonl"
    completed = run("graph", outputs, tmp_path / "ref.json", "--format", "jsonl", "-o", saved)
    assert completed.returncode == 2
    with pytest.raises(ValueError) as raised:
        compare_runs(saved, saved)
    assert str(raised.value) == (
        f"{saved}:3: its example ({outputs}:3) is numbered 1, not by its position: the run "
        "numbered its examples as it scored them, skipping the ones it could not score, so it "
        "cannot be paired by position; score both runs with --id-key"
    )


ident = st.one_of(
    st.integers(-(10**20), 10**20),
    st.text(max_size=12),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, 10**6), value=ident)
def test_a_head_read_from_the_text_is_the_parsed_lines(index: int, value: Any) -> None:
    line = jsonl_line(Scored(index, value, "o.jsonl:1", 1.0, [{"key": "k", "score": 1}]))
    encoded = line.encode("utf-8", "surrogatepass") + b"\n"
    head = read_head(encoded)
    if head is not None:
        parsed = json.loads(line)
        assert head == (parsed["index"], parsed["id"])
        assert type(head[1]) is type(parsed["id"])
    elif isinstance(value, str) and '"' not in value and "\\" not in value and value.isprintable():
        pytest.fail(f"a plain string id was not read: {line}")


result_score = st.one_of(
    st.none(), st.booleans(), st.integers(-1, 2), st.floats(-0.5, 1.5), st.text(max_size=2)
)
saved_line = st.fixed_dictionaries(
    {"type": st.just("example"), "id": st.one_of(st.integers(0, 9), st.text(max_size=3))},
    optional={
        "index": st.one_of(st.integers(0, 9), st.booleans(), st.none()),
        "where": st.one_of(st.just("o.jsonl:1"), st.just(""), st.integers()),
        "score": result_score,
        "results": st.one_of(
            st.lists(
                st.one_of(
                    st.fixed_dictionaries({"key": st.text(max_size=3), "score": result_score}),
                    st.fixed_dictionaries({"score": result_score}),
                    st.integers(),
                ),
                max_size=3,
            ),
            st.integers(),
        ),
        "outputs": st.integers(),
    },
)


@settings(max_examples=500, deadline=None)
@given(line=saved_line)
def test_the_plain_reading_of_a_line_is_what_example_from_makes_of_it(line: dict[str, Any]) -> None:
    plain = plain_example(json.loads(json.dumps(line)))
    if plain is None:
        return  # example_from reads it, or says what is wrong
    assert plain.report_example() == example_from(line, 0, subject="the example")
