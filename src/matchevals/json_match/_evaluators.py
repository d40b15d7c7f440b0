"""The JSON-match evaluators: thin sync and async edges around one pure core.

Each factory validates its options once and returns a callable that runs
``prepare`` → (judge, only for rubric keys) → ``finish`` inside the LangSmith adapter. The sync
and async evaluators differ only in how the judge is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from openevals.llm import create_async_llm_as_judge, create_llm_as_judge

from matchevals._evaluator import (
    AsyncEvaluator,
    Evaluator,
    EvaluatorResult,
    EvaluatorRun,
    langsmith_active,
)
from matchevals.json_match._judge import (
    JUDGE_PROMPT,
    JUDGE_SYSTEM,
    judge_failed,
    judge_payload,
    read_judge_answer,
)
from matchevals.json_match._options import (
    Aggregator,
    Alignment,
    ExtraKeys,
    JsonMatchOptions,
    ListAggregator,
    ListMatchMode,
    OnJudgeError,
)
from matchevals.json_match._score import (
    Evaluation,
    JudgeVerdict,
    finish,
    prepare,
    score_without_judge,
)
from matchevals.json_match.comparators import Comparator

__all__ = ["create_async_json_match_evaluator", "create_json_match_evaluator"]

RUN_NAME = "json_match_evaluator"
_F = TypeVar("_F", bound=Callable[..., Any])


@dataclass(frozen=True)
class _Judge:
    """The model that scores rubric keys: a LangChain chat model, an OpenAI-style client, or a
    ``provider:name`` string, called through openevals' public LLM-as-judge."""

    judge: Any
    model: str | None

    def _call_kwargs(self, evaluation: Evaluation) -> tuple[dict[str, Any], dict[str, str]]:
        schema, values = judge_payload(evaluation.judge_requests, evaluation.options.use_reasoning)
        settings = {
            "prompt": JUDGE_PROMPT,
            "system": JUDGE_SYSTEM,
            "judge": self.judge,
            "model": self.model,
            "output_schema": schema,
        }
        return settings, values

    def verdicts(self, evaluation: Evaluation) -> dict[str, JudgeVerdict]:
        if not evaluation.judge_requests:  # every rubric value identical, or none present
            return {}
        settings, values = self._call_kwargs(evaluation)
        try:
            answer = create_llm_as_judge(**settings)(**values)
            return read_judge_answer(
                answer, evaluation.judge_requests, evaluation.options.use_reasoning
            )
        except Exception as error:
            return judge_failed(error, evaluation.judge_requests, evaluation.options.on_judge_error)

    async def averdicts(self, evaluation: Evaluation) -> dict[str, JudgeVerdict]:
        if not evaluation.judge_requests:
            return {}
        settings, values = self._call_kwargs(evaluation)
        try:
            answer = await create_async_llm_as_judge(**settings)(**values)
            return read_judge_answer(
                answer, evaluation.judge_requests, evaluation.options.use_reasoning
            )
        except Exception as error:
            return judge_failed(error, evaluation.judge_requests, evaluation.options.on_judge_error)


def _compute(
    options: JsonMatchOptions, judge: _Judge, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    if not options.judged_keys:
        return score_without_judge(outputs, reference_outputs, options)
    evaluation = prepare(outputs, reference_outputs, options)
    return finish(evaluation, judge.verdicts(evaluation))


async def _acompute(
    options: JsonMatchOptions, judge: _Judge, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    if not options.judged_keys:
        return score_without_judge(outputs, reference_outputs, options)
    evaluation = prepare(outputs, reference_outputs, options)
    return finish(evaluation, await judge.averdicts(evaluation))


def _evaluate(
    options: JsonMatchOptions,
    judge: _Judge,
    run: EvaluatorRun,
    /,
    *,
    outputs: Any,
    reference_outputs: Any,
    **kwargs: Any,
) -> list[EvaluatorResult]:
    if not langsmith_active():
        return _compute(options, judge, outputs, reference_outputs)
    return run.call(
        partial(_compute, options, judge, outputs, reference_outputs),
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=kwargs.get("inputs"),
    )


async def _aevaluate(
    options: JsonMatchOptions,
    judge: _Judge,
    run: EvaluatorRun,
    /,
    *,
    outputs: Any,
    reference_outputs: Any,
    **kwargs: Any,
) -> list[EvaluatorResult]:
    if not langsmith_active():
        return await _acompute(options, judge, outputs, reference_outputs)
    return await run.acall(
        partial(_acompute, options, judge, outputs, reference_outputs),
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=kwargs.get("inputs"),
    )


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
    **extensions: Any,
) -> tuple[JsonMatchOptions, _Judge, EvaluatorRun]:
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
    if model is not None and not isinstance(model, str):
        raise TypeError(f"model must be a 'provider:name' string; got {type(model).__name__}")
    return options, _Judge(judge, model), EvaluatorRun(RUN_NAME)


def _named(evaluator: _F) -> _F:
    evaluator.__name__ = RUN_NAME
    evaluator.__qualname__ = RUN_NAME
    return evaluator


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

    Inputs may be JSON strings, pydantic models, dataclasses or LangChain messages with JSON
    content; lists of plain values are compared as multisets (key ``json_match:[]``).

    >>> evaluator = create_json_match_evaluator()
    >>> [(r["key"], r["score"], r["comment"]) for r in evaluator(
    ...     outputs={"name": "Alice", "age": 20}, reference_outputs={"name": "Alice", "age": 30})]
    [('json_match:age', 0, 'age: expected 30, got 20'), ('json_match:name', 1, None)]
    """
    options, judge_client, run = _build(**locals())  # exactly the keyword arguments above
    return _named(partial(_evaluate, options, judge_client, run))


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
) -> AsyncEvaluator:
    """The async twin of :func:`create_json_match_evaluator`; same results for every input.

    >>> import asyncio
    >>> evaluator = create_async_json_match_evaluator(aggregator="average")
    >>> outputs, references = {"a": 1, "b": 2}, {"a": 1, "b": 3}
    >>> (result,) = asyncio.run(evaluator(outputs=outputs, reference_outputs=references))
    >>> result["score"], result["comment"], result["metadata"]["mismatches"]
    (0.5, 'b: expected 3, got 2', [{'path': 'b', 'expected': 3, 'actual': 2, 'score': 0}])
    """
    options, judge_client, run = _build(**locals())  # exactly the keyword arguments above
    return _named(partial(_aevaluate, options, judge_client, run))
