"""Pairing by id, the parts that make workers scale: the index's whole-chunk paths (checked
against the line-by-line ones), reference lines read by the workers or sent to them, chunks
given to the worker holding the fewest, and worker processes that answer reads at once, none
of which may change a byte of the report."""

from __future__ import annotations

import functools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.cli._engine import HELD_PER_WORKER, InProcess, job_for, run_job
from matchevals.cli._pairing import ReferenceIndex, line_places, place_of
from matchevals.cli._processes import Processes, WorkerError
from matchevals.cli._read import Chunk, Counts, Problem, Reader, Side, Span
from matchevals.cli._work import Batch, ChunkWorker, Job
from tests.cli.helpers import no_traceback, run, write_jsonl
from tests.cli.test_cli_scale import shuffled_by_id

SIDE = Side("ref.jsonl")
# an id, or None: the line's id could not be read (the worker's Problem stands in its place)
reference_ids = st.lists(st.none() | st.sampled_from(["a", "b", "c", "d", 1, 2]), max_size=8)


def _chunks(groups: list[list[Any]], broken: set[int]) -> tuple[list[Chunk], dict[int, bytes]]:
    """Chunks of reference lines holding these ids; the lines numbered in ``broken`` are cut
    short (their ids still readable from the text)."""
    chunks, lines, position, offset = [], {}, 0, 0
    for group in groups:
        texts, offsets = [], []
        for ident in group:
            text = json.dumps({"id": ident, "v": position}).encode()
            text = text[:-3] if position in broken else text
            texts.append(text + b"\n")
            offsets.append(offset)
            lines[offset] = text + b"\n"
            offset += len(text) + 1
            position += 1
        chunks.append(Chunk(position - len(group), texts, offsets))
    return chunks, lines


def _state(index: ReferenceIndex) -> tuple[Any, ...]:
    return (
        dict(index._where),
        index._unreadable_references.count,
        index._unreadable_outputs.count,
    )


@settings(max_examples=300, deadline=None)
@given(
    groups=st.lists(reference_ids, max_size=4),
    broken=st.sets(st.integers(0, 30), max_size=4),
    outputs=st.lists(st.lists(st.none() | st.sampled_from(["a", "b", "e", 1, 3])), max_size=4),
)
def test_whole_chunks_are_indexed_and_decided_as_line_by_line(
    groups: list[list[Any]], broken: set[int], outputs: list[list[Any]]
) -> None:
    """The oracle is the line-by-line path: whatever the ids (new, repeated, in one chunk or
    two, unreadable, lines not JSON), ``add`` and ``decide`` find the same problems, the same
    decisions and leave the index in the same state."""
    chunks, lines = _chunks(groups, broken)

    def fetch(offset: int, length: int) -> bytes:
        return lines[offset]

    fast, slow = ReferenceIndex("id", SIDE), ReferenceIndex("id", SIDE)
    for chunk, group in zip(chunks, groups, strict=True):
        ids: list[Any] = [
            Problem(SIDE.where(chunk.first + i), "no id") if ident is None else ident
            for i, ident in enumerate(group)
        ]
        places = line_places(chunk, parsed=[])
        got = fast.add(ids, places, fetch)
        assert got == slow._add_one_by_one(ids, places, fetch)
        assert _state(fast) == _state(slow)
    first = 0
    for group in outputs:
        decided = fast.decide(group, Side("out.jsonl"), first)
        expected = slow._decide_one_by_one(group, Side("out.jsonl"), first)
        assert decided == expected
        assert _state(fast) == _state(slow)
        first += len(group)
    assert fast.orphans(fetch) == slow.orphans(fetch)


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


class Scripted:
    """Workers in this process whose answers come in an order a script decides (each wait lets
    one call outstanding, chosen at random, be answered), reading the reference files
    themselves or sent the lines (as Ray actors are)."""

    def __init__(self, job: Job, size: int, reads_files: bool, seed: int) -> None:
        self.size, self.reads_files = size, reads_files
        self._workers = [ChunkWorker(job) for _ in range(size)]
        self._script = random.Random(seed)
        self._outstanding: list[_Later] = []
        self.given: list[int] = []  # the worker of each chunk, in the order they were read
        self.sent: set[type] = set()  # what the chunks of lines came as

    def submit(self, worker: int, method: str, *args: Any) -> _Later:
        if method == "read":
            self.given.append(worker)
        if method in ("read", "index"):
            self.sent.update(type(arg) for arg in args if isinstance(arg, (Chunk, Span)))
        answer = _Later(getattr(self._workers[worker], method)(*args), self._outstanding)
        self._outstanding.append(answer)
        return answer

    def wait(self) -> None:
        if self._outstanding:
            self._outstanding[self._script.randrange(len(self._outstanding))].come()

    def close(self) -> None:
        for worker in self._workers:
            worker.close()

    def __enter__(self) -> Scripted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Later:
    """An answer that has not come until ``come`` is called; ``result`` before then blocks
    (it comes at once, here) unless ``blocking`` is off."""

    def __init__(self, value: Any, outstanding: list[_Later], blocking: bool = True) -> None:
        self.value, self.ready, self.blocking = value, False, blocking
        self._outstanding = outstanding

    def come(self) -> None:
        if not self.ready:
            self.ready = True
            self._outstanding.remove(self)

    def done(self) -> bool:
        return self.ready

    def result(self) -> Any:
        assert self.ready or self.blocking, "the reader blocked on one worker's batch"
        self.come()
        return self.value


