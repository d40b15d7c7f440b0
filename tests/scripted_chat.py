"""A real LangChain chat model that plays a scripted conversation and supports ``bind_tools``,
so prebuilt agents (``create_react_agent``) run offline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field


class ScriptedChatModel(BaseChatModel):
    """Answers call ``n`` with ``script[n]`` (the last one again once the script runs out).

    ``bind_tools`` records the tools and returns the model itself; ``seen`` keeps the messages
    of every call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    tools: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        self.tools = list(tools)
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen.append(list(messages))
        answer = self.script[min(len(self.seen), len(self.script)) - 1]
        return ChatResult(generations=[ChatGeneration(message=answer.model_copy())])


def tool_call(name: str, args: dict[str, Any], call_id: str = "call_1") -> AIMessage:
    """An assistant turn that calls one tool."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])
