"""The JSON-match evaluators: the factories, on the one evaluator edge (:mod:`matchevals._edge`).

Each factory validates its options once and picks, once, the function that scores: for options
without a rubric, :func:`~._fast.scorer` (a fast path for plain options, else the general path);
with a rubric, ``prepare`` → the judge (:class:`~._judge.Judge`, the only model call) →
``finish``. The edge reads both inputs as JSON first (:func:`~._inputs.to_json_value`). The sync
and async evaluators differ only in how the judge is called.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, Literal

from matchevals._any_of import check_any_of_key
from matchevals._edge import evaluator
from matchevals._feedback_keys import check_feedback_key, renaming
from matchevals._types import AsyncEvaluator, Evaluator, EvaluatorResult
from matchevals._values import a_type
from matchevals.json_match._compat_evaluators import compat_evaluator
from matchevals.json_match._core import finish, prepare
from matchevals.json_match._fast import scorer
from matchevals.json_match._inputs import to_json_value
from matchevals.json_match._judge import Judge, check_judge
from matchevals.json_match._options import (
    Aggregator,
    Alignment,
    ExtraKeys,
    JsonMatchOptions,
    ListAggregator,
    ListMatchMode,
    OnJudgeError,
)
from matchevals.json_match.comparators import Comparator

__all__ = ["create_async_json_match_evaluator", "create_json_match_evaluator"]

RUN_NAME = "json_match_evaluator"
DEFAULT_PREFIX = "json_match"
Compat = Literal["openevals"]
_EXTENSION_DEFAULTS = {
    "alignment": "optimal",
    "nested": False,
    "list_match_modes": None,
    "comparators": None,
    "extra_keys": "penalize",
    "none_is_missing": False,
    "judge_identical": False,
    "on_judge_error": "raise",
    "any_of_key": None,
}
Compute = Callable[[Any, Any], list[EvaluatorResult]]
AsyncCompute = Callable[[Any, Any], Awaitable[list[EvaluatorResult]]]


def _judged(
    options: JsonMatchOptions, judge: Judge, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    evaluation = prepare(outputs, reference_outputs, options)
    return finish(evaluation, judge.verdicts(evaluation.judge_requests, options))


async def _ajudged(
    options: JsonMatchOptions, judge: Judge, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    evaluation = prepare(outputs, reference_outputs, options)
    return finish(evaluation, await judge.averdicts(evaluation.judge_requests, options))


async def _ascore(score: Compute, outputs: Any, reference_outputs: Any) -> list[EvaluatorResult]:
    return score(outputs, reference_outputs)


def _json_kind(reference: Any, path: str) -> str:
    """The kind of one alternative reference (read as JSON): an object or a list; a list of
    objects and a list of plain values are both lists (scored against the output's kind)."""
    if isinstance(reference, dict):
        return "an object"
    if isinstance(reference, list):
        return "a list"
    raise TypeError(f"{path} is {a_type(reference)}, expected an object or a list of objects")


def _build(
    *,
    aggregator: Any,
    list_aggregator: Any,
    rubric: Any,
    exclude_keys: Any,
    judge: Any,
    model: Any,
    use_reasoning: Any,
    list_match_mode: Any,
    alignment: Any,
    feedback_key: Any = DEFAULT_PREFIX,
    compat: Any = None,
    any_of_key: Any = None,
    **extensions: Any,
) -> tuple[JsonMatchOptions, Judge]:
    check_feedback_key(feedback_key)
    check_any_of_key(any_of_key)
    if compat is not None:
        _check_compat(compat, alignment=alignment, any_of_key=any_of_key, **extensions)
    options = JsonMatchOptions.build(
        aggregator=aggregator,
        list_aggregator=list_aggregator,
        rubric=rubric,
        exclude_keys=exclude_keys,
        use_reasoning=use_reasoning,
        list_match_mode=list_match_mode,
        alignment=alignment,
        **extensions,
    )
    if options.rubric and judge is None and not model:
        raise ValueError("rubric keys need a judge: pass judge= or model=")
    if not options.rubric and (judge is not None or model):
        raise ValueError("judge and model are only used for rubric keys: pass rubric= as well")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise TypeError(f"model must be a 'provider:name' string; got {model!r}")
    if options.rubric:
        import openevals.llm  # noqa: F401 - the judge's library, loaded with the evaluator

        check_judge(judge, model)
    return options, Judge(judge, model)


def _check_compat(compat: Any, **extensions: Any) -> None:
    if compat != "openevals":
        raise ValueError(f"compat must be None or 'openevals'; got {compat!r}")
    changed = [name for name, value in extensions.items() if value != _EXTENSION_DEFAULTS.get(name)]
    if changed:
        raise ValueError(
            "compat='openevals' reproduces openevals' results and takes only openevals' "
            f"options; drop {', '.join(f'{name}=' for name in sorted(changed))} or drop compat"
        )


def _compat(options: JsonMatchOptions, judge: Judge, feedback_key: str, sync: bool) -> Any:
    return compat_evaluator(
        aggregator=options.aggregator,
        list_aggregator=options.list_aggregator,
        rubric=dict(options.rubric),
        exclude_keys=tuple(sorted(options.exclude_keys)),
        judge=judge.judge,
        model=judge.model,
        use_reasoning=options.use_reasoning,
        list_match_mode=options.list_match_mode,
        feedback_key=feedback_key,
        sync=sync,
    )


def create_json_match_evaluator(
    *,
    aggregator: Aggregator | None = None,
    list_aggregator: ListAggregator = "all",
    rubric: dict[str, str] | None = None,
    exclude_keys: list[str] | None = None,
    judge: Any = None,
    model: str | None = None,
    use_reasoning: bool = True,
    list_match_mode: ListMatchMode = "same_elements",
    alignment: Alignment = "optimal",
    nested: bool = False,
    list_match_modes: Mapping[str, ListMatchMode] | None = None,
    comparators: Mapping[str, Comparator] | None = None,
    extra_keys: ExtraKeys = "penalize",
    none_is_missing: bool = False,
    judge_identical: bool = False,
    on_judge_error: OnJudgeError = "raise",
    feedback_key: str = DEFAULT_PREFIX,
    compat: Compat | None = None,
    any_of_key: str | None = None,
) -> Evaluator:
    """Create an evaluator scoring JSON outputs against references, key by key.

    A drop-in for ``openevals.json.create_json_match_evaluator`` (same arguments and results),
    plus ``alignment``: ``"optimal"`` pairs list items to maximize the reported score,
    ``"greedy"`` reproduces openevals' pairing. ``rubric`` and ``exclude_keys`` default to empty.

    Beyond openevals (all off by default):

    - ``nested=True`` scores leaf paths (``address.city``, ``items[*].price``) instead of
      top-level values; ``list_match_modes={path: mode}`` sets the mode of nested lists.
    - ``exclude_keys``, ``rubric`` and ``comparators`` take paths and ``*`` / ``**`` globs.
    - ``comparators={path: comparator}``: see :mod:`matchevals.json_match.comparators`.
    - ``extra_keys="ignore"`` does not score output keys the reference lacks;
      ``none_is_missing=True`` treats ``null`` as an absent key.
    - ``judge_identical=False`` (default) scores rubric values equal as JSON 1 without asking
      the judge; ``on_judge_error="zero"`` turns a judge failure into 0 with the error in
      ``comment`` instead of raising :class:`~matchevals.json_match.JudgeError`.
    - ``reference_outputs`` may be :class:`~matchevals.AnyOf` (several acceptable references:
      the best one's results, ``metadata["any_of"]``); ``any_of_key="any_of"`` also reads a
      reference ``{"any_of": [...]}`` (a dict with only that key) as its alternatives.

    Inputs may be JSON strings, pydantic models, dataclasses or LangChain messages with JSON
    content; lists of plain values are compared as multisets (key ``json_match:[]``).

    >>> evaluator = create_json_match_evaluator()
    >>> [(r["key"], r["score"], r["comment"]) for r in evaluator(
    ...     outputs={"name": "Alice", "age": 20}, reference_outputs={"name": "Alice", "age": 30})]
    [('json_match:age', 0, 'age: expected 30, got 20'), ('json_match:name', 1, None)]
    """
    options, judge_client = _build(**locals())  # exactly the keyword arguments above
    if compat is not None:
        return _compat(options, judge_client, feedback_key, sync=True)  # type: ignore[no-any-return]
    compute = partial(_judged, options, judge_client) if options.rubric else scorer(options)
    compute = renaming(compute, DEFAULT_PREFIX, feedback_key)
    return evaluator(RUN_NAME, compute, read=to_json_value, kind=_json_kind, any_of_key=any_of_key)


def create_async_json_match_evaluator(
    *,
    aggregator: Aggregator | None = None,
    list_aggregator: ListAggregator = "all",
    rubric: dict[str, str] | None = None,
    exclude_keys: list[str] | None = None,
    judge: Any = None,
    model: str | None = None,
    use_reasoning: bool = True,
    list_match_mode: ListMatchMode = "same_elements",
    alignment: Alignment = "optimal",
    nested: bool = False,
    list_match_modes: Mapping[str, ListMatchMode] | None = None,
    comparators: Mapping[str, Comparator] | None = None,
    extra_keys: ExtraKeys = "penalize",
    none_is_missing: bool = False,
    judge_identical: bool = False,
    on_judge_error: OnJudgeError = "raise",
    feedback_key: str = DEFAULT_PREFIX,
    compat: Compat | None = None,
    any_of_key: str | None = None,
) -> AsyncEvaluator:
    """The async twin of :func:`create_json_match_evaluator`; same results for every input.

    >>> import asyncio
    >>> evaluator = create_async_json_match_evaluator(aggregator="average")
    >>> outputs, references = {"a": 1, "b": 2}, {"a": 1, "b": 3}
    >>> (result,) = asyncio.run(evaluator(outputs=outputs, reference_outputs=references))
    >>> result["score"], result["comment"], result["metadata"]["mismatches"]
    (0.5, 'b: expected 3, got 2', [{'path': 'b', 'expected': 3, 'actual': 2, 'score': 0}])
    """
    options, judge_client = _build(**locals())  # exactly the keyword arguments above
    if compat is not None:
        return _compat(options, judge_client, feedback_key, sync=False)  # type: ignore[no-any-return]
    compute: AsyncCompute = (
        partial(_ajudged, options, judge_client)
        if options.rubric
        else partial(_ascore, scorer(options))
    )
    compute = renaming(compute, DEFAULT_PREFIX, feedback_key, asynchronous=True)
    return evaluator(
        RUN_NAME,
        compute,
        asynchronous=True,
        read=to_json_value,
        kind=_json_kind,
        any_of_key=any_of_key,
    )
