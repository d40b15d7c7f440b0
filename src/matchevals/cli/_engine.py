"""The engine: the inputs read in chunks, each chunk scored (here, in ``--workers`` processes
or on Ray), the batches yielded in input order.

One bounded submission loop (:func:`in_order`) feeds the pure chunk scorer
(:class:`~matchevals._line_scoring.ChunkScorer`) wherever it runs: in this process, one chunk
at a time; on a ``concurrent.futures.ProcessPoolExecutor`` for ``--workers N``; on a
``ray.util.multiprocessing.Pool`` for ``--engine ray``. At most :data:`AHEAD_PER_WORKER` chunks
per worker are in flight, so memory stays bounded whatever the size of the files. This process
reads the lines (pairing by id, it also reads the ids and keeps the index, a
:class:`~matchevals._line_scoring.ReferenceIndex`); the workers parse, score and render. Worker
processes on this machine are sent where a chunk's lines are (a
:class:`~matchevals._line_scoring.Span`) and read them again from the file: for 1 GB that costs
less than sending the lines through pipes.

>>> import tempfile
>>> from pathlib import Path
>>> from matchevals.cli._read import Reader
>>> from matchevals.report._summary import Counts
>>> with tempfile.TemporaryDirectory() as folder:
...     out, ref = Path(folder, "o.jsonl"), Path(folder, "r.jsonl")
...     _ = out.write_text('{"a": 1}\\n{"a": 2}\\n'), ref.write_text('{"a": 1}\\n{"a": 3}\\n')
...     with Reader(out) as outputs, Reader(ref) as references:
...         job = job_for("json", {}, outputs, references, lines=True)
...         with engine_for(job) as engine:
...             placed = list(run_job(job, engine, outputs, references, Counts()))
>>> [batch.tally.scored for _, batch in placed], placed[0][0].count(b"\\n")
([2], 2)
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import io
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from matchevals._json_escape import JSON_ESCAPE
from matchevals._line_scoring import (
    Batch,
    Chunk,
    ChunkScorer,
    Job,
    Lines,
    Pairing,
    Partner,
    ReferenceIndex,
    Span,
    ValueText,
    output_ids,
    reference_ids,
    reference_lines,
)
from matchevals._scoring import Problem
from matchevals.cli._read import InputError, Reader
from matchevals.report._lines import jsonl_line
from matchevals.report._stats import Tally
from matchevals.report._summary import Counts, Kind

__all__ = [
    "AHEAD_PER_WORKER",
    "CHUNK_BYTES",
    "CHUNK_LINES",
    "WorkerError",
    "can_fork",
    "engine_for",
    "in_order",
    "job_for",
    "run_job",
]

CHUNK_LINES = 1000
CHUNK_BYTES = 1 << 20
AHEAD_PER_WORKER = 2
"""Chunks in flight per worker: the one it scores and the next, so it never waits for work."""
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 in a worker process unless already set: a worker has one core, and numpy's BLAS
would start a thread per core (which spin for a while even when never given work)."""


class WorkerError(Exception):
    """A worker process died during the run (killed, say): exit 2, said in one line."""


Submit = Callable[[Lines], Callable[[], Batch]]
"""Start scoring a chunk; the function returned waits for its batch."""


class Engine(NamedTuple):
    """How to submit a chunk, how many chunks to submit beyond the one awaited, and whether
    the workers read the lines of a JSONL file themselves (sent :class:`Span` s)."""

    submit: Submit
    ahead: int
    reads_files: bool = False


def _read_span(span: Span, descriptor: int) -> list[bytes]:
    """The lines of ``span``, read from ``descriptor`` (the file at its path); an
    :class:`InputError` if the file changed since they were found."""
    data = os.pread(descriptor, span.end - span.start, span.start)
    lines = io.BytesIO(data).readlines()
    cut = data[-1:] != b"\n" and os.fstat(descriptor).st_size != span.end  # a line cut short
    if len(data) != span.end - span.start or len(lines) != span.count or cut:
        raise InputError(f"{span.path}: the file changed while it was being read")
    return lines


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
    encoding: str = "utf-8",
) -> Job:
    """The job for these inputs: pairing by id, with one reference, or by position."""
    pairing: Pairing = "one" if references is None else "id" if id_key else "position"
    side = references.side if references is not None else outputs.side
    return Job(
        kind, options, pairing, outputs.side, side, id_key, reference, lines, worst, details,
        encoding,
    )  # fmt: skip


def run_job(
    job: Job, engine: Engine, outputs: Reader, references: Reader | None, counts: Counts
) -> Iterator[tuple[bytes, Batch]]:
    """Every batch of the report in input order, numbered, with its report lines encoded;
    ``counts`` is kept up to date."""
    if references is None:
        counts.references = None
    index: ReferenceIndex | None = None
    if job.pairing == "id":
        assert references is not None and job.id_key is not None
        index = ReferenceIndex(job.id_key, references.side)
        yield _problems(job, _index_references(job, references, index))
        counts.references = references.read_so_far
    chunks = _chunks(job, outputs, references, index, engine.reads_files)
    numbered = 0
    for batch in in_order(engine.submit, engine.ahead, chunks):
        yield batch.place(numbered, job.encoding), batch
        numbered += batch.pairs
    counts.outputs = outputs.read_so_far
    if index is not None:
        assert references is not None
        yield _problems(job, index.orphans(references.fetch))
    elif references is not None:
        counts.references = references.read_so_far