def _report(batches: list[Batch]) -> list[tuple[Any, ...]]:
    return [
        (batch.encoded, batch.tally.scored, batch.tally.problems, batch.tally.score.total)
        for batch in batches
    ]


def _batches(out: Path, ref: Path, engine_of: Any) -> tuple[list[Batch], Any]:
    outputs, references = Reader(out), Reader(ref)
    job = job_for("json", {}, outputs, references, id_key="id", lines=True)
    with outputs, references, engine_of(job) as engine:
        return list(run_job(job, engine, outputs, references, Counts())), engine


def test_whichever_worker_scores_a_chunk_and_however_it_gets_its_references(
    tmp_path: Path,
) -> None:
    """Chunks given to workers at random, reference lines read from the file by the workers or
    sent to them: the batches are one process's, byte for byte."""
    out, ref = shuffled_by_id(tmp_path, 2600)  # 3 chunks, every pairing problem
    expected, _ = _batches(out, ref, InProcess)
    for seed, reads_files in [(1, True), (2, False), (3, True)]:
        got, engine = _batches(
            out, ref, functools.partial(Scripted, size=3, reads_files=reads_files, seed=seed)
        )
        assert _report(got) == _report(expected)
        assert len(set(engine.given)) > 1  # the chunks did go to different workers
        # workers that open the files are told where the lines are; the others get the lines
        assert engine.sent == ({Span} if reads_files else {Chunk})


class HeldBack:
    """Two workers in this process; worker 0's batches are held back until the reader waits
    (as a worker slowed by its neighbour is late), and a reader that asks for one before it
    has come fails."""

    size, reads_files = 2, True

    def __init__(self, job: Job) -> None:
        self._workers = [ChunkWorker(job), ChunkWorker(job)]
        self._held: list[_Later] = []
        self.calls: list[tuple[int, str]] = []
        self.calls_before_waiting: list[list[tuple[int, str]]] = []

    def submit(self, worker: int, method: str, *args: Any) -> _Later:
        self.calls.append((worker, method))
        answer = _Later(getattr(self._workers[worker], method)(*args), [], blocking=False)
        if worker == 0 and method == "score":
            self._held.append(answer)
        else:
            answer.ready = True
        return answer

    def wait(self) -> None:
        self.calls_before_waiting.append(list(self.calls))
        for answer in self._held:
            answer.ready = True
        self._held.clear()

    def __enter__(self) -> HeldBack:
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self._workers:
            worker.close()


def test_a_late_worker_is_given_no_more_and_keeps_no_one_waiting(tmp_path: Path) -> None:
    """While worker 0's batches are late, it is given no more than HELD_PER_WORKER chunks; the
    reader numbers the other chunks as their reads come and sends them to worker 1 to be
    scored, all before it first waits; the report is one process's, byte for byte."""
    out, ref = shuffled_by_id(tmp_path, 6000)  # 7 chunks of outputs
    expected, _ = _batches(out, ref, InProcess)
    got, engine = _batches(out, ref, HeldBack)
    assert _report(got) == _report(expected)
    first_wait = engine.calls_before_waiting[0]
    assert first_wait.count((0, "score")) == engine.calls.count((0, "score")) == HELD_PER_WORKER
    assert first_wait.count((1, "score")) == engine.calls.count((1, "score")) == 7 - HELD_PER_WORKER


def test_done_and_wait_of_worker_processes(tmp_path: Path) -> None:
    """``done`` says whether an answer has come without waiting for it; ``wait`` blocks until
    one more comes, and returns at once when nothing is outstanding."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    outputs = Reader(out)
    job = job_for("json", {}, outputs, None)
    with outputs, Processes(job, 2) as engine:
        first = engine._processes[0].pid
        assert first is not None
        os.kill(first, signal.SIGSTOP)  # worker 0 cannot answer now
        try:
            stuck = engine.submit(0, "ready")
            answered = [engine.submit(1, "ready") for _ in range(3)]
            assert [answer.result() for answer in answered] == [True] * 3
            assert all(answer.done() for answer in answered) and not stuck.done()
        finally:
            os.kill(first, signal.SIGCONT)
        engine.wait()  # until the one call outstanding is answered
        assert stuck.done()
        engine.wait()  # nothing outstanding: at once
        assert stuck.result() is True


def _until(condition: Any, seconds: float = 20.0) -> bool:
    """Whether ``condition()`` turns true within ``seconds`` (a bound, not a measurement)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_worker_process_answers_a_read_while_a_score_runs(tmp_path: Path) -> None:
    """A score sent before a read does not keep the read waiting: here the score is stuck
    opening its references file (a named pipe nobody writes to) until the read is answered."""
    fifo = tmp_path / "ref.jsonl"
    os.mkfifo(fifo)
    job = Job("json", {}, "id", Side("out.jsonl"), SIDE, "id", lines=True, reference_file=str(fifo))
    line = b'{"id": "a", "v": 1}\n'
    index = ReferenceIndex("id", SIDE)
    chunk = Chunk(0, [line], [0])
    index.add(["a"], line_places(chunk, []), lambda offset, length: line)
    with Processes(job, 1) as engine:
        assert engine.submit(0, "read", 0, chunk, None).result() == ["a"]
        decisions, _ = index.decide(["a"], Side("out.jsonl"), 0)
        stuck = engine.submit(0, "score", 0, 0, decisions, None)
        read = engine.submit(0, "read", 1, Chunk(1, [line], [len(line)]), None)
        assert _until(read.done), "the read waited behind the score"
        assert read.result() == ["a"] and not stuck.done()
        writer = os.open(fifo, os.O_WRONLY)  # the score opens the pipe now, and goes on
        os.close(writer)
        assert _until(stuck.done)
        with pytest.raises(WorkerError, match="Illegal seek"):  # a pipe has no offsets
            stuck.result()


