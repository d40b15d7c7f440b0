"""``matchevals.ray`` on a local Ray (2 CPUs): the same scores, results, problems and summary
as the single-process command line on the same examples."""

from __future__ import annotations

import doctest
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import matchevals.ray as matchevals_ray
from matchevals.cli import main
from matchevals.json_match import create_json_match_evaluator
from matchevals.ray import score_dataset, score_joined, summarize

ray: Any = pytest.importorskip("ray")


@pytest.fixture
def in_order(ray_address: str) -> Iterator[None]:
    """Ray Data keeps the rows' order (as the README advises for a reproducible summary)."""
    options = ray.data.DataContext.get_current().execution_options
    kept, options.preserve_order = options.preserve_order, True
    try:
        yield
    finally:
        options.preserve_order = kept


def cli(capsys: pytest.CaptureFixture[str], *args: object) -> list[dict[str, Any]]:
    """The single-process command line's JSONL report, as parsed lines."""
    capsys.readouterr()
    main([*map(str, args), "--format", "jsonl"])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def cli_summary(capsys: pytest.CaptureFixture[str], *args: object) -> dict[str, Any]:
    """The single-process command line's ``--format json`` summary."""
    capsys.readouterr()
    main([*map(str, args), "--format", "json"])
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)["summary"]
    return summary


def texts(count: int) -> tuple[list[str], list[str]]:
    """JSON texts of outputs and references; three keys, so averages of thirds, and bad cells."""
    outputs, references = [], []
    for i in range(count):
        reference = {"name": f"n{i % 5}", "items": [i % 3, i % 5], "total": i % 4}
        output = {"name": f"n{i % 7}", "items": [i % 3, i % 2], "total": i % 4}
        outputs.append(json.dumps(output))
        references.append(json.dumps(reference))
    outputs[10] = "{not json"
    outputs[20] = json.dumps("a string")  # the evaluator refuses it
    references[30] = ""
    return outputs, references


def test_a_dataset_is_scored_and_summarized_as_the_command_line_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], in_order: None
) -> None:
    outputs, references = texts(150)
    out, ref = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
    out.write_text("\n".join(outputs) + "\n")
    ref.write_text("\n".join(references) + "\n")
    lines = cli(capsys, "json", out, ref, "--aggregator", "average", "--worst", "6")
    rows = [
        {"id": i, "outputs": o, "reference_outputs": r}
        for i, (o, r) in enumerate(zip(outputs, references, strict=True))
    ]
    dataset = ray.data.from_items(rows, override_num_blocks=3)
    evaluator = create_json_match_evaluator(aggregator="average")
    scored = score_dataset(dataset, evaluator, id_column="id", batch_size=16).materialize()

    got = scored.take_all()
    assert [row["id"] for row in got] == list(range(150))
    for row, line in zip(got, lines[:-1], strict=True):
        assert {k: row[k] for k in ("id", "outputs", "reference_outputs")} == rows[row["id"]]
        if line["type"] == "example":
            assert (row["score"], row["problem"]) == (line["score"], None)
            assert json.loads(row["results"]) == line["results"]
        else:
            assert (row["score"], row["results"]) == (None, None)
            assert row["problem"]
    problems = {row["id"]: row["problem"] for row in got if row["problem"]}
    assert problems == {
        10: "outputs: not valid JSON at column 2 (expecting property name enclosed in double "
        "quotes): {not json",
        20: next(line["message"] for line in lines if line.get("where") == f"{out}:21"),
        30: "reference_outputs: empty (a cell holds one JSON document as text)",
    }
    assert problems[20].startswith("cannot score: outputs is a string")

    expected = cli_summary(capsys, "json", out, ref, "--aggregator", "average", "--worst", "6")
    assert len(expected["worst"]) == 6
    summary = summarize(scored, id_column="id", worst=6)
    for key in ("examples_scored", "invalid", "mean_score", "per_key"):
        assert summary[key] == expected[key], key  # exact sums: equal to the last bit
    assert summary["mean_score"] != sum(r["score"] for r in got if r["score"] is not None) / 147
    assert [(w["id"], w["score"], w["results"]) for w in summary["worst"]] == [
        (w["id"], w["score"], w["results"]) for w in expected["worst"]
    ]
    assert [w["where"] for w in summary["worst"]] == [f"id {w['id']}" for w in expected["worst"]]
    assert [(p["where"], p["message"]) for p in summary["problems"]] == [
        (f"id {ident}", message) for ident, message in problems.items()
    ]
    by_row = summarize(scored, worst=6)  # no id column: examples named by their row
    assert by_row["mean_score"] == expected["mean_score"]
    assert [w["where"] for w in by_row["worst"]] == [f"row {w['id']}" for w in expected["worst"]]
    assert [w["index"] for w in by_row["worst"]] == [w["id"] for w in expected["worst"]]
    assert [p["where"] for p in by_row["problems"]] == ["row 10", "row 20", "row 30"]


