"""The graph trajectory evaluators: the factories, on the one evaluator edge
(:mod:`matchevals._edge`).

Each evaluator validates its inputs, compares results (calling ``results_evaluator``, awaited
when the async evaluator is given an async one), then hands everything to ``score_runs``.
Evaluators pickle whenever their ``results_evaluator`` does.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from matchevals._any_of import check_any_of_key
from matchevals._edge import Edge, aevaluate, evaluate, evaluator
from matchevals._feedback_keys import check_feedback_key, renaming
from matchevals._langsmith import EvaluatorRun
from matchevals._types import EvaluatorResult
from matchevals.graph_trajectory._reference import (
    Pair,
    describe,
    pair_runs,
    read_reference,
    runs_of,
)
from matchevals.graph_trajectory._results_check import equal_results, evaluator_results
from matchevals.graph_trajectory._rules import Rules, check_rules, make_rules
from matchevals.graph_trajectory._verdict import KEY, ResultsCheck, score_runs

__all__ = [
    "create_async_graph_trajectory_match_evaluator",
    "create_async_graph_trajectory_rules_evaluator",
    "create_graph_trajectory_match_evaluator",
    "create_graph_trajectory_rules_evaluator",
    "graph_trajectory_match",
    "graph_trajectory_match_async",
]

_RULES_NAME = "graph_trajectory_rules"
_RULES_PREFIX = "graph_trajectory"
PARTIAL_KEY = "graph_trajectory_match_partial"


@dataclass(frozen=True)
class _Options:
    eval_results: bool = False
    results_evaluator: Callable[..., Any] | None = None
    partial_credit: bool = False
    threshold: float | None = None
    fast: bool = True  # False: general paths only (the fast paths' test oracle)
    key: str = KEY


def _options(
    *,
    eval_results: bool,
    results_evaluator: Callable[..., Any] | None,
    partial_credit: bool,
    threshold: float | None,
    allow_async: bool,
    feedback_key: str | None = None,
) -> _Options:
    for name, flag in (("eval_results", eval_results), ("partial_credit", partial_credit)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} is {describe(flag)}, expected a bool")
    if results_evaluator is not None:
        if not callable(results_evaluator):
            raise TypeError(f"results_evaluator is {describe(results_evaluator)}, not callable")
        if not eval_results:
            raise ValueError("results_evaluator is only used with eval_results=True; pass both")
        if not allow_async and _is_async(results_evaluator):
            raise TypeError(
                "results_evaluator is async; use create_async_graph_trajectory_match_evaluator"
            )
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise TypeError(f"threshold is {describe(threshold)}, expected a number in [0, 1]")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold is {threshold}; it must be between 0 and 1")
        if not partial_credit and results_evaluator is None:
            raise ValueError(
                "threshold applies to partial_credit=True or a results_evaluator; neither is set"
            )
    key = check_feedback_key(feedback_key, PARTIAL_KEY if partial_credit else KEY)
    return _Options(
        eval_results,
        results_evaluator,
        partial_credit,
        None if threshold is None else float(threshold),
        key=key,
    )


def _is_async(function: object) -> bool:
    while isinstance(function, partial):
        function = function.func
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - an async __call__ counts too
    )


def _answer(options: _Options, pair: Pair) -> object:
    assert options.results_evaluator is not None
    return options.results_evaluator(outputs=pair.results, reference_outputs=pair.reference.results)


def _sync_answer(options: _Options, pair: Pair) -> object:
    answer = _answer(options, pair)
    if inspect.isawaitable(answer):
        if inspect.iscoroutine(answer):
            answer.close()
        raise TypeError("results_evaluator returned an awaitable; use the async evaluator")
    return answer


async def _async_answer(options: _Options, pair: Pair) -> object:
    answer = _answer(options, pair)
    return await answer if inspect.isawaitable(answer) else answer


def _finish(options: _Options, pairs: list[Pair], answers: list[object] | None) -> EvaluatorResult:
    checks: list[ResultsCheck] | None = None
    threshold = 1.0 if options.threshold is None else options.threshold
    if options.eval_results:
        checks = (
            [equal_results(pair) for pair in pairs]
            if answers is None
            else [
                evaluator_results(pair, answer, threshold)
                for pair, answer in zip(pairs, answers, strict=True)
            ]
        )
    result = score_runs(
        pairs,
        checks,
        partial=options.partial_credit,
        threshold=options.threshold,
        fast=options.fast,
    )
    result["key"] = options.key
    return result


def _compute(options: _Options, outputs: object, reference_outputs: object) -> EvaluatorResult:
    pairs = pair_runs(outputs, reference_outputs)
    answers = None
    if options.results_evaluator is not None:
        answers = [_sync_answer(options, pair) for pair in pairs]
    return _finish(options, pairs, answers)


async def _acompute(
    options: _Options, outputs: object, reference_outputs: object
) -> EvaluatorResult:
    pairs = pair_runs(outputs, reference_outputs)
    answers = None
    if options.results_evaluator is not None:
        answers = [await _async_answer(options, pair) for pair in pairs]
    return _finish(options, pairs, answers)


def _kind(reference: Any, path: str) -> str:
    """One alternative reference checked; its kind: one reference for every run, or a list
    of references paired with the runs one to one."""
    if isinstance(reference, Mapping):
        read_reference(reference, path)
        return "one reference"
    for at, value in runs_of(reference, path):
        read_reference(value, at)
    return "a list of references"


_STRICT_RUN = EvaluatorRun(KEY)
_STRICT = {  # graph_trajectory_match's edges, by eval_results
    (sync, eval_results): Edge(
        KEY, partial(compute, _Options(eval_results)), _STRICT_RUN, kind=_kind
    )
    for sync, compute in ((True, _compute), (False, _acompute))
    for eval_results in (False, True)
}


def _strict(eval_results: object, sync: bool) -> Edge:
    if eval_results is not False and eval_results is not True:
        raise TypeError(f"eval_results is {describe(eval_results)}, expected a bool")
    return _STRICT[sync, eval_results]


def graph_trajectory_match(
    *, outputs: Any, reference_outputs: Any, eval_results: bool = False, **kwargs: Any
) -> EvaluatorResult:
    """Strictly match one run (or a list of runs) against its reference, superstep by superstep.

    >>> result = graph_trajectory_match(
    ...     outputs={"inputs": None, "results": None, "steps": [["a"], ["c", "b"]]},
    ...     reference_outputs={"inputs": None, "results": None, "steps": [["a"], ["b", "c"]]},
    ... )
    >>> result["score"]
    True
    """
    return evaluate(  # type: ignore[no-any-return]
        _strict(eval_results, True), outputs=outputs, reference_outputs=reference_outputs
    )


async def graph_trajectory_match_async(
    *, outputs: Any, reference_outputs: Any, eval_results: bool = False, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of :func:`graph_trajectory_match` (same arguments, same result).

    >>> import asyncio
    >>> result = asyncio.run(graph_trajectory_match_async(
    ...     outputs={"steps": [["a"], ["b"]]}, reference_outputs={"steps": [["a"]]}
    ... ))
    >>> result["comment"]
    'run 0 had 2 supersteps where 1 was expected; superstep 1 [b] is extra'
    """
    return await aevaluate(  # type: ignore[no-any-return]
        _strict(eval_results, False), outputs=outputs, reference_outputs=reference_outputs
    )