def in_order(submit: Submit, ahead: int, chunks: Iterable[Lines]) -> Iterator[Batch]:
    """Each chunk's batch, in order, with at most ``ahead`` chunks submitted beyond the one
    whose batch is awaited."""
    pending: deque[Callable[[], Batch]] = deque()
    for chunk in chunks:
        pending.append(submit(chunk))
        if len(pending) > ahead:
            yield pending.popleft()()
    while pending:
        yield pending.popleft()()


def _problems(job: Job, problems: list[Problem]) -> tuple[bytes, Batch]:
    """A batch of problems this process found itself (pairing by id)."""
    tally = Tally(job.worst)
    for problem in problems:
        tally.add(problem)
    lines = [jsonl_line(p).encode(job.encoding, JSON_ESCAPE) + b"\n" for p in problems]
    lines = lines if job.lines else []
    return b"".join(lines), Batch(lines, [-1] * len(lines), tally, items=len(problems))


def _index_references(job: Job, references: Reader, index: ReferenceIndex) -> list[Problem]:
    """Index the references; the problems found, in file order."""
    found: list[tuple[int, Problem]] = []
    cut = ValueText(job.id_key)
    while chunk := references.read(CHUNK_LINES, CHUNK_BYTES):
        ids, places = reference_ids(chunk, cut, references.side)
        found += index.add(ids, places, references.fetch)
    found.sort(key=lambda entry: entry[0])
    return [problem for _, problem in found]


def _chunks(
    job: Job,
    outputs: Reader,
    references: Reader | None,
    index: ReferenceIndex | None,
    spans: bool = False,
) -> Iterator[Lines]:
    """The chunks to score: outputs with, by position, as many reference lines; by id, each
    output's reference line (or the problem in its place). With ``spans``, the lines of a
    JSONL file are sent as where they are."""
    sent = functools.partial(_sent, spans)
    while True:
        chunk = outputs.read(CHUNK_LINES, CHUNK_BYTES)
        if job.pairing == "position":
            assert references is not None
            count = len(chunk) or CHUNK_LINES
            partner = references.read(count, float("inf") if len(chunk) else CHUNK_BYTES)
            if not chunk and not partner:
                return
            first = chunk.first if chunk else partner.first
            yield Lines(first, sent(outputs, chunk), sent(references, partner))
            continue
        if not chunk:
            return
        if index is None:
            yield Lines(chunk.first, sent(outputs, chunk))
            continue
        assert references is not None and job.id_key is not None
        ids, problems = output_ids(chunk, job.id_key, job.outputs)
        decisions, _ = index.decide(ids, job.outputs, chunk.first)
        texts = reference_lines(decisions, references.fetch)
        partners: list[Partner] = []
        for decision, problem, text in zip(decisions, problems, texts, strict=True):
            if text is not None and type(decision) is int:
                partners.append((text, decision))
            else:
                assert problem is not None or isinstance(decision, Problem)
                partners.append(problem or decision)  # type: ignore[arg-type]
        yield Lines(chunk.first, sent(outputs, chunk), partners=partners)


def _sent(spans: bool, reader: Reader, chunk: Chunk) -> list[bytes] | Span:
    """A chunk's lines, or (``spans``, a JSONL file) where they are."""
    if not spans or reader.jsonl_path is None or not chunk.lines:
        return chunk.lines
    end = chunk.offsets[-1] + len(chunk.lines[-1])
    return Span(reader.path, chunk.offsets[0], end, len(chunk.lines))


@contextlib.contextmanager
def engine_for(
    job: Job, engine: str = "local", workers: int | None = None, address: str | None = None
) -> Iterator[Engine]:
    """Where chunks are scored: this process, ``workers`` processes, or a Ray pool."""
    if engine == "ray":
        with _ray_pool(job, workers, address) as pool:
            yield pool
    elif (workers or 1) > 1:
        with _process_pool(job, workers or 1) as pool:
            yield pool
    else:
        scorer = ChunkScorer(job)
        yield Engine(lambda chunk: lambda: scorer(chunk), 0)  # one chunk at a time


_scorer: ChunkScorer | None = None


def _start_worker(job: Job, parent: int | None) -> None:
    """A worker process: its scorer built once; Ctrl-C is the reading process's business; it
    ends when the reading process is gone (``parent``: its id, None on Ray)."""
    global _scorer
    if parent is not None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Thread(target=_end_when_orphaned, args=(parent,), daemon=True).start()
    for name in ONE_THREAD:  # before numpy is loaded, by the first chunk that needs it
        os.environ.setdefault(name, "1")
    _scorer = ChunkScorer(job)


