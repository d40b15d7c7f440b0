"""The table fits the terminal, through the real entry point: ``COLUMNS`` 60, 80 and 160."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from matchevals.json_match import create_json_match_evaluator
from tests.cli.helpers import no_traceback, run, write_jsonl

LONG = "a long city name that makes the comment long enough to wrap in narrow terminals"
REFERENCES = [
    {"id": f"inv-{i}", "name": f"Person {i}", "age": 20 + i, "city": "Paris"} for i in range(8)
]
OUTPUTS = [
    {**ref, "age": ref["age"] + (i % 2), "city": LONG if i % 3 == 0 else "Paris"}
    for i, ref in enumerate(REFERENCES)
]
BOX = set("┏┓┗┛┃━┡┩│─└┘┌┐├┤┬┴┼╇╈╋┳┻")


class Tables:
    """The table at each width, drawn once per module (each is one real command)."""

    def __init__(self, folder: Path) -> None:
        self.files = (
            write_jsonl(folder / "out.jsonl", OUTPUTS),
            write_jsonl(folder / "ref.jsonl", REFERENCES),
        )
        self.drawn: dict[int, list[str]] = {}

    def __call__(self, columns: int) -> list[str]:
        if columns not in self.drawn:
            completed = run("json", *self.files, "--id-key", "id", "--worst", "3", columns=columns)
            no_traceback(completed)
            assert completed.returncode == 0, completed.stderr
            self.drawn[columns] = completed.stdout.splitlines()
        return self.drawn[columns]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    return Tables(tmp_path_factory.mktemp("width"))


def boxes_are_whole(lines: list[str]) -> None:
    """Every line of a drawn table has the width of its table's top line (no broken box)."""
    width = None
    for line in lines:
        text = line.rstrip()
        if text[:1] in ("┏", "┌"):
            width = cell_len(text)
        if text[:1] in BOX:
            assert width is not None and cell_len(text) == width, line
        if text[:1] in ("┗", "└"):
            width = None


@pytest.mark.parametrize("columns", [60, 80, 160])
def test_every_line_fits_the_terminal(table: Tables, columns: int) -> None:
    lines = table(columns)
    assert max(cell_len(line) for line in lines) <= columns
    boxes_are_whole(lines)
    text = " ".join(lines)
    assert "matchevals json: 8 examples scored, 0 invalid" in " ".join(text.split())
    for word in ("json_match:age", "json_match:city", "inv-0", "inv-3", "line 1", "line 4"):
        assert word in text, word


def why(index: int) -> str:
    """What the table says of an example: the comments of its results below 1."""
    output, reference = dict(OUTPUTS[index]), dict(REFERENCES[index])
    del output["id"], reference["id"]
    results = create_json_match_evaluator()(outputs=output, reference_outputs=reference)
    return "; ".join(str(r["comment"]) for r in results if r["score"] < 1)


def test_sixty_columns_lists_the_worst_examples_as_blocks(table: Tables) -> None:
    lines = table(60)
    start = next(i for i, line in enumerate(lines) if "worst examples" in line)
    worst = lines[start + 1 :]
    assert not any(set(line) & BOX for line in worst)  # blocks, not a squeezed table
    assert worst[0] == "line 4  id inv-3  score 0.3333"  # the worst first
    block = worst[1 : next(i for i, line in enumerate(worst) if line.startswith("line 1 "))]
    assert all(line.startswith("  ") for line in block)
    assert re.sub(r"\s+", "", "".join(block)) == re.sub(r"\s+", "", why(3))


def test_eighty_columns_is_a_table(table: Tables) -> None:
    lines = table(80)
    header = next(line for line in lines if "why" in line and "score" in line)
    assert "example" in header and "id" in header  # the --id-key column
    assert max(cell_len(line) for line in lines) == 80  # the worst table takes the width


def test_a_wide_terminal_is_used_in_full(table: Tables) -> None:
    lines = table(160)
    assert 110 < max(cell_len(line) for line in lines) <= 160  # once fixed at 110
    assert len(why(3)) > 100
    assert any(why(3) in line for line in lines)  # on one line, not wrapped


@pytest.mark.parametrize("columns", [60, 80])
def test_invalid_input_and_warnings_fit_the_terminal(tmp_path: Path, columns: int) -> None:
    """Long paths and messages fold to the terminal's width, indented under their heading."""
    folder = tmp_path / ("a-folder-with-a-long-name-" * 3)
    folder.mkdir()
    broken = {2: '{"id": "inv-x", "name": tru'}  # in the place of example 3
    out = write_jsonl(folder / "out.jsonl", OUTPUTS[:2] + OUTPUTS[3:], raw=broken)
    ref = write_jsonl(folder / "ref.jsonl", REFERENCES)
    completed = run("json", out, ref, "--worst", "2", columns=columns)
    no_traceback(completed)
    lines = completed.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= columns
    assert "invalid input (1 example):" in lines
    problem = lines[lines.index("invalid input (1 example):") + 1 :]
    assert all(line.startswith("  ") for line in problem)
    assert "".join(line.strip() for line in problem).startswith(f"{out}:3:".replace(" ", ""))
