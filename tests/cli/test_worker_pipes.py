"""How calls and answers travel between the reader and its worker processes: through pipes,
written by the threads that make them, a batch's report lines out of band (not copied into
the pickle); a call that may not fit in its pipe by a sending thread (so a full pipe never
deadlocks the two); a worker's death and the reader's seen."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from matchevals.cli import _processes
from matchevals.cli._engine import InProcess, job_for, run_job
from matchevals.cli._processes import PIPE_BYTES, Processes, WorkerError
from matchevals.cli._read import Chunk, Counts, InputError, Reader
from matchevals.cli._tally import Tally
from matchevals.cli._work import Batch, ChunkWorker, Job
from tests.cli.helpers import write_jsonl
from tests.cli.test_cli_scale import shuffled_by_id

pytestmark = pytest.mark.skipif(not _processes.can_fork(), reason="forks worker processes")


def _report(out: Path, ref: Path, engine_of: Any) -> list[tuple[Any, ...]]:
    outputs, references = Reader(out), Reader(ref)
    job = job_for("json", {}, outputs, references, id_key="id", lines=True)
    with outputs, references, engine_of(job) as engine:
        batches: list[Batch] = list(run_job(job, engine, outputs, references, Counts()))
    return [(batch.encoded, batch.tally.scored, batch.tally.problems) for batch in batches]


def _senders() -> int:
    return sum(thread.name == "matchevals-send" for thread in threading.enumerate())


def test_calls_written_by_the_sending_thread_give_the_same_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a pipe's size cannot be known, every call goes through the sending thread: the
    report is the one this process makes alone, byte for byte. Where it is known, the reader
    writes the calls itself and starts no thread."""
    out, ref = shuffled_by_id(tmp_path, 2600)  # 3 chunks, every pairing problem
    expected = _report(out, ref, InProcess)
    seen: list[int] = []

    def two_workers(job: Job) -> Processes:
        engine = Processes(job, 2)
        seen.append(_senders())
        return engine

    def watched(job: Job) -> Any:
        engine = two_workers(job)
        original = engine.submit

        def submit(*args: Any) -> Any:
            ticket = original(*args)
            seen.append(_senders())
            return ticket

        engine.submit = submit  # type: ignore[method-assign]
        return engine

    assert _report(out, ref, watched) == expected
    if sys.platform == "linux":
        assert max(seen) == 0  # Linux tells a pipe's size: no call needed the thread
    seen.clear()
    monkeypatch.setattr(_processes, "_pipe_room", lambda end: 0)
    assert _report(out, ref, watched) == expected
    assert seen[0] == 0 and max(seen) == 1  # started by the first call, one for all


DEADLOCK = """
import sys
from matchevals.cli._processes import PIPE_BYTES, Processes
from matchevals.cli._read import Chunk, Side
from matchevals.cli._work import Job

# ids so long that one chunk's answer, and the call of the next chunk, each fill a pipe
ident = "x" * (PIPE_BYTES // 4)
lines = [b'{"id": "%s%d", "v": 1}\\n' % (ident.encode(), i) for i in range(8)]
job = Job("json", {}, "id", Side("out.jsonl"), Side("ref.jsonl"), "id")
with Processes(job, 1) as engine:
    first = engine.submit(0, "read", 0, Chunk(0, lines[:4], [0] * 4), None)
    # the worker is writing the first answer, which the reader does not take in yet: this
    # call, larger than the pipe, could be written only once the worker reads on
    second = engine.submit(0, "read", 1, Chunk(4, lines[4:], [0] * 4), None)
    answers = [first.result(), second.result()]
print([[len(ident) for ident in answer] for answer in answers])
"""


