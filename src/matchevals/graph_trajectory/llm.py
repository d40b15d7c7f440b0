"""LLM-as-judge for LangGraph runs: agentevals' ``graph_trajectory.llm``, and native runs.

``create_graph_trajectory_llm_as_judge`` / ``create_async_graph_trajectory_llm_as_judge`` take
agentevals' arguments and defaults and, for agentevals' trajectories (``outputs`` as
``extract_langgraph_trajectory_from_thread(...)["outputs"]`` with ``inputs=`` beside them),
return what agentevals returns: the judge (through openevals' public LLM-as-judge) is shown the
same thread. They also take native runs (:class:`~matchevals.graph_trajectory.GraphRunTrajectory`,
one or a list, with references in the same form): each superstep is one line of the thread, so
the judge sees which nodes ran together, which agentevals' flat lists cannot say.

>>> from matchevals.testing import ScriptedJudge
>>> judge = ScriptedJudge((True, "a sensible fan-out"))
>>> evaluator = create_graph_trajectory_llm_as_judge(judge=judge)
>>> run = {"inputs": {"q": "hi"}, "results": {"a": 1}, "steps": [["plan"], ["a", "b"]]}
>>> evaluator(outputs=run)["score"], "superstep 1: a, b" in judge.prompts[0]
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from agentevals.graph_trajectory.llm import DEFAULT_REF_COMPARE_PROMPT
from agentevals.types import FewShotExample, GraphTrajectory
from langchain_core.runnables import Runnable
from openevals.llm import create_async_llm_as_judge, create_llm_as_judge
from openevals.types import ChatCompletionMessage, ModelClient

from matchevals._types import EvaluatorResult
from matchevals.graph_trajectory._judge_thread import (
    agentevals_inputs,
    agentevals_thread,
    is_agentevals_trajectory,
    native_thread,
    reference_text,
)

__all__ = [
    "DEFAULT_REF_COMPARE_PROMPT",
    "EvaluatorResult",
    "FewShotExample",
    "GraphTrajectory",
    "create_async_graph_trajectory_llm_as_judge",
    "create_graph_trajectory_llm_as_judge",
]

Prompt = str | Runnable[Any, Any] | Callable[..., list[ChatCompletionMessage]]


def _prompt_values(inputs: Any, outputs: Any, reference_outputs: Any) -> dict[str, Any]:
    if is_agentevals_trajectory(outputs):
        inputs = agentevals_inputs(inputs, outputs)
        thread = agentevals_thread(inputs, outputs)
        reference = reference_text(reference_outputs, native=False)
    else:
        thread = native_thread(outputs)
        reference = reference_text(reference_outputs, native=True)
    return {"inputs": inputs, "outputs": outputs, "thread": thread, "reference_outputs": reference}


def _judge(ask: Callable[..., Any], /, *, inputs: Any = None, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    result: EvaluatorResult = ask(**_prompt_values(inputs, outputs, reference_outputs), **kwargs)
    return result


async def _ajudge(ask: Callable[..., Any], /, *, inputs: Any = None, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    result: EvaluatorResult = await ask(**_prompt_values(inputs, outputs, reference_outputs), **kwargs)  # fmt: skip # noqa: E501
    return result


def _settings(prompt: Any, **settings: Any) -> dict[str, Any]:
    return {"prompt": prompt, **settings}


def create_graph_trajectory_llm_as_judge(
    *,
    prompt: Prompt = DEFAULT_REF_COMPARE_PROMPT,
    model: str | None = None,
    feedback_key: str = "graph_trajectory_accuracy",
    judge: ModelClient | Any | None = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[FewShotExample] | None = None,
) -> Callable[..., EvaluatorResult]:
    """An evaluator asking a judge to grade a graph's run (agentevals' thread, or native runs
    superstep by superstep). The default prompt is agentevals' ``DEFAULT_REF_COMPARE_PROMPT``
    (``{thread}`` and ``{reference_outputs}``). One result under ``feedback_key``."""
    ask = create_llm_as_judge(
        **_settings(
            prompt,
            feedback_key=feedback_key,
            judge=judge,
            model=model,
            continuous=continuous,
            choices=choices,
            use_reasoning=use_reasoning,
            few_shot_examples=few_shot_examples,
        )
    )
    return partial(_judge, ask)


def create_async_graph_trajectory_llm_as_judge(
    *,
    prompt: Prompt = DEFAULT_REF_COMPARE_PROMPT,
    model: str | None = None,
    feedback_key: str = "graph_trajectory_accuracy",
    judge: ModelClient | Any | None = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[FewShotExample] | None = None,
) -> Callable[..., Any]:
    """The async twin of :func:`create_graph_trajectory_llm_as_judge`."""
    ask = create_async_llm_as_judge(
        **_settings(
            prompt,
            feedback_key=feedback_key,
            judge=judge,
            model=model,
            continuous=continuous,
            choices=choices,
            use_reasoning=use_reasoning,
            few_shot_examples=few_shot_examples,
        )
    )
    return partial(_ajudge, ask)
