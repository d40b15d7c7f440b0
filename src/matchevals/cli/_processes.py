"""``--workers N``: the chunks of a run scored by worker processes on this machine.

Each worker process holds one :class:`~matchevals.cli._work.ChunkWorker` and answers the
reading process's calls in the order they were sent, but for one thing: a ``read`` (parsing
a chunk, which the reader waits for to number the examples that follow) is answered at once,
by a second thread of the worker, even while a long ``score`` runs, instead of waiting
behind the scores sent before it. So the reader never waits for one worker's scores to number
the other worker's chunks.

>>> import tempfile
>>> from pathlib import Path
>>> from matchevals.cli._engine import job_for
>>> from matchevals.cli._read import Reader
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder, "o.jsonl")
...     _ = path.write_text('{"a": 1}\\n')
...     with Reader(path) as outputs, Processes(job_for("json", {}, outputs, None), 2) as engine:
...         answers = [engine.submit(worker, "ready") for worker in (0, 1)]
...         [answer.result() for answer in answers]
[True, True]
"""

from __future__ import annotations

import contextlib
import gc
import os
import queue
import signal
import threading
import traceback
from collections.abc import Iterator
from typing import Any

from matchevals.cli._work import ChunkWorker, Job

__all__ = ["Processes", "WorkerError", "can_fork"]

ANSWERED_AT_ONCE = frozenset({"read"})
"""The calls a worker answers as soon as they come, before the calls queued ahead of them."""
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 in a worker unless already set: a worker has one core, and numpy's BLAS would start
a thread per core (which spin for a while even when never given work)."""


class WorkerError(RuntimeError):
    """A worker process failed or died."""


def _serve(job: Job, requests: Any, replies: Any) -> None:
    """A worker process: answer calls until told to stop (Ctrl-C is the reader's business);
    the calls of :data:`ANSWERED_AT_ONCE` on the thread that takes the calls in, the others
    in turn on this one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ONE_THREAD:  # before numpy is loaded, by the first chunk that needs it
        os.environ.setdefault(name, "1")
    worker = ChunkWorker(job)
    in_turn: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def take_in() -> None:
        while (request := requests.get()) is not None:
            if request[1] in ANSWERED_AT_ONCE:
                _answer(worker, request, replies)
            else:
                in_turn.put(request)
        in_turn.put(None)

    threading.Thread(target=take_in, name="matchevals-take-in", daemon=True).start()
    while (request := in_turn.get()) is not None:
        _answer(worker, request, replies)
    worker.close()


def _answer(worker: ChunkWorker, request: tuple[int, str, tuple[Any, ...]], replies: Any) -> None:
    ticket, method, args = request
    try:
        replies.put((ticket, True, getattr(worker, method)(*args)))
    except BaseException:
        replies.put((ticket, False, traceback.format_exc()))


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
        forking = can_fork()
        context = (
            multiprocessing.get_context("fork") if forking else multiprocessing.get_context("spawn")
        )
        self._replies = context.Queue()
        self._requests = [context.Queue() for _ in range(size)]
        self._processes = [
            context.Process(target=_serve, args=(job, requests, self._replies), daemon=True)
            for requests in self._requests
        ]
        with _frozen() if forking else contextlib.nullcontext():
            for process in self._processes:
                process.start()
        self._answers: dict[int, tuple[bool, Any]] = {}
        self._tickets = 0
        self._unanswered: set[int] = set()

    def submit(self, worker: int, method: str, *args: Any) -> _Ticket:
        self._tickets += 1
        self._requests[worker].put((self._tickets, method, args))
        self._unanswered.add(self._tickets)
        return _Ticket(self, self._tickets)

    def wait(self) -> None:
        if self._unanswered:
            self._take_in_one()

    def _taken_in(self, ticket: int) -> bool:
        if ticket in self._unanswered:
            with contextlib.suppress(queue.Empty):
                while True:
                    self._arrived(*self._replies.get_nowait())
        return ticket not in self._unanswered

    def _arrived(self, ticket: int, ok: bool, value: Any) -> None:
        self._answers[ticket] = (ok, value)
        self._unanswered.discard(ticket)

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


@contextlib.contextmanager
def _frozen() -> Iterator[None]:
    """The objects alive now set aside by the garbage collector while the workers are forked,
    as the ``gc.freeze`` documentation advises: a collection in a worker then never visits
    them (it would write to each one's header, copying every page of them into the worker,
    and walk them all again at each full collection)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()  # this process collects them as before


def can_fork() -> bool:
    """Fork is safe (and starts workers at once) only on POSIX with no other thread running."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