def test_a_call_larger_than_its_pipe_while_the_worker_writes_a_large_answer() -> None:
    """A worker writing an answer larger than its pipe reads no call until the reader takes
    the answer in: a call that may not fit is written by the sending thread, so the reader
    goes on to take the answer in, and neither waits for the other forever."""
    done = subprocess.run(
        [sys.executable, "-c", DEADLOCK], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    length = PIPE_BYTES // 4 + 1
    assert json.loads(done.stdout) == [[length] * 4, [length] * 4]


def test_a_worker_that_dies_is_reported_not_waited_for(tmp_path: Path) -> None:
    """Killed while it holds a call, a worker ends its pipe: the answer's wait raises a
    WorkerError with its exit status."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    with Reader(out) as outputs, Processes(job_for("json", {}, outputs, None), 2) as engine:
        pid = engine._processes[0].pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        stuck = engine.submit(0, "ready")
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerError, match=r"a worker process died \(exit code -9\)"):
            stuck.result()


def test_a_call_to_a_dead_worker_is_reported(tmp_path: Path) -> None:
    """Writing to a worker that has died is a WorkerError too, not a BrokenPipeError."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    with Reader(out) as outputs, Processes(job_for("json", {}, outputs, None), 1) as engine:
        process = engine._processes[0]
        process.kill()
        process.join()
        with pytest.raises(WorkerError, match="died"):
            engine.submit(0, "read", 0, Chunk(0, [b'{"a": 1}\n'], [0]), None).result()


def test_a_worker_that_finds_its_file_changed_says_so_as_the_reader_would(tmp_path: Path) -> None:
    """The InputError a worker meets (its span's file changed since the reader found the
    span) comes back as it is: the reader raises it as if it had met it itself (the command
    line's one-line error, exit status 2), not a WorkerError with the worker's traceback."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}, {"a": 2}])
    with Reader(out) as outputs, Processes(job_for("json", {}, outputs, None), 1) as engine:
        span = outputs.span(5)
        out.write_text('{"a": 1}\n{"a": 22}\n')
        with pytest.raises(InputError, match=r"out\.jsonl: the file changed while it was being"):
            engine.submit(0, "read", 0, span, None).result()
        assert engine.submit(0, "ready").result() is True  # the worker serves on


def test_a_file_removed_before_a_worker_opens_it_is_an_input_error(tmp_path: Path) -> None:
    """In this process or a worker's, a file gone before the worker opens it is said in one
    line, not an OSError's traceback."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    with Reader(out) as outputs:
        job = job_for("json", {}, outputs, None)
        span = outputs.span(5)
    out.unlink()
    gone = r"out\.jsonl: No such file or directory"
    with pytest.raises(InputError, match=gone):
        ChunkWorker(job).read(0, span, None)
    with Processes(job, 1) as engine, pytest.raises(InputError, match=gone):
        engine.submit(0, "read", 0, span, None).result()


ORPHANED = """
import sys, time
from pathlib import Path
from matchevals.cli._engine import job_for
from matchevals.cli._processes import Processes
from matchevals.cli._read import Reader
with Reader(Path(sys.argv[1])) as outputs:
    engine = Processes(job_for("json", {}, outputs, None), 2)
    print(*[answer.result() for answer in [engine.submit(w, "ready") for w in (0, 1)]])
    print(*[process.pid for process in engine._processes], flush=True)
    time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie not yet reaped by init counts)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc")
def test_workers_stop_when_their_reader_is_killed(tmp_path: Path) -> None:
    """A reader killed outright (it runs no clean-up) ends its pipes: its workers stop, not
    wait forever for calls."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    reader = subprocess.Popen(
        [sys.executable, "-c", ORPHANED, str(out)], stdout=subprocess.PIPE, text=True
    )
    assert reader.stdout is not None
    assert reader.stdout.readline().split() == ["True", "True"]
    workers = [int(pid) for pid in reader.stdout.readline().split()]
    reader.kill()
    reader.wait()
    deadline = time.monotonic() + 30  # a bound, not a measurement
    while not all(map(_gone, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [_gone(pid) for pid in workers] == [True, True]


def test_pipes_are_raised_to_a_mebibyte_where_linux_allows(tmp_path: Path) -> None:
    """The room the reader counts on is the pipe's own size, as the system reports it."""
    out = write_jsonl(tmp_path / "out.jsonl", [{"a": 1}])
    with Reader(out) as outputs, Processes(job_for("json", {}, outputs, None), 1) as engine:
        rooms = [_processes._pipe_room(end) for end in engine._requests]
    if sys.platform == "linux":
        limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
        assert rooms == [min(PIPE_BYTES, limit)]
    else:
        assert rooms == [0]


def _batch() -> Batch:
    tally = Tally("json", 5)
    return Batch(b'{"type": "example"}\n' * 1000, tally, 1000, ids=["a", 1], rows=[])  # 20 KB


def test_a_batch_pickles_its_lines_out_of_band() -> None:
    """With protocol 5 and a buffer callback, a batch's lines are one buffer outside the
    pickle, and the batch unpickled holds the very bytes given back; other protocols carry
    them inside, and a buffer given back as a memoryview (as Ray may) becomes bytes."""
    batch = _batch()
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(batch, 5, buffer_callback=buffers.append)
    assert [bytes(buffer.raw()) for buffer in buffers] == [batch.encoded]
    assert len(data) < 1000 < len(batch.encoded)
    lines = bytes(buffers[0].raw())
    again = pickle.loads(data, buffers=[lines])
    assert again.encoded is lines and again == batch
    assert pickle.loads(data, buffers=[memoryview(lines)]).encoded == lines
    for protocol in range(2, 6):
        copied = pickle.loads(pickle.dumps(batch, protocol))
        assert copied == batch and type(copied.encoded) is bytes


def test_a_message_through_a_pipe_is_its_pickle_then_its_buffers() -> None:
    """What :func:`_parts` writes, :func:`_receive` reads back: the batch, its lines the
    bytes of the second message (written as they are, not copied into the first)."""
    batch = _batch()
    parts = _processes._parts((7, True, batch))
    assert len(parts) == 2 and len(parts[0]) < 1000 and bytes(parts[1]) == batch.encoded
    receiving, sending = multiprocessing.Pipe(duplex=False)
    with receiving, sending:
        for part in parts:
            sending.send_bytes(part)
        sending.send_bytes(_processes._parts(None)[0])
        assert _processes._receive(receiving) == (7, True, batch)
        assert _processes._receive(receiving) is None
