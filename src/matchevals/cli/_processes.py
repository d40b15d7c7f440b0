"""``--workers N``: the chunks of a run scored by worker processes on this machine.

Each worker process holds one :class:`~matchevals.cli._work.ChunkWorker` and answers the
reading process's calls in the order they were sent, but for one thing: a ``read`` (parsing
a chunk, which the reader waits for to number the examples that follow) is answered at once,
by a second thread of the worker, even while a long ``score`` runs, instead of waiting
behind the scores sent before it. So the reader never waits for one worker's scores to number
the other worker's chunks.

Calls and answers travel through two pipes per worker, each message written by the thread that
makes it (no thread in between, which cost a wake-up and a turn of the interpreter's lock per
message on both sides): a worker writes its answers itself, and the reader writes a call
itself when the call surely fits in what the worker's pipe has room for (Linux tells a pipe's
size, raised here to :data:`PIPE_BYTES`); else a sending thread of the reader writes it, and the
calls to that worker after it, so that a full pipe never keeps the reader from taking in the
answers that let the worker read on. A message is its pickle, then the buffers pickled out of
band (a batch's report lines), each written as it is (:func:`_parts`).

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
import mmap
import os
import pickle
import queue
import signal
import threading
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, NoReturn

from matchevals.cli._read import InputError
from matchevals.cli._work import ChunkWorker, Job

__all__ = ["PIPE_BYTES", "Processes", "WorkerError", "can_fork"]

ANSWERED_AT_ONCE = frozenset({"read"})
"""The calls a worker answers as soon as they come, before the calls queued ahead of them."""
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 in a worker unless already set: a worker has one core, and numpy's BLAS would start
a thread per core (which spin for a while even when never given work)."""
PIPE_BYTES = 1 << 20
"""The size asked for each pipe (Linux lets a user raise a pipe to 1 MiB): a worker's answer
(its report lines) is written at once, and the calls sent ahead fit."""


class WorkerError(RuntimeError):
    """A worker process failed or died."""


def _serve(
    job: Job, requests: Connection, replies: Connection, theirs: tuple[Connection, ...]
) -> None:
    """A worker process: answer calls until told to stop or the reader is gone (Ctrl-C is the
    reader's business); the calls of :data:`ANSWERED_AT_ONCE` on the thread that takes the
    calls in, the others in turn on this one. ``theirs``: the reader's ends, to close."""
    for end in theirs:
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ONE_THREAD:  # before numpy is loaded, by the first chunk that needs it
        os.environ.setdefault(name, "1")
    worker = ChunkWorker(job)
    in_turn: queue.SimpleQueue[Any] = queue.SimpleQueue()
    writing = threading.Lock()  # both threads answer through one pipe

    def answer(request: tuple[int, str, tuple[Any, ...]]) -> None:
        parts = _answer(worker, request)
        with writing:
            for part in parts:
                replies.send_bytes(part)

    def take_in() -> None:
        try:
            while (request := _receive(requests)) is not None:
                if request[1] in ANSWERED_AT_ONCE:
                    answer(request)
                else:
                    in_turn.put(request)
        except (EOFError, OSError):  # the reader is gone
            pass
        finally:
            in_turn.put(None)

    threading.Thread(target=take_in, name="matchevals-take-in", daemon=True).start()
    with contextlib.suppress(OSError):  # the reader is gone
        while (request := in_turn.get()) is not None:
            answer(request)
    worker.close()


def _answer(worker: ChunkWorker, request: tuple[int, str, tuple[Any, ...]]) -> list[Any]:
    """The answer to one call: its value; or why it failed, an :class:`InputError` as it is
    (the input's fault, which the reader raises as if it had met it itself), else the
    worker's traceback."""
    ticket, method, args = request
    try:
        return _parts((ticket, True, getattr(worker, method)(*args)))
    except InputError as error:
        return _parts((ticket, False, error))
    except BaseException:
        return _parts((ticket, False, traceback.format_exc()))


