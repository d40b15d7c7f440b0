"""The engines: the id index's decisions, chunks scored in any order or process giving one
process's bytes, a bounded number of chunks in flight, and worker processes that behave (no
BLAS threads, a death reported, no orphans, a changed file said as the reader would)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from matchevals._line_scoring import (
    Batch,
    Chunk,
    ChunkScorer,
    Lines,
    ReferenceIndex,
    Side,
    Span,
    line_places,
    place_of,
)
from matchevals._scoring import Problem
from matchevals.cli._engine import Engine, engine_for, in_order, job_for, run_job
from matchevals.cli._read import InputError, Reader
from matchevals.report._summary import Counts
from tests.cli.helpers import no_traceback, run, write_jsonl
from tests.cli.test_cli_scale import shuffled_by_id

SIDE = Side("ref.jsonl")


def test_a_decision_says_where_the_reference_line_is() -> None:
    chunk = Chunk(7, [b'{"id": "a"}\n', b'{"id": "b", "v": 1}\n'], [100, 112])
    index = ReferenceIndex("id", SIDE)
    assert index.add(["a", "b"], line_places(chunk, [1]), lambda o, n: b"") == []
    decisions, pairs = index.decide(["b", "a", "b"], Side("out.jsonl"), 0)
    assert pairs == 2
    assert [place_of(d) for d in decisions[:2] if isinstance(d, int)] == [
        (8, 112, 20),
        (7, 100, 12),
    ]
    assert decisions[2] == Problem("out.jsonl:3", "duplicate id 'b' in the outputs")


class Shuffled:
    """Chunks scored in this process in an order a script decides: nothing is scored when it
    is submitted; waiting for one batch scores every chunk submitted so far, in random order."""

    def __init__(self, job: Any, seed: int) -> None:
        self._scorer = ChunkScorer(job)
        self._script = random.Random(seed)
        self._waiting: list[tuple[Lines, dict[str, Batch]]] = []

    def engine(self) -> Engine:
        def submit(chunk: Lines) -> Any:
            box: dict[str, Batch] = {}
            self._waiting.append((chunk, box))
            return lambda: self._score_all() or box["batch"]

        return Engine(submit, 3)

    def _score_all(self) -> None:
        self._script.shuffle(self._waiting)
        for chunk, box in self._waiting:
            box["batch"] = self._scorer(chunk)
        self._waiting.clear()


def _report(out: Path, ref: Path, engine_of: Any, **job: Any) -> list[tuple[Any, ...]]:
    outputs, references = Reader(out), Reader(ref)
    job_ = job_for("json", {}, outputs, references, lines=True, details=3, **job)
    with outputs, references, engine_of(job_) as engine:
        placed = list(run_job(job_, engine, outputs, references, Counts()))
    return [
        (encoded, batch.tally.scored, batch.tally.problems, batch.tally.score.total,
         [(s.index, s.id, s.where, s.score) for s in batch.tally.worst_examples], batch.rows,
         batch.details)
        for encoded, batch in placed
    ]  # fmt: skip


@contextlib.contextmanager
def _shuffled(job: Any, seed: int) -> Iterator[Engine]:
    yield Shuffled(job, seed).engine()


@pytest.mark.parametrize("pairing", [{"id_key": "id"}, {}])
def test_chunks_scored_in_any_order_give_one_process_bytes(
    tmp_path: Path, pairing: dict[str, Any]
) -> None:
    """Batches numbered from 0 and placed in input order: whatever order the chunks were
    scored in, the report lines, tallies, rows and details are one process's."""
    out, ref = shuffled_by_id(tmp_path, 3600)  # 4 chunks, every pairing problem
    expected = _report(out, ref, engine_for, **pairing)
    for seed in (1, 2):
        got = _report(out, ref, functools.partial(_shuffled, seed=seed), **pairing)
        assert got == expected
    assert any(encoded.count(b'"type": "example"') for encoded, *_ in expected[1:])


