"""Scoring examples, in this process or in worker processes, results always in input order."""

from __future__ import annotations

import math
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from matchevals.cli._read import Example, Problem

__all__ = ["Kind", "Scored", "build_evaluator", "score_all"]

Kind = Literal["json", "graph", "trajectory"]
CHUNK = 200


@dataclass(frozen=True, slots=True)
class Scored:
    """One scored example: its score in [0, 1] and the evaluator's results."""

    index: int
    id: Any
    where: str
    score: float
    results: list[dict[str, Any]]


def build_evaluator(kind: Kind, options: dict[str, Any]) -> Callable[..., Any]:
    """The evaluator a command scores with (raises the factory's ValueError/TypeError)."""
    if kind == "json":
        from matchevals.json_match import create_json_match_evaluator

        return create_json_match_evaluator(**options)
    if kind == "trajectory":
        from matchevals.cli._trajectory import trajectory_evaluator

        return trajectory_evaluator(options)
    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

    return create_graph_trajectory_match_evaluator(**options)


def example_score(results: list[dict[str, Any]]) -> float:
    """The mean of the results' scores (booleans count 0/1); nothing to score is 1."""
    if not results:
        return 1.0
    return math.fsum(float(result["score"]) for result in results) / len(results)


def _score_one(evaluator: Callable[..., Any], example: Example) -> Scored | Problem:
    try:
        answer = evaluator(outputs=example.outputs, reference_outputs=example.reference)
    except (TypeError, ValueError, KeyError) as error:
        return Problem(example.where, f"cannot score: {error}")
    results = [dict(r) for r in (answer if isinstance(answer, list) else [answer])]
    return Scored(example.index, example.id, example.where, example_score(results), results)


_worker_evaluator: Callable[..., Any] | None = None


def _init_worker(kind: Kind, options: dict[str, Any]) -> None:
    global _worker_evaluator
    _worker_evaluator = build_evaluator(kind, options)


def _score_chunk(chunk: list[Example]) -> list[Scored | Problem]:
    assert _worker_evaluator is not None
    return [_score_one(_worker_evaluator, example) for example in chunk]


def score_all(
    items: Iterable[Example | Problem], kind: Kind, options: dict[str, Any], workers: int = 1
) -> Iterator[Scored | Problem]:
    """Score every example; problems pass through in place. Results come in input order.

    With ``workers > 1`` chunks of examples go to worker processes, with only a few chunks in
    flight at once, so memory stays bounded however long the input is.
    """
    if workers <= 1:
        evaluator = build_evaluator(kind, options)
        for item in items:
            yield item if isinstance(item, Problem) else _score_one(evaluator, item)
        return
    build_evaluator(kind, options)  # fail early, in this process, on bad options
    yield from _parallel(items, kind, options, workers)


def _chunks(items: Iterable[Example | Problem]) -> Iterator[list[Example | Problem]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, CHUNK)):
        yield chunk


def _parallel(
    items: Iterable[Example | Problem], kind: Kind, options: dict[str, Any], workers: int
) -> Iterator[Scored | Problem]:
    context = multiprocessing.get_context("spawn")
    pending: deque[tuple[list[Example | Problem], Future[list[Scored | Problem]]]] = deque()
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init_worker, initargs=(kind, options)
    ) as pool:
        for chunk in _chunks(items):
            examples = [item for item in chunk if isinstance(item, Example)]
            pending.append((chunk, pool.submit(_score_chunk, examples)))
            if len(pending) >= 2 * workers:
                yield from _merge(*pending.popleft())
        while pending:
            yield from _merge(*pending.popleft())


def _merge(
    chunk: list[Example | Problem], future: Future[list[Scored | Problem]]
) -> Iterator[Scored | Problem]:
    scored = iter(future.result())
    for item in chunk:
        yield item if isinstance(item, Problem) else next(scored)