def create_graph_trajectory_match_evaluator(
    *,
    eval_results: bool = False,
    results_evaluator: Callable[..., Any] | None = None,
    partial_credit: bool = False,
    threshold: float | None = None,
    feedback_key: str | None = None,
    any_of_key: str | None = None,
) -> Callable[..., EvaluatorResult]:
    """A ``graph_trajectory_match`` evaluator with options, validated once.

    ``results_evaluator`` (needs ``eval_results=True``) compares ``results`` instead of equality;
    its score, averaged over several results, must reach ``threshold`` (default 1).
    ``partial_credit=True`` scores in [0, 1]; with ``threshold`` the metadata says ``pass``.
    ``reference_outputs`` may be :class:`~matchevals.AnyOf` (several acceptable references:
    the best one's result, ``metadata["any_of"]``); ``any_of_key="any_of"`` also reads a
    reference ``{"any_of": [...]}`` as its alternatives.

    >>> evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
    >>> evaluator(outputs={"steps": [["a"], ["b"]]}, reference_outputs={"steps": [["a"], ["c"]]})[
    ...     "score"
    ... ]
    0.5
    """
    options = _options(
        eval_results=eval_results,
        results_evaluator=results_evaluator,
        partial_credit=partial_credit,
        threshold=threshold,
        allow_async=False,
        feedback_key=feedback_key,
    )
    return evaluator(
        KEY, partial(_compute, options), kind=_kind, any_of_key=check_any_of_key(any_of_key)
    )