@pytest.mark.parametrize("ahead", [0, 1, 4])
def test_no_more_chunks_are_in_flight_than_the_engine_allows(ahead: int) -> None:
    """One chunk more than ``ahead`` at most is submitted and not yet taken back (in this
    process, one chunk at a time: nothing is gained by reading ahead)."""
    in_flight, most = [0], [0]

    def submit(chunk: Lines) -> Any:
        in_flight[0] += 1
        most[0] = max(most[0], in_flight[0])

        def result() -> Batch:
            in_flight[0] -= 1
            return chunk  # type: ignore[return-value]

        return result

    chunks = [Lines(n, []) for n in range(10)]
    assert list(in_order(submit, ahead, chunks)) == chunks
    assert most[0] == ahead + 1


def test_references_from_a_json_document_are_sent_to_the_workers(tmp_path: Path) -> None:
    """A ``.json`` file of references is held by the reading process only: its lines travel."""
    references = [{"id": f"e{i}", "v": i % 3} for i in range(2500)]
    outputs = [{"id": f"e{i}", "v": i % 4} for i in reversed(range(2500))]
    out = write_jsonl(tmp_path / "out.jsonl", outputs)
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(references))
    flags = ["--id-key", "id", "--format", "jsonl"]
    one = run("json", out, ref, *flags)
    two = run("json", out, ref, *flags, "--workers", "2")
    no_traceback(two)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout
    lines = [json.loads(line) for line in two.stdout.splitlines()]
    assert lines[-1]["examples_scored"] == 2500
    assert lines[0]["reference_outputs"] == {"v": 2499 % 3}
    assert lines[1]["outputs"] == {"v": 2498 % 4}


IN_A_WORKER = """
import json, os, sys, time
from pathlib import Path
from matchevals._line_scoring import Lines
from matchevals.cli._engine import engine_for, job_for
from matchevals.cli._read import Reader
runs, reference = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
with Reader(runs) as outputs:
    job = job_for("graph", {"partial_credit": True}, outputs, None, reference=reference)
    chunk = outputs.read(10)
with engine_for(job, workers=2) as engine:
    batches = [engine.submit(Lines(0, chunk.lines)) for _ in range(4)]
    assert all(batch().pairs == 1 for batch in batches)
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
    found = []
    for pid in children:
        maps = Path(f"/proc/{pid}/maps").read_text()
        found.append([len(os.listdir(f"/proc/{pid}/task")), "numpy" in maps])
    print(json.dumps(found), flush=True)
    print(*children, flush=True)
    if sys.argv[3] == "wait":
        time.sleep(600)
"""


def _worker_run(tmp_path: Path, then: str) -> subprocess.Popen[str]:
    steps = [["plan"], ["search", "fetch"], ["read"], ["write"]]
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"steps": [["plan"], ["fetch"], ["write"]]}])
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": steps}))
    environment = {
        name: value for name, value in os.environ.items() if not name.endswith("_NUM_THREADS")
    }
    return subprocess.Popen(
        [sys.executable, "-c", IN_A_WORKER, str(runs), str(reference), then],
        stdout=subprocess.PIPE, text=True, env=environment,
    )  # fmt: skip


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
    reason="counts a worker's threads in /proc, on a machine where BLAS would start more",
)
def test_numpy_in_a_worker_process_starts_no_threads_of_its_own(tmp_path: Path) -> None:
    """A worker has one core: numpy's BLAS, loaded by partial credit, starts no thread per
    core (they would spin beside the other worker). Run in a fresh interpreter, where numpy
    is not loaded yet."""
    process = _worker_run(tmp_path, "end")
    stdout, _ = process.communicate(timeout=120)
    found = json.loads(stdout.splitlines()[0])
    assert len(found) == 2
    # a worker runs its own two threads, scoring and watching its parent, numpy loaded or not;
    # which worker took the four chunks is the executor's choice (one may have taken them all)
    assert [threads for threads, _ in found] == [2, 2]
    assert any(loaded for _, loaded in found)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie not yet reaped by init counts)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc")
