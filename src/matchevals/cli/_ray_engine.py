"""``--engine ray``: the chunks of a run scored by Ray actors, on one machine or a cluster.

Each actor is a :class:`~matchevals.cli._work.ChunkWorker` holding the job; the reading process
sends it chunks of raw lines exactly as it sends them to local worker processes (Ray runs one
caller's calls to an actor in the order they were made), so the report is byte-identical to a
local run. Without ``--ray-address`` (or ``RAY_ADDRESS``) a local Ray is started for the run and
stopped after it; on a cluster every node needs matchevals installed (or a ``runtime_env``).
"""

from __future__ import annotations

import logging
from typing import Any

from matchevals.cli._read import InputError
from matchevals.cli._work import ChunkWorker, Job

__all__ = ["RayActors"]


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
        actor = ray.remote(num_cpus=1)(ChunkWorker)
        self._actors = [actor.remote(job) for _ in range(self.size)]
        ray.get([worker.ready.remote() for worker in self._actors])  # fail early, here
        self._unanswered: list[list[Any]] = [[] for _ in self._actors]  # each actor's calls

    def submit(self, worker: int, method: str, *args: Any) -> _Pending:
        ref = getattr(self._actors[worker], method).remote(*args)
        self._unanswered[worker].append(ref)
        return _Pending(self._ray, ref)

    def least_busy(self) -> int:
        self._forget_answered()
        counts = [len(refs) for refs in self._unanswered]
        return counts.index(min(counts))

    def wait(self) -> None:
        self._forget_answered()
        outstanding = [ref for refs in self._unanswered for ref in refs]
        if outstanding:
            self._ray.wait(outstanding, num_returns=1)

    def _forget_answered(self) -> None:
        for refs in self._unanswered:
            if refs:  # keep the calls not finished yet
                _, refs[:] = self._ray.wait(refs, num_returns=len(refs), timeout=0)

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