def create_async_graph_trajectory_match_evaluator(
    *,
    eval_results: bool = False,
    results_evaluator: Callable[..., Any] | None = None,
    partial_credit: bool = False,
    threshold: float | None = None,
    feedback_key: str | None = None,
    any_of_key: str | None = None,
) -> Callable[..., Awaitable[EvaluatorResult]]:
    """The async twin of :func:`create_graph_trajectory_match_evaluator`; an async
    ``results_evaluator`` is awaited, a sync one called directly.

    >>> import asyncio
    >>> evaluator = create_async_graph_trajectory_match_evaluator()
    >>> asyncio.run(evaluator(outputs={"steps": [["a"]]}, reference_outputs={"steps": [["a"]]}))[
    ...     "score"
    ... ]
    True
    """
    options = _options(
        eval_results=eval_results,
        results_evaluator=results_evaluator,
        partial_credit=partial_credit,
        threshold=threshold,
        allow_async=True,
        feedback_key=feedback_key,
    )
    return evaluator(
        KEY,
        partial(_acompute, options),
        asynchronous=True,
        kind=_kind,
        any_of_key=check_any_of_key(any_of_key),
    )


def _checked_rules(rules: Rules, outputs: Any, reference_outputs: Any) -> list[EvaluatorResult]:
    return check_rules(rules, outputs)


async def _achecked_rules(
    rules: Rules, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    return check_rules(rules, outputs)


def create_graph_trajectory_rules_evaluator(
    *,
    forbidden: Iterable[str] = (),
    max_visits: Mapping[str, int] | None = None,
    max_supersteps: int | None = None,
    before: Iterable[tuple[str, str]] = (),
    feedback_key: str = _RULES_PREFIX,
) -> Callable[..., list[EvaluatorResult]]:
    """An evaluator of rules that need no reference: one result per configured rule.

    >>> evaluator = create_graph_trajectory_rules_evaluator(forbidden=["drop_db"], max_supersteps=5)
    >>> [r["score"] for r in evaluator(outputs={"steps": [["a"], ["drop_db"]]})]
    [False, True]
    """
    rules = make_rules(
        forbidden=forbidden,
        max_visits={} if max_visits is None else max_visits,
        max_supersteps=max_supersteps,
        before=before,
    )
    compute = renaming(
        partial(_checked_rules, rules), _RULES_PREFIX, check_feedback_key(feedback_key)
    )
    return evaluator(_RULES_NAME, compute, reference=False)


def create_async_graph_trajectory_rules_evaluator(
    *,
    forbidden: Iterable[str] = (),
    max_visits: Mapping[str, int] | None = None,
    max_supersteps: int | None = None,
    before: Iterable[tuple[str, str]] = (),
    feedback_key: str = _RULES_PREFIX,
) -> Callable[..., Awaitable[list[EvaluatorResult]]]:
    """The async twin of :func:`create_graph_trajectory_rules_evaluator`.

    >>> import asyncio
    >>> evaluator = create_async_graph_trajectory_rules_evaluator(before=[("plan", "act")])
    >>> asyncio.run(evaluator(outputs={"steps": [["plan"], ["act"]]}))[0]["score"]
    True
    """
    rules = make_rules(
        forbidden=forbidden,
        max_visits={} if max_visits is None else max_visits,
        max_supersteps=max_supersteps,
        before=before,
    )
    compute = renaming(
        partial(_achecked_rules, rules),
        _RULES_PREFIX,
        check_feedback_key(feedback_key),
        asynchronous=True,
    )
    return evaluator(_RULES_NAME, compute, asynchronous=True, reference=False)
