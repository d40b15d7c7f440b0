"""Scoring at scale: 1 worker and N workers give the same bytes, pairing by id stays within
bounded memory, and the pieces the engines share (exact tallies, the JSON line parser) are
exact whatever the chunks."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matchevals
from matchevals import _fast_json
from matchevals._scoring import LineError, decode
from matchevals.cli import main
from matchevals.cli._engine import can_fork
from tests.cli.helpers import no_traceback, run, write_jsonl
from tests.cli.test_cli_memory import peak_rss_kib


def shuffled_by_id(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """Outputs with every kind of problem pairing by id can meet, references shuffled."""
    rng = random.Random(16)
    references = [{"id": f"e{i}", "v": i % 7, "tags": [i % 3, i % 5]} for i in range(count)]
    outputs = [{"id": f"e{i}", "v": i % 5, "tags": [i % 5, i % 3]} for i in range(count)]
    outputs[count // 2] = {"id": "e39", "v": 0}  # a duplicate id, in another chunk than its first
    outputs.append({"id": "nowhere", "v": 1})  # no such reference
    outputs.append({"v": 2})  # no id
    rng.shuffle(references)
    references.append({"id": "e7", "v": 0})  # a duplicate reference
    out = write_jsonl(tmp_path / "out.jsonl", outputs, raw={300: "{not json", 900: ""})
    ref = write_jsonl(tmp_path / "ref.jsonl", references, raw={500: "[1,"})
    return out, ref


@pytest.mark.parametrize("report", ["jsonl", "json"])
def test_workers_give_the_same_bytes_pairing_by_id(tmp_path: Path, report: str) -> None:
    count = 6000  # several chunks (of CHUNK_LINES) per worker
    out, ref = shuffled_by_id(tmp_path, count)
    flags = ["--id-key", "id", "--format", report, "--aggregator", "average"]
    one = run("json", out, ref, *flags, "--workers", "1")
    three = run("json", out, ref, *flags, "--workers", "3")
    no_traceback(three)
    assert one.returncode == three.returncode == 2
    assert one.stdout == three.stdout
    assert one.stderr == three.stderr
    if report == "json":
        return
    lines = [json.loads(line) for line in one.stdout.splitlines()]
    examples = [line for line in lines if line["type"] == "example"]
    assert [e["index"] for e in examples] == list(range(len(examples)))
    invalid = [(ln["where"], ln["message"][:24]) for ln in lines if ln["type"] == "invalid"]
    assert invalid[:2] == [
        (f"{ref}:501", "not valid JSON at column"),
        (f"{ref}:{count + 2}", "duplicate id 'e7' (first"),
    ]  # reference problems first, then the outputs in order, then references left over
    assert (f"{out}:{count // 2 + 3}", "duplicate id 'e39' in th") in invalid
    assert (f"{out}:301", "not valid JSON at column") in invalid
    assert (f"{out}:{count + 3}", "no reference with id 'no") in invalid
    assert (f"{out}:{count + 4}", "the example has no 'id' ") in invalid
    orphan = f'"e{count // 2}"'  # it has no output: its duplicate took e39's place
    assert invalid[-1][0] == next(
        f"{ref}:{n}" for n, line in enumerate(ref.read_text().splitlines(), 1) if orphan in line
    )
    assert lines[-1]["examples_scored"] == len(examples) == count - 1


def test_workers_give_the_same_bytes_for_graphs_with_one_reference(tmp_path: Path) -> None:
    runs = [{"steps": [["a"], ["b", "c"]] if i % 3 else [["a"], ["b"]]} for i in range(4000)]
    path = write_jsonl(tmp_path / "runs.jsonl", runs, raw={10: "[", 400: ""})
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": [["a"], ["b", "c"]]}))
    flags = ["--format", "jsonl", "--partial-credit"]
    one = run("graph", path, reference, *flags)
    two = run("graph", path, reference, *flags, "--workers", "2")
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout
    summary = json.loads(one.stdout.splitlines()[-1])
    assert (summary["examples_scored"], summary["invalid"]) == (4000, 2)
    assert summary["examples_per_file"] == {str(path): 4002}


def test_workers_are_spawned_when_another_thread_runs_with_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Forking a process that runs threads can deadlock the child, so then workers are spawned."""
    out, ref = shuffled_by_id(tmp_path, 600)
    flags = ["json", str(out), str(ref), "--id-key", "id", "--format", "jsonl"]
    assert main([*flags, "--workers", "1"]) == 2
    one = capsys.readouterr()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
        assert main([*flags, "--workers", "2"]) == 2
    finally:
        stop.set()
        thread.join()
    two = capsys.readouterr()
    assert (two.out, two.err) == (one.out, one.err)
    assert one.out.count('"type": "example"') == 599