def _parts(message: Any) -> list[Any]:
    """The messages that carry ``message`` through a pipe: its pickle (after the count of the
    buffers that follow), then each buffer pickled out of band (PEP 574), as it is."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(message, 5, buffer_callback=buffers.append)
    return [len(buffers).to_bytes(4, "little") + data, *(buffer.raw() for buffer in buffers)]


def _receive(end: Connection) -> Any:
    """The next message from ``end`` (see :func:`_parts`)."""
    head = end.recv_bytes()
    buffers = [end.recv_bytes() for _ in range(int.from_bytes(head[:4], "little"))]
    return pickle.loads(memoryview(head)[4:], buffers=buffers)


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
        self._processes: list[Any] = []
        self._requests: list[Connection] = []
        self._replies: list[Connection] = []
        with _frozen() if forking else contextlib.nullcontext():
            for _ in range(size):
                calls, requests = context.Pipe(duplex=False)
                replies, answers = context.Pipe(duplex=False)
                # a forked worker holds copies of the reader's ends (its own and the earlier
                # workers'): it closes them, so that the reader's death ends its pipes
                theirs = (*self._requests, *self._replies, requests, replies) if forking else ()
                process = context.Process(
                    target=_serve, args=(job, calls, answers, theirs), daemon=True
                )
                process.start()
                calls.close()  # the worker's ends are its own: its death ends the pipes
                answers.close()
                self._processes.append(process)
                self._requests.append(requests)
                self._replies.append(replies)
        self._room = [_pipe_room(end) for end in self._requests]
        for end in self._replies:
            _pipe_room(end)
        self._sender = _Sender(size)
        self._answers: dict[int, tuple[bool, Any]] = {}
        self._tickets = 0
        self._unanswered: dict[int, tuple[int, int]] = {}  # ticket -> worker, bytes charged

    def submit(self, worker: int, method: str, *args: Any) -> _Ticket:
        self._tickets += 1
        charge = self._send(worker, _parts((self._tickets, method, args)))
        if charge is None:
            self._died(worker)
        self._unanswered[self._tickets] = (worker, charge)
        return _Ticket(self, self._tickets)

    def _send(self, worker: int, parts: list[Any]) -> int | None:
        """Write a call to ``worker`` here if it surely fits in the pipe (what may still be
        unread there is charged for every call not yet answered), else by the sending thread,
        as is every later call to a worker while one waits there; the bytes charged for it,
        None if the worker is gone."""
        # a write may leave two pages part filled
        charge = sum(len(part) + 2 * mmap.PAGESIZE for part in parts)
        end = self._requests[worker]
        unread = sum(charged for to, charged in self._unanswered.values() if to == worker)
        if unread + charge > self._room[worker] or self._sender.holds(worker):
            self._sender.send(worker, end, parts)
        else:
            try:
                for part in parts:
                    end.send_bytes(part)
            except OSError:
                return None
        return charge

    def wait(self) -> None:
        if self._unanswered:
            self._take_in()

    def _taken_in(self, ticket: int) -> bool:
        if ticket in self._unanswered:
            while ready := wait(self._replies, 0):
                self._arrived(ready)
        return ticket not in self._unanswered

    def _arrived(self, ready: list[Any]) -> None:
        for end in ready:
            worker = self._replies.index(end)
            try:
                ticket, ok, value = _receive(end)
            except (EOFError, OSError):
                self._died(worker)
            self._answers[ticket] = (ok, value)
            del self._unanswered[ticket]

    def _take_in(self) -> None:
        """Block until an answer comes (taking in all that have come); a WorkerError if a
        worker died meanwhile."""
        while not (ready := wait(self._replies, 1.0)):
            for worker, process in enumerate(self._processes):
                if not process.is_alive():
                    self._died(worker)
        self._arrived(ready)

    def _died(self, worker: int) -> NoReturn:
        process = self._processes[worker]
        process.join(timeout=1.0)
        raise WorkerError(f"a worker process died (exit code {process.exitcode})") from None

    def _wait(self, ticket: int) -> Any:
        while ticket not in self._answers:
            self._take_in()
        ok, value = self._answers.pop(ticket)
        if ok:
            return value
        if isinstance(value, InputError):
            raise value
        raise WorkerError(f"a worker process failed:\n{value}")

    def close(self) -> None:
        for worker in range(self.size):
            self._send(worker, _parts(None))  # a worker already gone needs no telling
        self._sender.close()
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=5)
        for end in (*self._requests, *self._replies):
            end.close()

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


class _Sender:
    """The reader's sending thread, started when a call first may not fit in its pipe: a write
    blocked there then waits for the worker to read, while the reader takes in answers."""

    def __init__(self, size: int) -> None:
        self._calls: queue.SimpleQueue[tuple[int, Connection, list[Any]] | None]
        self._calls = queue.SimpleQueue()
        self._held = [0] * size  # per worker: calls given, not yet written
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def holds(self, worker: int) -> bool:
        with self._lock:
            return self._held[worker] > 0

    def send(self, worker: int, end: Connection, parts: list[Any]) -> None:
        with self._lock:
            self._held[worker] += 1
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="matchevals-send", daemon=True)
            self._thread.start()
        self._calls.put((worker, end, parts))

    def _run(self) -> None:
        while (call := self._calls.get()) is not None:
            worker, end, parts = call
            with contextlib.suppress(OSError):  # the worker died: the reader will see it end
                for part in parts:
                    end.send_bytes(part)
            with self._lock:
                self._held[worker] -= 1

    def close(self) -> None:
        if self._thread is not None:
            self._calls.put(None)
            self._thread.join(timeout=5)


def _pipe_room(end: Connection) -> int:
    """The bytes ``end``'s pipe holds, raised to :data:`PIPE_BYTES` where Linux allows; 0
    where a pipe's size cannot be known (then the sending thread writes every call)."""
    try:
        import fcntl

        descriptor = end.fileno()
        with contextlib.suppress(OSError):  # a user's pipes may be capped: keep the size
            fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        return fcntl.fcntl(descriptor, fcntl.F_GETPIPE_SZ)
    except (ImportError, AttributeError, OSError):
        return 0


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
