"""Where chunks are scored (this process, worker processes, Ray actors) and the reading loop.

The reading process moves bytes (it parses only the rare reference lines pairing by id must
judge: a duplicate id, a reference no output asked for): it reads chunks of raw lines, sends
them to workers (each chunk to the worker with the fewest calls not yet answered, which
keeps it between its two calls, see :mod:`matchevals.cli._work`), numbers the pairs from the
workers' short answers, and yields the workers' batches (rendered JSONL lines and a tally) in
input order, taking each step as soon as the answer it needs has come (so one worker's late
batch does not keep another waiting for its next call). Whatever the engine and whichever
worker scored a chunk, the batches are the same, so the report is byte-identical.

>>> import tempfile
>>> from pathlib import Path
>>> from matchevals.cli._read import Reader
>>> with tempfile.TemporaryDirectory() as folder:
...     out, ref = Path(folder, "o.jsonl"), Path(folder, "r.jsonl")
...     _ = out.write_text('{"a": 1}\\n{"a": 2}\\n'), ref.write_text('{"a": 1}\\n{"a": 3}\\n')
...     job = job_for("json", {}, Reader(out), Reader(ref), lines=True)
...     with InProcess(job) as engine:
...         batches = list(run_job(job, engine, Reader(out), Reader(ref), Counts()))
>>> [batch.tally.scored for batch in batches], batches[0].text.count("\\n")
([2], 2)
"""

from __future__ import annotations

import contextlib
import queue
import signal
import threading
import traceback
from collections import deque
from collections.abc import Iterator
from typing import Any, Protocol

from matchevals.cli._jsonl_line import jsonl_line
from matchevals.cli._pairing import ReferenceIndex, reference_lines
from matchevals.cli._read import Chunk, Counts, Problem, Reader
from matchevals.cli._run import Kind
from matchevals.cli._tally import Tally
from matchevals.cli._work import Batch, ChunkWorker, Job, Pairing

__all__ = ["CHUNK_BYTES", "CHUNK_LINES", "Engine", "InProcess", "Processes", "job_for", "run_job"]

CHUNK_LINES = 1000
CHUNK_BYTES = 1 << 20


class Pending(Protocol):
    def result(self) -> Any: ...

    def done(self) -> bool:
        """True once the answer has come (``result`` then returns at once)."""
        ...


