"""The sync and async edges of ``compat="openevals"``: openevals 0.2.2's results, exactly.

The values are scored as given (no conversion: openevals compares them with Python ``==``, and
converting would change what is equal, a tuple and a list for one). The sync evaluator returns
what openevals' sync evaluator returns, the async one what openevals' async evaluator returns
(they differ on some list inputs: see :mod:`._compat`). Rubric keys go to the judge as openevals
sends them: its prompts and schema, one call per reported key, or one call with an aggregator.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from matchevals._edge import evaluator
from matchevals._feedback_keys import renaming
from matchevals._types import EvaluatorResult
from matchevals.json_match._compat import CompatOptions, check_inputs, finish, prepare
from matchevals.json_match._compat_requests import CompatJudgeRequest, judge_requests

__all__ = ["compat_evaluator"]

RUN_NAME = "json_match_evaluator"
DEFAULT_PREFIX = "json_match"


def _judge_settings(judge: Any, model: str | None, request: CompatJudgeRequest) -> dict[str, Any]:
    from openevals.json.match import SYSTEM_PROMPT, USER_PROMPT

    return {
        "prompt": USER_PROMPT,
        "system": SYSTEM_PROMPT,
        "judge": judge,
        "model": model,
        "output_schema": request.schema,
    }


def _prompt_values(request: CompatJudgeRequest) -> dict[str, str]:
    return {
        "outputs": request.outputs,
        "reference_outputs": request.reference_outputs,
        "rubric": request.rubric,
    }


def _score(
    options: CompatOptions, mode: str, use_reasoning: bool, judge: Any, model: str | None,
    outputs: Any, reference_outputs: Any,
) -> list[EvaluatorResult]:  # fmt: skip
    check_inputs(outputs, reference_outputs)
    prepared = prepare(outputs, reference_outputs, options, mode)
    answers: dict[Any, Any] = {}
    for request in judge_requests(prepared, options, use_reasoning):
        from openevals.llm import create_llm_as_judge

        ask = create_llm_as_judge(**_judge_settings(judge, model, request))
        answers[request.group] = ask(**_prompt_values(request))
    return finish(prepared, answers, options)


async def _ascore(
    options: CompatOptions, mode: str, use_reasoning: bool, judge: Any, model: str | None,
    outputs: Any, reference_outputs: Any,
) -> list[EvaluatorResult]:  # fmt: skip
    check_inputs(outputs, reference_outputs)
    prepared = prepare(outputs, reference_outputs, options, mode)
    answers: dict[Any, Any] = {}
    for request in judge_requests(prepared, options, use_reasoning):
        from openevals.llm import create_async_llm_as_judge

        ask = create_async_llm_as_judge(**_judge_settings(judge, model, request))
        answers[request.group] = await ask(**_prompt_values(request))
    return finish(prepared, answers, options)


def compat_evaluator(
    *,
    aggregator: str | None,
    list_aggregator: str,
    rubric: dict[str, str],
    exclude_keys: tuple[Any, ...],
    judge: Any,
    model: str | None,
    use_reasoning: bool,
    list_match_mode: str,
    feedback_key: str,
    sync: bool,
) -> Callable[..., Any]:
    """The evaluator of ``compat="openevals"`` for options already validated."""
    options = CompatOptions(aggregator, list_aggregator, exclude_keys, rubric, fill_absent=sync)
    settings = (options, list_match_mode, use_reasoning, judge, model)
    compute = renaming(
        partial(_score if sync else _ascore, *settings),
        DEFAULT_PREFIX,
        feedback_key,
        asynchronous=not sync,
    )
    return evaluator(RUN_NAME, compute, asynchronous=not sync)
