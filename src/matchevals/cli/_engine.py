"""The reading loop, the engines' protocol, and scoring in this process.

The reading process moves bytes (it parses only the rare reference lines pairing by id must
judge: a duplicate id, a reference no output asked for): it finds where chunks of lines are
(:class:`~matchevals.cli._read.Span`, which the workers read themselves; the lines, for engines
whose workers cannot open the files), sends them to workers, numbers the pairs from the
workers' short answers (a chunk is held by its worker between its two calls, see
:mod:`matchevals.cli._work`), and yields the workers' batches (rendered JSONL lines and a
tally) in input order, taking each step as soon as the answer it needs has come (so one
worker's late batch does not keep another waiting for its next call). Each chunk goes to the
worker holding the fewest chunks not yet scored, and no worker is given more than
:data:`HELD_PER_WORKER`: a chunk is bound to a worker once read, so a worker slowed down (by a
busy neighbour on its core) is given less, and the run does not end with one worker still
scoring a queue of chunks the other could have taken. Whatever the engine and whichever worker
scored a chunk, the batches are the same, so the report is byte-identical. Engines:
:class:`InProcess` here, worker processes (:mod:`matchevals.cli._processes`), Ray actors
(:mod:`matchevals.cli._ray_engine`).

>>> import tempfile
>>> from pathlib import Path
>>> from matchevals.cli._read import Reader
>>> with tempfile.TemporaryDirectory() as folder:
...     out, ref = Path(folder, "o.jsonl"), Path(folder, "r.jsonl")
...     _ = out.write_text('{"a": 1}\\n{"a": 2}\\n'), ref.write_text('{"a": 1}\\n{"a": 3}\\n')
...     job = job_for("json", {}, Reader(out), Reader(ref), lines=True)
...     with InProcess(job) as engine:
...         batches = list(run_job(job, engine, Reader(out), Reader(ref), Counts()))
>>> [batch.tally.scored for batch in batches], batches[0].encoded.count(b"\\n")
([2], 2)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from matchevals.cli._jsonl_line import jsonl_line
from matchevals.cli._pairing import ReferenceIndex, reference_lines
from matchevals.cli._read import Chunk, Counts, Problem, Reader, Span
from matchevals.cli._run import Kind
from matchevals.cli._tally import Tally
from matchevals.cli._work import Batch, ChunkWorker, Job, Pairing, encode_lines

__all__ = [
    "CHUNK_BYTES",
    "CHUNK_LINES",
    "HELD_PER_WORKER",
    "Engine",
    "InProcess",
    "job_for",
    "run_job",
]

CHUNK_LINES = 1000
CHUNK_BYTES = 1 << 20
HELD_PER_WORKER = 2
"""Most chunks a worker holds not yet scored: the one it scores and the next one, so that it
never waits for work, and at the end of the input no worker has more than one chunk left."""


class Pending(Protocol):
    def result(self) -> Any: ...

    def done(self) -> bool:
        """True once the answer has come (``result`` then returns at once)."""
        ...


class Engine(Protocol):
    """Runs :class:`ChunkWorker` calls on ``size`` workers, in order for each worker (a
    ``read`` may overtake the calls sent before it); ``reads_files``: the workers can open the
    reading process's files themselves."""

    size: int
    reads_files: bool

    def submit(self, worker: int, method: str, *args: Any) -> Pending: ...

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
    encoding: str = "utf-8",
) -> Job:
    """The job for these inputs: pairing by id, with one reference, or by position."""
    pairing: Pairing = "id" if id_key else "one" if references is None else "position"
    side = references.side if references is not None else outputs.side
    reference_file = None
    if pairing == "id" and references is not None and references.jsonl_path is not None:
        reference_file = str(references.jsonl_path.resolve())
    return Job(
        kind, options, pairing, outputs.side, side, id_key, reference, lines, worst, details,
        reference_file, encoding,
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

    def wait(self) -> None:
        return None  # every call is answered when it is made

    def close(self) -> None:
        self._worker.close()

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
        yield Batch(b"", Tally(job.kind, job.worst), 0, details=kept)


def _from_reader(job: Job, problems: list[Any]) -> Batch:
    """A batch of problems the reader found itself."""
    tally = Tally(job.kind, job.worst)
    for problem in problems:
        tally.add(problem)
    lines = [jsonl_line(problem) for problem in problems] if job.lines else []
    return Batch(encode_lines(lines, job.encoding), tally, len(problems))


def _index_references(
    job: Job, engine: Engine, references: Reader, index: ReferenceIndex, counts: Counts
) -> Batch:
    """Index the references (their ids read by the workers); the problems in file order."""
    problems: list[tuple[int, Problem]] = []
    pending: deque[tuple[int, Pending]] = deque()
    limit = 2 * engine.size
    while True:
        chunk = _take(engine, references, CHUNK_LINES, CHUNK_BYTES)
        if len(chunk):
            held = (worker for worker, answer in pending if not answer.done())
            worker, _ = _fewest_held(engine.size, held)
            pending.append((worker, engine.submit(worker, "index", chunk)))
        while pending and (len(pending) >= limit or not len(chunk)):
            ids, places = pending.popleft()[1].result()
            problems += index.add(ids, places, references.fetch)
        if not len(chunk):
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
    """Each chunk to the worker holding the fewest: read, then (in order) numbered and
    scored, each step taken as soon as its answer has come."""
    reading: deque[tuple[int, int, Chunk | Span, Pending]] = deque()
    scoring: deque[tuple[int, Pending]] = deque()
    size = engine.size
    # this process scores one chunk at a time (reading ahead would only keep more values alive)
    in_flight = 1 if isinstance(engine, InProcess) else 6 * size + 1
    number, first, exhausted = 0, 0, False
    by_position = job.pairing == "position"
    while True:
        while not exhausted and len(reading) + len(scoring) < in_flight:
            held = [worker for _, worker, _, _ in reading]
            held += [worker for worker, answer in scoring if not answer.done()]
            worker, holding = _fewest_held(size, held)
            if holding >= HELD_PER_WORKER:
                break
            chunks = _next_chunks(outputs, references if by_position else None, engine)
            if chunks is None:
                exhausted = True
                break
            chunk, partner = chunks
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
            scoring.append(
                (worker, engine.submit(worker, "score", chunk_number, first, decisions, lines))
            )
            first += pairs
            continue
        if scoring and scoring[0][1].done():
            yield scoring.popleft()[1].result()
            continue
        if not reading and not scoring:
            break
        # the next read to number, the next batch to yield and a worker's room for one more
        # chunk are all awaited: whichever answer comes first is acted on
        engine.wait()
    counts.outputs = outputs.read_so_far
    if by_position:
        assert references is not None
        counts.references = references.read_so_far


def _next_chunks(
    outputs: Reader, partners: Reader | None, engine: Engine
) -> tuple[Chunk | Span, Chunk | Span | None] | None:
    """The next chunk of outputs and, pairing by position, of as many references (as spans
    where the workers read the files); None once both files are read."""
    chunk = _take(engine, outputs, CHUNK_LINES, CHUNK_BYTES)
    if partners is None:
        return (chunk, None) if len(chunk) else None
    count = len(chunk) or CHUNK_LINES
    partner = _take(engine, partners, count, float("inf") if len(chunk) else CHUNK_BYTES)
    return (chunk, partner) if len(chunk) or len(partner) else None


def _take(engine: Engine, reader: Reader, count: int, max_bytes: float) -> Chunk | Span:
    """The next chunk of ``reader``: where its lines are, for workers that read the files
    themselves; else the lines."""
    if engine.reads_files:
        return reader.span(count, max_bytes)
    return reader.read(count, max_bytes)


def _fewest_held(size: int, held: Iterable[int]) -> tuple[int, int]:
    """The worker holding the fewest chunks (``held``: the worker of each chunk held; ties:
    the lowest number), and how many it holds."""
    counts = [0] * size
    for worker in held:
        counts[worker] += 1
    fewest = min(counts)
    return counts.index(fewest), fewest