def test_pairing_by_id_keeps_only_an_index_of_the_references(tmp_path: Path) -> None:
    """60,000 shuffled pairs by id take about the memory of 1,000, with 2 workers: the index
    holds where each reference is, never the reference, and the chunks in flight are bounded
    (peak RSS: the largest of the reading process and its workers)."""
    padding = "x" * 300
    peaks = {}
    for count in (1_000, 60_000):
        rows = [{"id": f"k{i}", "a": i, "p": padding} for i in range(count)]
        outputs = write_jsonl(tmp_path / f"o{count}.jsonl", rows)
        random.Random(1).shuffle(rows)
        references = write_jsonl(tmp_path / f"r{count}.jsonl", rows)
        report = tmp_path / f"{count}.json"
        peaks[count] = peak_rss_kib(
            "json", outputs, references, "--id-key", "id", "--workers", "2",
            "--format", "json", "-o", report,
        )  # fmt: skip
        summary = json.loads(report.read_text())["summary"]
        assert (summary["examples_scored"], summary["mean_score"]) == (count, 1.0)
    input_mib = (tmp_path / "o60000.jsonl").stat().st_size * 2 / 2**20
    assert input_mib > 35  # the parsed references alone would take several times this
    assert (peaks[60_000] - peaks[1_000]) / 1024 < 30, peaks


def test_a_line_nested_too_deeply_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}], raw={1: deep})
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"a": 1}, {"a": 2}])
    completed = run("json", out, ref, "--format", "json")
    no_traceback(completed)
    assert completed.returncode == 2
    (problem,) = json.loads(completed.stdout)["summary"]["problems"]
    assert problem["where"] == f"{out}:2"
    assert problem["message"].startswith("nested too deeply to read")


def test_a_command_imports_only_the_evaluator_it_uses(tmp_path: Path) -> None:
    """``graph`` does not pay for json_match's import (scipy), which is a fixed cost per run."""
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"steps": [["a"]]}])
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": [["a"]]}))
    script = (
        "import sys\n"
        "from matchevals.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "print(code, 'matchevals.json_match' in sys.modules, 'scipy' in sys.modules)\n"
    )
    command = [sys.executable, "-c", script, "graph", str(runs), str(reference), "-o"]
    completed = subprocess.run(
        [*command, str(tmp_path / "report.txt")], capture_output=True, text=True, timeout=120
    )
    assert completed.stdout.split() == ["0", "False", "False"], completed.stderr
    report = (tmp_path / "report.txt").read_text()
    assert report.startswith(
        "matchevals graph: 1 example scored, 0 invalid, mean score 1 — passed\n"
    )


