"""LLM-as-judge for agent trajectories: openevals' and agentevals' ``trajectory.llm``.

``create_trajectory_llm_as_judge`` / ``create_async_trajectory_llm_as_judge`` take the peers'
arguments and defaults and return what they return for the peers' inputs (the judge is called
through openevals' public LLM-as-judge, shown the same text). They also read every trajectory
format matchevals reads: Anthropic ``tool_use`` / ``tool_result`` and OpenAI Responses
``function_call`` blocks, LangChain messages and their dict forms (``messages_to_dict``, whose
tool calls the peers drop), and ``{"messages": [...]}``.

>>> from matchevals.testing import ScriptedJudge
>>> judge = ScriptedJudge((True, "sensible steps"))
>>> evaluator = create_trajectory_llm_as_judge(judge=judge)
>>> evaluator(outputs=[{"role": "user", "content": "hi"}],
...           reference_outputs=[{"role": "user", "content": "hi"}])
{'key': 'trajectory_accuracy', 'score': True, 'comment': 'sensible steps', 'metadata': None}
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from langchain_core.runnables import Runnable
from openevals.llm import create_async_llm_as_judge, create_llm_as_judge
from openevals.prompts.trajectory import (
    TRAJECTORY_ACCURACY_PROMPT,
    TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
)
from openevals.types import (
    ChatCompletionMessage,
    FewShotExample,
    ModelClient,
    SimpleAsyncEvaluator,
    SimpleEvaluator,
)

from matchevals.trajectory._openai_messages import openai_messages, trajectory_text

__all__ = [
    "TRAJECTORY_ACCURACY_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
    "ChatCompletionMessage",
    "FewShotExample",
    "ModelClient",
    "SimpleAsyncEvaluator",
    "SimpleEvaluator",
    "create_async_trajectory_llm_as_judge",
    "create_trajectory_llm_as_judge",
]

Prompt = str | Runnable[Any, Any] | Callable[..., list[ChatCompletionMessage]]


def _texts(outputs: Any, reference_outputs: Any) -> tuple[str, str]:
    references = openai_messages(reference_outputs)
    return trajectory_text(openai_messages(outputs)), (
        trajectory_text(references) if references else ""
    )


def _judge(ask: Callable[..., Any], /, *, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> Any:  # fmt: skip # noqa: E501
    text, reference_text = _texts(outputs, reference_outputs)
    return ask(outputs=text, reference_outputs=reference_text, **kwargs)


async def _ajudge(ask: Callable[..., Any], /, *, outputs: Any, reference_outputs: Any = None, **kwargs: Any) -> Any:  # fmt: skip # noqa: E501
    text, reference_text = _texts(outputs, reference_outputs)
    return await ask(outputs=text, reference_outputs=reference_text, **kwargs)


def create_trajectory_llm_as_judge(
    *,
    prompt: Prompt = TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    model: str | None = None,
    feedback_key: str = "trajectory_accuracy",
    judge: ModelClient | Any | None = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[FewShotExample] | None = None,
    system: str | None = None,
) -> SimpleEvaluator:
    """An evaluator asking a judge (a LangChain chat model, an OpenAI client with ``model=``,
    or ``model="provider:name"``) to grade a trajectory, against a reference when the prompt
    has ``{reference_outputs}``. One result under ``feedback_key``: a bool, or a float with
    ``continuous=True``; the judge's reasoning in ``comment``.
    """
    ask = create_llm_as_judge(
        prompt=prompt,
        feedback_key=feedback_key,
        judge=judge,
        model=model,
        system=system,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        few_shot_examples=few_shot_examples,
    )
    return partial(_judge, ask)


def create_async_trajectory_llm_as_judge(
    *,
    prompt: Prompt = TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    model: str | None = None,
    feedback_key: str = "trajectory_accuracy",
    judge: ModelClient | Any | None = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[FewShotExample] | None = None,
    system: str | None = None,
) -> SimpleAsyncEvaluator:
    """The async twin of :func:`create_trajectory_llm_as_judge`."""
    ask = create_async_llm_as_judge(
        prompt=prompt,
        feedback_key=feedback_key,
        judge=judge,
        model=model,
        system=system,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        few_shot_examples=few_shot_examples,
    )
    return partial(_ajudge, ask)


for _public in (create_async_trajectory_llm_as_judge, create_trajectory_llm_as_judge):
    _public.__module__ = "matchevals.trajectory"  # they report where users import them from
del _public