NUMERICS_IN_A_WORKER = """
import json, os, sys
from pathlib import Path
from matchevals.cli._engine import job_for
from matchevals.cli._processes import Processes
from matchevals.cli._read import Reader
runs, reference = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
with Reader(runs) as outputs:
    job = job_for("graph", {"partial_credit": True}, outputs, None, reference=reference)
    with Processes(job, 1) as engine:
        chunk = outputs.read(10)
        engine.submit(0, "read", 0, chunk, None).result()
        engine.submit(0, "score", 0, 0).result()
        pid = engine._processes[0].pid
        maps = Path(f"/proc/{pid}/maps").read_text()
        print(json.dumps([len(os.listdir(f"/proc/{pid}/task")), "numpy" in maps]))
"""


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
    reason="counts a worker's threads in /proc, on a machine where BLAS would start more",
)
def test_numpy_in_a_worker_process_starts_no_threads_of_its_own(tmp_path: Path) -> None:
    """A worker has one core: numpy's BLAS, loaded by partial credit, starts no thread per
    core (they would spin beside the other worker). Run in a fresh interpreter, where numpy
    is not loaded yet."""
    steps = [["plan"], ["search", "fetch"], ["read"], ["write"]]
    runs = write_jsonl(tmp_path / "runs.jsonl", [{"steps": [["plan"], ["fetch"], ["write"]]}])
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"steps": steps}))
    environment = {
        name: value for name, value in os.environ.items() if not name.endswith("_NUM_THREADS")
    }
    done = subprocess.run(
        [sys.executable, "-c", NUMERICS_IN_A_WORKER, str(runs), str(reference)],
        capture_output=True, text=True, check=True, env=environment,
    )  # fmt: skip
    threads, numpy_loaded = json.loads(done.stdout)
    assert numpy_loaded  # partial credit did load it, in the worker
    assert threads == 2  # the worker's own: scoring, and taking calls in


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


def test_one_process_holds_one_chunk_at_a_time(tmp_path: Path) -> None:
    """Without workers nothing is gained by reading ahead: one chunk's values are alive."""
    out, ref = shuffled_by_id(tmp_path, 2600)
    outputs, references = Reader(out), Reader(ref)
    job = job_for("json", {}, outputs, references, id_key="id", lines=True)
    held = []
    with outputs, references, InProcess(job) as engine:
        for _ in run_job(job, engine, outputs, references, Counts()):
            held.append(len(engine._worker._held))
    assert max(held) == 0  # each chunk read is scored before the next is read
    assert len(held) == 3 + 2  # the index's batch, 3 chunks, the orphans


FROZEN_IN_A_WORKER = """
import gc, json, sys
from pathlib import Path
from matchevals.cli import _processes
from matchevals.cli._engine import job_for
from matchevals.cli._read import Reader
from matchevals.cli._work import ChunkWorker

class Counting(ChunkWorker):
    def frozen(self):
        return gc.get_freeze_count()

_processes.ChunkWorker = Counting  # what a forked worker builds
with Reader(Path(sys.argv[1])) as outputs:
    job = job_for("json", {}, outputs, None)
    forked = _processes.can_fork()
    with _processes.Processes(job, 2) as engine:
        frozen = [engine.submit(worker, "frozen").result() for worker in (0, 1)]
    print(json.dumps([forked, frozen, gc.get_freeze_count()]))
"""


def test_forked_workers_get_the_objects_made_before_them_frozen(tmp_path: Path) -> None:
    """Their garbage collector never visits what the reading process made before forking
    (which would copy those pages into each worker); the reading process collects as before."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    done = subprocess.run(
        [sys.executable, "-c", FROZEN_IN_A_WORKER, str(out)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    forked, frozen, left_in_reader = json.loads(done.stdout)
    assert forked
    assert min(frozen) > 10_000  # the modules imported, the job: all set aside
    assert left_in_reader == 0