def test_workers_stop_when_their_reader_is_killed(tmp_path: Path) -> None:
    """A reader killed outright (it runs no clean-up): its workers stop, not wait forever."""
    process = _worker_run(tmp_path, "wait")
    assert process.stdout is not None
    process.stdout.readline()
    workers = [int(pid) for pid in process.stdout.readline().split()]
    assert len(workers) == 2
    process.kill()
    process.wait()
    deadline = time.monotonic() + 30  # a bound, not a measurement
    while not all(map(_gone, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [_gone(pid) for pid in workers] == [True, True]


def test_a_worker_that_dies_is_said_in_one_line(tmp_path: Path) -> None:
    """A worker process killed during a run: the command says so in one line, exit 2."""
    out, ref = shuffled_by_id(tmp_path, 20000)
    process = subprocess.Popen(
        [sys.executable, "-m", "matchevals.cli", "json", str(out), str(ref), "--id-key", "id",
         "--workers", "2", "--format", "jsonl", "-o", str(tmp_path / "r.jsonl")],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    children: list[str] = []
    while not children and time.monotonic() < deadline and process.poll() is None:
        path = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        children = path.read_text().split() if path.exists() else []
        time.sleep(0.05)
    assert children, "no worker was started"
    os.kill(int(children[0]), signal.SIGKILL)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    assert "matchevals: error: a worker process died" in stderr
    assert "Traceback" not in stderr


def _wait_channel(pid: str) -> str:
    """What a process is blocked in (the kernel's wait channel), '' once it is gone."""
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/wchan").read_text()
    return ""


def test_a_worker_killed_while_sending_its_batch_is_said_in_one_line(tmp_path: Path) -> None:
    """A worker killed in the middle of sending a batch (the executor's own thread then waits for
    the rest of that message forever): the command still says so in one line and ends, exit 2.

    The command is stopped (SIGSTOP) until a worker blocks writing a batch larger than the pipe
    holds; that worker is killed and the command resumed."""
    values = [{"id": i, "text": f"value {i} " * 8} for i in range(20000)]
    out = write_jsonl(tmp_path / "out.jsonl", values)
    ref = write_jsonl(tmp_path / "ref.jsonl", [{**v, "text": "other"} for v in reversed(values)])
    process = subprocess.Popen(
        [sys.executable, "-m", "matchevals.cli", "json", str(out), str(ref), "--id-key", "id",
         "--workers", "2", "--format", "jsonl", "-o", str(tmp_path / "r.jsonl")],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    children: list[str] = []
    while len(children) < 2 and time.monotonic() < deadline and process.poll() is None:
        path = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        children = path.read_text().split() if path.exists() else []
        time.sleep(0.001)
    writer = None
    while writer is None and time.monotonic() < deadline and process.poll() is None:
        os.kill(process.pid, signal.SIGSTOP)
        until = time.monotonic() + 0.5
        while writer is None and time.monotonic() < until:
            writer = next((c for c in children if "pipe_write" in _wait_channel(c)), None)
            time.sleep(0.005)
        if writer is None:
            os.kill(process.pid, signal.SIGCONT)
            time.sleep(0.003)
    if writer is None:
        os.kill(process.pid, signal.SIGCONT)
        process.communicate(timeout=120)
        pytest.skip("no worker was seen writing a batch (no /proc wait channels here?)")
    os.kill(int(writer), signal.SIGKILL)
    os.kill(process.pid, signal.SIGCONT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stderr
    assert stderr == "matchevals: error: a worker process died before it finished its chunk\n"


def test_the_executor_is_released_where_it_keeps_a_result_pipe_and_left_alone_elsewhere() -> None:
    """The one use of the executor's internals: closing this process's end of its result pipe
    (True); an executor without one is left as it is (False, no error)."""
    from concurrent.futures import ProcessPoolExecutor

    from matchevals.cli._engine import _release_results

    with ProcessPoolExecutor(1) as pool:
        assert pool.submit(abs, -3).result() == 3
        assert _release_results(pool) is True
    assert _release_results(object()) is False


def test_a_file_changed_under_a_worker_is_said_as_the_reader_would(tmp_path: Path) -> None:
    """A worker reading its chunk from a file that changed since the chunk was found: the
    InputError comes back as it is (the command line's one-line error, exit 2)."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}, {"a": 2}])
    with Reader(out) as outputs:
        job = job_for("json", {}, outputs, None, reference={"a": 1})
        chunk = outputs.read(5)
    span = Span(str(out), 0, sum(map(len, chunk.lines)), len(chunk.lines))
    out.write_text('{"a": 1}\n{"a": 22}\n')
    with engine_for(job, workers=2) as engine, pytest.raises(InputError, match="file changed"):
        engine.submit(Lines(0, span))()
    out.unlink()
    with engine_for(job, workers=2) as engine, pytest.raises(InputError, match="No such file"):
        engine.submit(Lines(0, span))()