def test_scoring_json_loads_no_page_graph_metadata_or_multiprocessing_code(
    tmp_path: Path,
) -> None:
    """What one run of ``json`` with one worker costs to start: not the HTML page's modules,
    graph_trajectory, ``importlib.metadata`` (read for ``--version`` only) or
    multiprocessing (for ``--workers`` above 1 only)."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"id": 1, "a": 1}])
    ref = write_jsonl(tmp_path / "ref.jsonl", [{"id": 1, "a": 2}])
    unwanted = [
        "matchevals.graph_trajectory",
        "matchevals.report._model",
        "matchevals.report._html",
        "importlib.metadata",
        "multiprocessing",
    ]
    script = (
        "import sys\n"
        "from matchevals.cli import main\n"
        "code = main(sys.argv[1:])\n"
        f"print(code, [name for name in {unwanted!r} if name in sys.modules])\n"
    )
    flags = ["--id-key", "id", "--format", "jsonl", "-o", str(tmp_path / "r.jsonl")]
    completed = subprocess.run(
        [sys.executable, "-c", script, "json", str(out), str(ref), *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.stdout.split(maxsplit=1) == ["0", "[]\n"], completed.stderr
    version = subprocess.run(
        [sys.executable, "-m", "matchevals.cli", "--version"], capture_output=True, text=True
    )
    assert version.stdout == f"matchevals {matchevals.__version__}\n", version.stderr


def test_engine_ray_without_ray_says_how_to_install_it(tmp_path: Path) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    script = (
        "import sys; sys.modules['ray'] = None\n"
        "from matchevals.cli import main\n"
        f"raise SystemExit(main(['json', {str(out)!r}, {str(out)!r}, '--engine', 'ray']))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "matchevals: error: --engine ray needs Ray: pip install 'matchevals[ray]'"
    )


# --- the JSON line parser -------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.skipif(not _fast_json.orjson_used, reason="orjson is not installed")
@settings(max_examples=300, deadline=None)
@given(value=json_values, ascii_only=st.booleans(), spaced=st.booleans())
def test_the_fast_parser_reads_exactly_what_json_loads_reads(
    value: Any, ascii_only: bool, spaced: bool
) -> None:
    separators = (", ", ": ") if spaced else (",", ":")
    text = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
    line = text.encode("utf-8", "surrogatepass") + b"\n"
    expected = json.loads(line)
    got = _fast_json.exact_loads(line)
    assert repr(got) == repr(expected)  # repr tells 1 from 1.0, -0.0 from 0.0, and NaN is nan
    assert [type(x) for x in _leaves(got)] == [type(x) for x in _leaves(expected)]


@pytest.mark.skipif(not _fast_json.orjson_used, reason="orjson is not installed")
@pytest.mark.parametrize(
    "line",
    [
        b'{"n": 1234567890123456789012}',  # orjson alone: a float
        b'{"n": -9223372036854775809}',  # just beyond 64 bits
        b'{"s": "1234567890123456789012", "n": 1.5}',  # a long run in a string: json.loads
        b'{"n": 0.1000000000000000055511151231257827}',  # a long mantissa
        b'{"n": NaN, "m": 1e400}',
    ],
)
def test_long_digit_runs_and_numbers_orjson_refuses_are_read_by_json_loads(line: bytes) -> None:
    assert repr(_fast_json.exact_loads(line)) == repr(json.loads(line))


def test_matchevals_json_stdlib_switches_orjson_off() -> None:
    code = "from matchevals import _fast_json; print(_fast_json.orjson_used)"
    env = {**os.environ, "MATCHEVALS_JSON": "stdlib"}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env
    )
    assert completed.stdout.strip() == "False", completed.stderr


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.items() for part in item for leaf in _leaves(part)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"\n", "blank line (each line of a JSONL file is one example)"),
        (b"{\xff}\n", "not valid UTF-8"),
        (b"[1,\n", "not valid JSON at column 4 (expecting value): [1, (the line ends there)"),
    ],
)
def test_a_line_that_is_not_an_example_says_why(line: bytes, message: str) -> None:
    with pytest.raises(LineError) as raised:
        decode(line)
    assert str(raised.value) == message


def test_big_integers_and_special_numbers_keep_their_standard_meaning() -> None:
    line = b'{"big": 123456789012345678901234567890, "nan": NaN, "neg": -0, "s": "\\ud800"}'
    value = decode(line)
    assert value["big"] == 123456789012345678901234567890 and isinstance(value["big"], int)
    assert value["nan"] != value["nan"] and value["neg"] == 0 and value["s"] == "\ud800"


def test_workers_write_the_same_html_page_as_one_process(tmp_path: Path) -> None:
    """``--format html`` with workers: each example's row comes back with its chunk, the worst
    examples' values once per worker at the end; the page is the one process's, byte for byte,
    and it holds the worst examples' values (id key removed) and the exact per-key means."""
    from tests.report.runs import document_of

    out, ref = shuffled_by_id(tmp_path, 4000)  # several chunks (of CHUNK_LINES) per worker
    flags = ["--id-key", "id", "--format", "html", "--html-details", "30", "--skip-invalid"]
    pages = []
    for workers in ("1", "3"):
        page = tmp_path / f"page{workers}.html"
        completed = run("json", out, ref, *flags, "--workers", workers, "-o", page)
        no_traceback(completed)
        assert completed.returncode == 0, completed.stderr
        pages.append(page.read_text())
    assert pages[0] == pages[1]
    document = document_of(pages[0])
    summary = json.loads(run("json", out, ref, "--id-key", "id", "--format", "json").stdout)
    assert document["summary"]["examples_scored"] == summary["summary"]["examples_scored"] == 3999
    assert len(document["rows"]["score"]) == 3999
    assert sorted(document["rows"]["index"]) == list(range(3999))
    assert len(document["details"]) == 30
    rows = document["rows"]
    lowest = sorted(zip(rows["score"], rows["index"], strict=True))[:30]
    assert sorted(map(int, document["details"])) == sorted(index for _, index in lowest)
    assert all("id" not in detail["outputs"] for detail in document["details"].values())
    means = {row["key"]: row["mean"] for row in document["keys"]}
    assert means == {k: v["mean"] for k, v in summary["summary"]["per_key"].items()}