def test_two_datasets_joined_by_id_score_as_the_command_line_pairs_by_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ray_address: str
) -> None:
    outputs, references = texts(120)
    output_rows = [{"id": f"e{i}", "outputs": text} for i, text in enumerate(outputs)]
    reference_rows = [{"id": f"e{i}", "reference_outputs": t} for i, t in enumerate(references)]
    output_rows[5]["id"] = "nowhere"  # e5's reference is left without its output
    random.Random(7).shuffle(reference_rows)

    def jsonl(path: Path, rows: list[dict[str, Any]], column: str) -> Path:
        values = []
        for row in rows:
            try:
                value = json.loads(row[column])
            except ValueError:
                value = None
            values.append(
                json.dumps({"id": row["id"], **value}) if isinstance(value, dict) else "[]"
            )
        path.write_text("\n".join(values) + "\n")
        return path

    out = jsonl(tmp_path / "out.jsonl", output_rows, "outputs")
    ref = jsonl(tmp_path / "ref.jsonl", reference_rows, "reference_outputs")
    lines = cli(capsys, "json", out, ref, "--id-key", "id", "--aggregator", "average")
    examples = {line["id"]: line for line in lines if line["type"] == "example"}

    evaluator = create_json_match_evaluator(aggregator="average")
    scored = score_joined(
        ray.data.from_items(output_rows, override_num_blocks=2),
        ray.data.from_items(reference_rows, override_num_blocks=2),
        evaluator,
        num_partitions=2,
        batch_size=32,
    ).materialize()
    got = scored.take_all()
    assert [row["id"] for row in got] == sorted(row["id"] for row in got)  # sorted by id
    assert len(got) == 121
    scored_rows = {row["id"]: row for row in got if row["problem"] is None}
    assert set(scored_rows) == set(examples)  # the rows the CLI could score (it refuses more)
    for ident, row in scored_rows.items():
        assert row["score"] == examples[ident]["score"]
        assert json.loads(row["results"]) == examples[ident]["results"]
    problems = {row["id"]: row["problem"] for row in got if row["problem"]}
    assert problems["nowhere"] == "no reference with id 'nowhere'"
    assert problems["e5"] == "no output with id 'e5'"
    assert problems["e10"].startswith("outputs: not valid JSON")

    summary = summarize(scored, id_column="id", worst=5)
    expected = cli_summary(capsys, "json", out, ref, "--id-key", "id", "--aggregator", "average")
    assert summary["examples_scored"] == len(examples)
    assert summary["mean_score"] == expected["mean_score"]
    assert summary["per_key"] == expected["per_key"]
    assert summary["invalid"] == len(problems)
    assert (
        sorted(w["score"] for w in summary["worst"])
        == sorted(line["score"] for line in examples.values())[:5]
    )


def test_nested_columns_are_refused_before_anything_runs(ray_address: str) -> None:
    dataset = ray.data.from_items([{"outputs": {"a": 1}, "reference_outputs": {"a": 1, "b": 2}}])
    with pytest.raises(ValueError, match=r"column 'outputs' is struct<a: int64>: store JSON text"):
        score_dataset(dataset, create_json_match_evaluator())
    flat = ray.data.from_items([{"outputs": "{}", "answer": "{}"}])
    with pytest.raises(ValueError, match=r"the dataset has no column 'reference_outputs'"):
        score_dataset(flat, create_json_match_evaluator())


def test_the_module_example_runs_on_ray(ray_address: str) -> None:
    text = (matchevals_ray.__doc__ or "").replace("# doctest: +SKIP", "")
    globs = dict(vars(matchevals_ray))
    example = doctest.DocTestParser().get_doctest(text, globs, "matchevals.ray", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(example)
    assert (runner.failures, runner.tries) == (0, 5)


class Extract:
    """A batch-inference step as Ray Data runs one (a class: one instance per actor); the
    'model' reads a name and an age from text and gets Bob's age wrong."""

    def __init__(self) -> None:
        self.ages_off = {"Bob": 1}

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        answers = []
        for text in batch["text"]:
            name, age = str(text).split()
            answers.append(json.dumps({"name": name, "age": int(age) + self.ages_off.get(name, 0)}))
        batch["outputs"] = answers
        return batch


def test_a_batch_inference_pipeline_scores_its_outputs(ray_address: str) -> None:
    """The README's recipe: predictions made by map_batches (lazily, with actors), then scored."""
    people = [("Ann", 30), ("Bob", 40), ("Cy", 5)] * 20
    rows = [
        {
            "id": i,
            "text": f"{name} {age}",
            "reference_outputs": json.dumps({"name": name, "age": age}),
        }
        for i, (name, age) in enumerate(people)
    ]
    predicted = ray.data.from_items(rows).map_batches(Extract, concurrency=1, batch_size=16)
    evaluator = create_json_match_evaluator(aggregator="average")
    scored = score_dataset(predicted, evaluator, id_column="id").materialize()
    by_id = {row["id"]: row for row in scored.take_all()}
    assert [by_id[i]["score"] for i in range(3)] == [1.0, 0.5, 1.0]
    assert json.loads(by_id[1]["results"])[0]["comment"] == "age: expected 40, got 41"
    summary = summarize(scored, id_column="id", worst=2)
    assert (summary["examples_scored"], summary["invalid"]) == (60, 0)
    assert summary["mean_score"] == (40 + 20 * 0.5) / 60
    assert summary["per_key"] == {
        "json_match:average": {"mean": summary["mean_score"], "count": 60}
    }
    assert [w["score"] for w in summary["worst"]] == [0.5, 0.5]
