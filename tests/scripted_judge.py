"""A real LangChain chat model that answers structured-output requests from a script."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import ConfigDict, Field

Answer = Callable[[dict[str, Any], list[Any]], Any]


def approve_all(schema: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """Answer every requested key with score True and a short reason."""
    answer: dict[str, Any] = {}
    for name, spec in schema["properties"].items():
        if spec.get("type") == "boolean":
            answer[name] = True
        else:
            answer[name] = {"score": True, "reasoning": f"{name} looks right"}
    return answer


class ScriptedJudge(BaseChatModel):
    """Answers ``with_structured_output(schema)`` calls with ``answer(schema, messages)``.

    Every call is recorded in ``calls`` as ``(schema, messages)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    answer: Answer = approve_all
    calls: list[tuple[dict[str, Any], Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="{}"))])

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, **kwargs: Any
    ) -> Runnable[Any, Any]:
        def respond(messages: Sequence[Any]) -> Any:
            self.calls.append((schema, list(messages)))
            return self.answer(schema, list(messages))

        return RunnableLambda(respond)
