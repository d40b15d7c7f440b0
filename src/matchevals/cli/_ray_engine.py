"""``--engine ray``: the chunks of a run scored by Ray actors, on one machine or a cluster.

Each actor is a :class:`~matchevals.cli._work.ChunkWorker` holding the job; the reading process
sends it chunks of raw lines, in the order local worker processes get theirs (they are sent
spans and read the lines from the file themselves). Ray runs one caller's calls to an actor in
the order they were made (``read`` calls in a concurrency group of their own, on a second
thread, as local workers answer them at once), so the report is byte-identical to a local run.
Without ``--ray-address`` (or ``RAY_ADDRESS``) a local Ray is started for the run and stopped
after it; on a cluster every node needs matchevals installed (or a ``runtime_env``).
"""

from __future__ import annotations

import logging
from typing import Any

from matchevals.cli._processes import ANSWERED_AT_ONCE
from matchevals.cli._read import InputError
from matchevals.cli._work import ChunkWorker, Job

__all__ = ["RayActors"]

_AT_ONCE = "answered_at_once"


def import_ray() -> Any:
    """The ``ray`` module, or an InputError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise InputError("--engine ray needs Ray: pip install 'matchevals[ray]'") from None
    return ray


class _Pending:
    __slots__ = ("_ray", "_ref")

    def __init__(self, ray: Any, ref: Any) -> None:
        self._ray, self._ref = ray, ref

    def result(self) -> Any:
        return self._ray.get(self._ref)

    def done(self) -> bool:
        ready, _ = self._ray.wait([self._ref], timeout=0)
        return bool(ready)


class RayActors:
    """``size`` actors (default: one per CPU of the cluster), each scoring the chunks sent to it
    (with the reference lines they need: an actor may run where the files are not)."""

    reads_files = False

    def __init__(self, job: Job, size: int | None, address: str | None) -> None:
        ray = self._ray = import_ray()
        self._actors: list[Any] = []
        self._started = not ray.is_initialized()
        if self._started:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if size is not None and size > cpus:
            self.close()
            raise InputError(  # else the actors beyond the cluster's CPUs would wait forever
                f"--workers {size}: the Ray cluster has {cpus} CPUs, one per actor"
            )
        self.size = size or max(1, cpus)
        actor = ray.remote(num_cpus=1, concurrency_groups={_AT_ONCE: 1})(ChunkWorker)
        self._actors = [actor.remote(job) for _ in range(self.size)]
        ray.get([worker.ready.remote() for worker in self._actors])  # fail early, here
        self._unanswered: list[Any] = []  # the calls not known to be answered

    def submit(self, worker: int, method: str, *args: Any) -> _Pending:
        call = getattr(self._actors[worker], method)
        if method in ANSWERED_AT_ONCE:
            call = call.options(concurrency_group=_AT_ONCE)
        ref = call.remote(*args)
        self._unanswered.append(ref)
        return _Pending(self._ray, ref)

    def wait(self) -> None:
        """Forget the calls answered, then wait for one more (at once when none is left)."""
        if not self._unanswered:
            return
        ray, calls = self._ray, self._unanswered
        _, outstanding = ray.wait(calls, num_returns=len(calls), timeout=0)
        if outstanding:
            _, outstanding = ray.wait(outstanding, num_returns=1)
        self._unanswered = outstanding

    def close(self) -> None:
        for worker in self._actors:
            self._ray.kill(worker)
        self._actors = []
        if self._started:
            self._ray.shutdown()

    def __enter__(self) -> RayActors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