def _end_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


_descriptors: dict[str, int] = {}  # a worker's files, each opened once


def _score(chunk: Lines) -> Batch:
    assert _scorer is not None
    if isinstance(chunk.outputs, Span) or isinstance(chunk.references, Span):
        references = chunk.references
        chunk = dataclasses.replace(
            chunk,
            outputs=_lines(chunk.outputs),
            references=None if references is None else _lines(references),
        )
    return _scorer(chunk)


def _lines(lines: list[bytes] | Span) -> list[bytes]:
    """A chunk's lines, read where a span says they are."""
    if not isinstance(lines, Span):
        return lines
    descriptor = _descriptors.get(lines.path)
    if descriptor is None:
        try:
            descriptor = _descriptors[lines.path] = os.open(lines.path, os.O_RDONLY)
        except OSError as error:
            raise InputError(f"{lines.path}: {error.strerror or error}") from None
    return _read_span(lines, descriptor)


@contextlib.contextmanager
def _process_pool(job: Job, workers: int) -> Iterator[Engine]:
    """``workers`` processes, forked when this process runs no other thread (they then start at
    once, with everything imported), else spawned."""
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if can_fork() else "spawn")
    others = _children()  # processes this one had already: not the pool's
    pool = ProcessPoolExecutor(workers, context, _start_worker, (job, os.getpid()))
    started: set[int] = set()  # the pool's workers, started as chunks are submitted

    def submit(chunk: Lines) -> Callable[[], Batch]:
        with _died_said():
            future: Future[Batch] = pool.submit(_score, chunk)
        started.update(_children() - others)

        def result() -> Batch:
            with _died_said():
                while True:
                    try:
                        return future.result(timeout=WATCH_SECONDS)
                    except concurrent.futures.TimeoutError:
                        if not started <= _children():
                            _end_broken_pool(pool, started)

        return result

    try:
        yield Engine(submit, AHEAD_PER_WORKER * workers, reads_files=True)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


WATCH_SECONDS = 1.0
"""How often a wait for a batch checks that every worker is still alive."""


def _children() -> set[int]:
    """The process ids of this process's live ``multiprocessing`` children."""
    import multiprocessing

    return {child.pid for child in multiprocessing.active_children() if child.pid is not None}


def _end_broken_pool(pool: Any, workers: set[int]) -> None:
    """A worker is gone: the other ``workers`` are ended and a WorkerError raised.

    The executor notices a dead worker itself, except when it was killed in the middle of
    sending a batch: the executor's thread then waits for the rest of that message forever, and
    Python would wait for that thread at exit. :func:`_release_results` releases it.
    """
    import multiprocessing

    for child in multiprocessing.active_children():
        if child.pid in workers:
            child.terminate()
    _release_results(pool)
    pool.shutdown(wait=True, cancel_futures=True)  # its thread ends now, not during exit
    raise WorkerError("a worker process died before it finished its chunk")


def _release_results(pool: Any) -> bool:
    """Close this process's end of the executor's result pipe, so that its thread, waiting for a
    message a dead worker never finished, reads the end of the pipe and stops (the executor has
    no public way to do it). False, doing nothing, where the executor keeps no such pipe."""
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    close = getattr(writer, "close", None)
    if not callable(close):
        return False
    close()
    return True


@contextlib.contextmanager
def _died_said() -> Iterator[None]:
    """A worker process that died (killed, say) is a WorkerError, said in one line."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        yield
    except BrokenProcessPool:
        raise WorkerError("a worker process died before it finished its chunk") from None


def can_fork() -> bool:
    """Fork is safe (and starts workers at once) only on POSIX with no other thread running."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


@contextlib.contextmanager
def _ray_pool(job: Job, workers: int | None, address: str | None) -> Iterator[Engine]:
    """A Ray pool of ``workers`` actors (default: one per CPU of the cluster); without an
    address (or ``RAY_ADDRESS``) a local Ray is started for the run and stopped after it."""
    try:
        import importlib

        ray: Any = importlib.import_module("ray")
        pool_type: Any = importlib.import_module("ray.util.multiprocessing").Pool
    except ImportError:
        raise InputError("--engine ray needs Ray: pip install 'matchevals[ray]'") from None
    started = not ray.is_initialized()
    if started:
        import logging

        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if workers is not None and workers > cpus:  # else the pool would refuse it in its words
            raise InputError(f"--workers {workers}: the Ray cluster has {cpus} CPUs, one per actor")
        size = workers or max(1, cpus)
        pool = pool_type(size, initializer=_start_worker, initargs=(job, None))
        try:
            submit = pool.apply_async
            yield Engine(lambda chunk: submit(_score, (chunk,)).get, AHEAD_PER_WORKER * size)
        finally:
            pool.terminate()
    finally:
        if started:
            ray.shutdown()