class Engine(Protocol):
    """Runs :class:`ChunkWorker` calls on ``size`` workers, in order for each worker;
    ``reads_files``: the workers can open the reading process's files themselves."""

    size: int
    reads_files: bool

    def submit(self, worker: int, method: str, *args: Any) -> Pending: ...

    def least_busy(self) -> int:
        """The worker with the fewest calls not yet answered (ties: the lowest number)."""
        ...

    def wait(self) -> None:
        """Block until one more call is answered (at once when none is outstanding)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Engine: ...

    def __exit__(self, kind: object, *exc: object) -> None: ...


def job_for(
    kind: Kind,
    options: dict[str, Any],
    outputs: Reader,
    references: Reader | None,
    *,
    id_key: str | None = None,
    reference: Any = None,
    lines: bool = False,
    worst: int = 5,
    details: int | None = None,
) -> Job:
    """The job for these inputs: pairing by id, with one reference, or by position."""
    pairing: Pairing = "id" if id_key else "one" if references is None else "position"
    side = references.side if references is not None else outputs.side
    reference_file = None
    if pairing == "id" and references is not None and references.jsonl_path is not None:
        reference_file = str(references.jsonl_path.resolve())
    return Job(
        kind, options, pairing, outputs.side, side, id_key, reference, lines, worst, details,
        reference_file,
    )  # fmt: skip


class _Done:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value

    def done(self) -> bool:
        return True


class InProcess:
    """One worker: this process."""

    size = 1
    reads_files = True

    def __init__(self, job: Job) -> None:
        self._worker = ChunkWorker(job)

    def submit(self, worker: int, method: str, *args: Any) -> Pending:
        return _Done(getattr(self._worker, method)(*args))

    def least_busy(self) -> int:
        return 0

    def wait(self) -> None:
        return None  # every call is answered when it is made

    def close(self) -> None:
        self._worker.close()

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WorkerError(RuntimeError):
    """A worker process failed or died."""


def _serve(job: Job, requests: Any, replies: Any) -> None:
    """A worker process: answer calls until told to stop (Ctrl-C is the reader's business)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker = ChunkWorker(job)
    while (request := requests.get()) is not None:
        ticket, method, args = request
        try:
            replies.put((ticket, True, getattr(worker, method)(*args)))
        except BaseException:
            replies.put((ticket, False, traceback.format_exc()))
    worker.close()


class _Ticket:
    __slots__ = ("_engine", "_number")

    def __init__(self, engine: Processes, number: int) -> None:
        self._engine, self._number = engine, number

    def result(self) -> Any:
        return self._engine._wait(self._number)

    def done(self) -> bool:
        return self._engine._taken_in(self._number)


class Processes:
    """``size`` worker processes, forked when this process runs no other thread (then they
    start at once, with everything imported), else spawned."""

    reads_files = True

    def __init__(self, job: Job, size: int) -> None:
        import multiprocessing  # here: a run with one worker never needs it

        self.size = size
        context = (
            multiprocessing.get_context("fork")
            if _can_fork()
            else multiprocessing.get_context("spawn")
        )
        self._replies = context.Queue()
        self._requests = [context.Queue() for _ in range(size)]
        self._processes = [
            context.Process(target=_serve, args=(job, requests, self._replies), daemon=True)
            for requests in self._requests
        ]
        for process in self._processes:
            process.start()
        self._answers: dict[int, tuple[bool, Any]] = {}
        self._tickets = 0
        self._worker_of: dict[int, int] = {}  # the worker of each ticket not yet answered

    def submit(self, worker: int, method: str, *args: Any) -> Pending:
        self._tickets += 1
        self._requests[worker].put((self._tickets, method, args))
        self._worker_of[self._tickets] = worker
        return _Ticket(self, self._tickets)

    def least_busy(self) -> int:
        self._take_in_arrived()
        unanswered = [0] * self.size
        for worker in self._worker_of.values():
            unanswered[worker] += 1
        return unanswered.index(min(unanswered))

    def wait(self) -> None:
        if self._worker_of:
            self._take_in_one()

    def _take_in_arrived(self) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                self._arrived(*self._replies.get_nowait())

    def _taken_in(self, ticket: int) -> bool:
        if ticket in self._worker_of:
            self._take_in_arrived()
        return ticket not in self._worker_of

    def _arrived(self, ticket: int, ok: bool, value: Any) -> None:
        self._answers[ticket] = (ok, value)
        del self._worker_of[ticket]

    def _take_in_one(self) -> None:
        """Block until one answer comes; a WorkerError if a worker died meanwhile."""
        while True:
            try:
                answer = self._replies.get(timeout=1.0)
            except queue.Empty:
                for process in self._processes:
                    if not process.is_alive():
                        raise WorkerError(
                            f"a worker process died (exit code {process.exitcode})"
                        ) from None
                continue
            self._arrived(*answer)
            return

    def _wait(self, ticket: int) -> Any:
        while ticket not in self._answers:
            self._take_in_one()
        ok, value = self._answers.pop(ticket)
        if not ok:
            raise WorkerError(f"a worker process failed:\n{value}")
        return value

    def close(self) -> None:
        for requests in self._requests:
            with contextlib.suppress(Exception):
                requests.put(None)
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        for channel in (*self._requests, self._replies):
            channel.close()
            channel.cancel_join_thread()

    def terminate(self) -> None:
        for process in self._processes:
            if process.is_alive():
                process.terminate()

    def __enter__(self) -> Processes:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None:
            self.terminate()
        self.close()


def _can_fork() -> bool:
    """Fork is safe (and starts workers at once) only on POSIX with no other thread running."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def run_job(
    job: Job, engine: Engine, outputs: Reader, references: Reader | None, counts: Counts
) -> Iterator[Batch]:
    """Every batch of the report, in input order; ``counts`` is kept up to date."""
    if references is None:
        counts.references = None
    index: ReferenceIndex | None = None
    if job.pairing == "id":
        assert references is not None and job.id_key is not None
        index = ReferenceIndex(job.id_key, references.side)
        yield _index_references(job, engine, references, index, counts)
    yield from _score_outputs(job, engine, outputs, references, index, counts)
    if index is not None:
        assert references is not None
        yield _from_reader(job, index.orphans(references.fetch))
    if job.details:
        asked = [engine.submit(worker, "details") for worker in range(engine.size)]
        kept = [example for answer in asked for example in answer.result()]
        yield Batch("", Tally(job.kind, job.worst), 0, details=kept)


def _from_reader(job: Job, problems: list[Any]) -> Batch:
    """A batch of problems the reader found itself."""
    tally = Tally(job.kind, job.worst)
    for problem in problems:
        tally.add(problem)
    text = "".join(jsonl_line(problem) + "\n" for problem in problems) if job.lines else ""
    return Batch(text, tally, len(problems))


def _index_references(
    job: Job, engine: Engine, references: Reader, index: ReferenceIndex, counts: Counts
) -> Batch:
    """Index the references (their ids read by the workers); the problems in file order."""
    problems: list[tuple[int, Problem]] = []
    pending: deque[tuple[Chunk, Pending]] = deque()
    limit = 2 * engine.size
    while True:
        chunk = references.read(CHUNK_LINES, CHUNK_BYTES)
        if chunk.lines:
            pending.append((chunk, engine.submit(engine.least_busy(), "index", chunk)))
        while pending and (len(pending) >= limit or not chunk.lines):
            done, answer = pending.popleft()
            ids, places = answer.result()
            problems += index.add(done, ids, places, references.fetch)
        if not chunk.lines:
            break
    counts.references = references.read_so_far
    problems.sort(key=lambda found: found[0])
    return _from_reader(job, [problem for _, problem in problems])


def _score_outputs(
    job: Job,
    engine: Engine,
    outputs: Reader,
    references: Reader | None,
    index: ReferenceIndex | None,
    counts: Counts,
) -> Iterator[Batch]:
    """Each chunk to the least busy worker: read, then (in order) numbered and scored, each
    step taken as soon as its answer has come."""
    reading: deque[tuple[int, int, Chunk, Pending]] = deque()
    scoring: deque[Pending] = deque()
    size = engine.size
    # this process scores one chunk at a time (reading ahead would only keep more values alive)
    in_flight = 1 if isinstance(engine, InProcess) else 6 * size + 1
    number, first, exhausted = 0, 0, False
    by_position = job.pairing == "position"
    while True:
        while not exhausted and len(reading) + len(scoring) < in_flight:
            chunk = outputs.read(CHUNK_LINES, CHUNK_BYTES)
            partner = None
            if by_position:
                assert references is not None
                count = len(chunk.lines) or CHUNK_LINES
                partner = references.read(count, float("inf") if chunk.lines else CHUNK_BYTES)
            if not chunk.lines and not (partner and partner.lines):
                exhausted = True
                break
            worker = engine.least_busy()
            reading.append(
                (number, worker, chunk, engine.submit(worker, "read", number, chunk, partner))
            )
            number += 1
        if reading and reading[0][3].done():
            chunk_number, worker, chunk, answer = reading.popleft()
            decisions = lines = None
            if index is not None:
                assert references is not None
                decisions, pairs = index.decide(answer.result(), job.outputs, chunk.first)
                if not (engine.reads_files and job.reference_file):
                    lines = reference_lines(decisions, references.fetch)
            else:
                pairs = answer.result()
            scoring.append(engine.submit(worker, "score", chunk_number, first, decisions, lines))
            first += pairs
            continue
        if scoring and scoring[0].done():
            yield scoring.popleft().result()
            continue
        if not reading and not scoring:
            break
        # the next read to number and the next batch to yield are both awaited: whichever
        # answer comes first is acted on, so a worker is not kept idle by another's slow chunk
        engine.wait()
    counts.outputs = outputs.read_so_far
    if by_position:
        assert references is not None
        counts.references = references.read_so_far
