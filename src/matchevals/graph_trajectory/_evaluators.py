"""The graph trajectory evaluators: thin sync and async edges around the pure core.

Each evaluator validates its inputs, compares results (calling ``results_evaluator``, awaited
when the async evaluator is given an async one), then hands everything to ``score_runs``. It
asks :func:`~matchevals._langsmith.watching` once per call and runs inside the LangSmith
adapter only when something watches. Evaluators are ``functools.partial`` objects of
module-level functions, so they pickle whenever their ``results_evaluator`` does.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from matchevals._calling import MISSING, check_call, keyword_evaluator
from matchevals._feedback_keys import check_feedback_key, renamed
from matchevals._langsmith import EvaluatorRun, watching
from matchevals._types import EvaluatorResult
from matchevals.graph_trajectory._reference import Pair, describe, pair_runs
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

_MATCH_RUN = EvaluatorRun(KEY)
_RULES_NAME = "graph_trajectory_rules"
_RULES_PREFIX = "graph_trajectory"
PARTIAL_KEY = "graph_trajectory_match_partial"
_RULES_RUN = EvaluatorRun(_RULES_NAME)
_F = TypeVar("_F", bound=Callable[..., Any])


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


def _evaluate(
    options: _Options,
    /,
    *positional: Any,
    outputs: Any = MISSING,
    reference_outputs: Any = MISSING,
    **kwargs: Any,
) -> EvaluatorResult:
    if positional or outputs is MISSING or reference_outputs is MISSING:
        check_call(KEY, positional, outputs=outputs, reference_outputs=reference_outputs)
    if not watching():
        return _compute(options, outputs, reference_outputs)
    return _MATCH_RUN.traced(
        partial(_compute, options, outputs, reference_outputs),
        outputs=outputs,
        reference_outputs=reference_outputs,
    )


async def _aevaluate(
    options: _Options,
    /,
    *positional: Any,
    outputs: Any = MISSING,
    reference_outputs: Any = MISSING,
    **kwargs: Any,
) -> EvaluatorResult:
    if positional or outputs is MISSING or reference_outputs is MISSING:
        check_call(KEY, positional, outputs=outputs, reference_outputs=reference_outputs)
    if not watching():
        return await _acompute(options, outputs, reference_outputs)
    return await _MATCH_RUN.atraced(
        partial(_acompute, options, outputs, reference_outputs),
        outputs=outputs,
        reference_outputs=reference_outputs,
    )


_STRICT_OPTIONS = _Options()
_STRICT_RESULTS_OPTIONS = _Options(eval_results=True)


def _strict(eval_results: object) -> _Options:
    if eval_results is False:
        return _STRICT_OPTIONS
    if eval_results is True:
        return _STRICT_RESULTS_OPTIONS
    raise TypeError(f"eval_results is {describe(eval_results)}, expected a bool")


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
    return _evaluate(_strict(eval_results), outputs=outputs, reference_outputs=reference_outputs)


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
    return await _aevaluate(
        _strict(eval_results), outputs=outputs, reference_outputs=reference_outputs
    )


def create_graph_trajectory_match_evaluator(
    *,
    eval_results: bool = False,
    results_evaluator: Callable[..., Any] | None = None,
    partial_credit: bool = False,
    threshold: float | None = None,
    feedback_key: str | None = None,
) -> Callable[..., EvaluatorResult]:
    """A ``graph_trajectory_match`` evaluator with options, validated once.

    ``results_evaluator`` (needs ``eval_results=True``) compares ``results`` instead of equality;
    its score, averaged over several results, must reach ``threshold`` (default 1).
    ``partial_credit=True`` scores in [0, 1]; with ``threshold`` the metadata says ``pass``.

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
    return keyword_evaluator(partial(_evaluate, options), KEY)


def create_async_graph_trajectory_match_evaluator(
    *,
    eval_results: bool = False,
    results_evaluator: Callable[..., Any] | None = None,
    partial_credit: bool = False,
    threshold: float | None = None,
    feedback_key: str | None = None,
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
    return keyword_evaluator(partial(_aevaluate, options), KEY)


def _checked_rules(rules: Rules, prefix: str, outputs: Any) -> list[EvaluatorResult]:
    return renamed(check_rules(rules, outputs), _RULES_PREFIX, prefix)


def _rules_evaluate(
    rules: Rules, prefix: str, /, *positional: Any, outputs: Any = MISSING, **kwargs: Any
) -> list[EvaluatorResult]:
    if positional or outputs is MISSING:
        check_call(_RULES_NAME, positional, outputs=outputs)
    if not watching():
        return _checked_rules(rules, prefix, outputs)
    return _RULES_RUN.traced(partial(_checked_rules, rules, prefix, outputs), outputs=outputs)


async def _rules_aevaluate(
    rules: Rules, prefix: str, /, *positional: Any, outputs: Any = MISSING, **kwargs: Any
) -> list[EvaluatorResult]:
    if positional or outputs is MISSING:
        check_call(_RULES_NAME, positional, outputs=outputs)
    if not watching():
        return _checked_rules(rules, prefix, outputs)

    async def compute() -> list[EvaluatorResult]:
        return _checked_rules(rules, prefix, outputs)

    return await _RULES_RUN.atraced(compute, outputs=outputs)


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
    prefix = check_feedback_key(feedback_key)
    return keyword_evaluator(partial(_rules_evaluate, rules, prefix), _RULES_NAME, reference=False)


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
    prefix = check_feedback_key(feedback_key)
    return keyword_evaluator(partial(_rules_aevaluate, rules, prefix), _RULES_NAME, reference=False)
