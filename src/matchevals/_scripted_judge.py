"""``ScriptedJudge``: a real LangChain chat model that answers judge requests from a script.

For offline tests and CI: it works wherever a judge is asked for structured output (the
rubric keys of json_match, ``--judge`` on the command line, the LLM-as-judge evaluators), it
records every prompt it is shown, and it never calls a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import ConfigDict, Field

__all__ = ["ScriptedCall", "ScriptedJudge", "ScriptedRequest", "Verdict"]

Verdict = Union[bool, int, float, tuple[Union[bool, int, float], str]]  # noqa: UP007
"""A score (bool for a pass/fail verdict, a number for a continuous one), or a score and
the judge's reasoning."""

_NAMED_KEY = re.compile(r"for key (.+?)(?:,? follow| meet)")
_POSITION = re.compile(r"_\d+$")


@dataclass(frozen=True)
class ScriptedRequest:
    """One verdict the judge is asked for, and what it was shown.

    ``key`` is the rubric key being judged (``None`` for an LLM-as-judge evaluator's single
    verdict); ``field`` the name the answer goes under in the structured output; ``prompt``
    the text of every message the judge received, in order.
    """

    key: str | None
    field: str
    prompt: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class ScriptedCall:
    """One structured-output call: the schema, the messages as ``(role, text)``, the answer."""

    schema: Mapping[str, Any]
    messages: list[tuple[str, str]]
    answer: dict[str, Any]

    @property
    def prompt(self) -> str:
        return "\n\n".join(text for _, text in self.messages)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(
            str(block.get("text", "")) if isinstance(block, Mapping) else str(block)
            for block in content
        )
    return str(content)


def _message(message: Any) -> tuple[str, str]:
    if isinstance(message, BaseMessage):
        return message.type, _text(message.content)
    if isinstance(message, Mapping):
        return str(message.get("role", "")), _text(message.get("content", ""))
    return "user", _text(message)


def _schema_dict(schema: Any) -> dict[str, Any]:
    if isinstance(schema, Mapping):
        return dict(schema)
    if hasattr(schema, "model_json_schema"):
        return dict(schema.model_json_schema())
    raise TypeError(
        f"ScriptedJudge answers JSON-schema or pydantic structured output; got {schema!r}"
    )


def _single_verdict(properties: Mapping[str, Any]) -> bool:
    """An LLM-as-judge evaluator's schema: one ``score`` (and maybe ``reasoning``)."""
    score = properties.get("score")
    return (
        isinstance(score, Mapping)
        and score.get("type") != "object"
        and set(properties) <= {"score", "reasoning"}
    )


def _rubric_key(field: str, spec: Mapping[str, Any]) -> str:
    """The rubric key a field of the schema asks about, read from its description."""
    descriptions = [str(spec.get("description", ""))]
    inner = spec.get("properties")
    if isinstance(inner, Mapping) and isinstance(inner.get("score"), Mapping):
        descriptions.append(str(inner["score"].get("description", "")))
    for description in descriptions:
        found = _NAMED_KEY.search(description)
        if found:
            return found.group(1)
    return _POSITION.sub("", field)


class ScriptedJudge(BaseChatModel):
    """A LangChain chat model answering judge requests from ``script``, for offline tests.

    ``script`` is one of:

    - a dict of rubric key to verdict: ``{"summary": True, "title": (False, "different
      title")}`` (a key the script lacks is an error naming it);
    - a callable taking a :class:`ScriptedRequest` (the key, and the prompt the judge was
      shown) and returning a verdict;
    - one verdict for every request: ``True``, ``0.75``, ``(False, "too long")``; this is how
      an LLM-as-judge evaluator is answered.

    A verdict without reasoning gets ``"scripted verdict"``. ``calls`` records every request
    (:class:`ScriptedCall`), ``prompts`` the text each one showed the judge.

    >>> from matchevals.json_match import create_json_match_evaluator
    >>> judge = ScriptedJudge({"summary": True, "title": (False, "different title")})
    >>> evaluator = create_json_match_evaluator(
    ...     rubric={"summary": "same meaning", "title": "same title"}, judge=judge)
    >>> summary, title = evaluator(
    ...     outputs={"summary": "a cat sat", "title": "Cats"},
    ...     reference_outputs={"summary": "the cat was sitting", "title": "Dogs"})
    >>> summary["score"], title["score"], title["comment"]
    (True, False, 'title: judged not to match: different title')
    >>> "the cat was sitting" in judge.prompts[0]
    True
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Any = True
    calls: list[ScriptedCall] = Field(default_factory=list)

    def __init__(self, script: Any = True, **kwargs: Any) -> None:
        super().__init__(script=script, **kwargs)  # type: ignore[call-arg]
        _check_script(script)

    @property
    def _llm_type(self) -> str:
        return "matchevals-scripted-judge"

    @property
    def prompts(self) -> list[str]:
        """The text of every request's messages, one string per request, in order."""
        return [call.prompt for call in self.calls]

    def _verdict(self, key: str | None, field: str, prompt: str, schema: Any) -> tuple[Any, str]:
        script = self.script
        if callable(script):
            verdict = script(ScriptedRequest(key, field, prompt, schema))
        elif isinstance(script, Mapping):
            wanted = "score" if key is None else key
            if wanted not in script:
                raise ValueError(
                    f"ScriptedJudge has no verdict for {'the score' if key is None else repr(key)}"
                    f"; its script answers {sorted(map(str, script))}"
                )
            verdict = script[wanted]
        else:
            verdict = script
        return _split(verdict, key)

    def answer(self, schema: Any, messages: Sequence[Any]) -> dict[str, Any]:
        """The structured answer to ``messages`` under ``schema`` (recorded in ``calls``)."""
        schema = _schema_dict(schema)
        shown = [_message(message) for message in messages]
        prompt = "\n\n".join(text for _, text in shown)
        properties = schema.get("properties") or {}
        answer: dict[str, Any] = {}
        if _single_verdict(properties):
            score, reasoning = self._verdict(None, "score", prompt, schema)
            answer["score"] = score
            if "reasoning" in properties:
                answer["reasoning"] = reasoning
        else:
            for field, spec in properties.items():
                key = _rubric_key(field, spec)
                score, reasoning = self._verdict(key, field, prompt, schema)
                is_object = spec.get("type") == "object"
                answer[field] = {"score": score, "reasoning": reasoning} if is_object else score
        self.calls.append(ScriptedCall(schema, shown, answer))
        return answer

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable[Any, Any]:
        return RunnableLambda(lambda messages: self.answer(schema, _as_messages(messages)))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        answer = self.answer({"properties": {"score": {"type": "boolean"}}}, messages)
        message = AIMessage(content=json.dumps(answer))
        return ChatResult(generations=[ChatGeneration(message=message)])


def _as_messages(value: Any) -> Sequence[Any]:
    if hasattr(value, "to_messages"):  # a PromptValue
        return list(value.to_messages())
    if isinstance(value, (str, Mapping, BaseMessage)):
        return [value]
    return list(value)


def _split(verdict: Any, key: str | None) -> tuple[Any, str]:
    if isinstance(verdict, tuple) and len(verdict) == 2 and isinstance(verdict[1], str):
        return verdict[0], verdict[1]
    if isinstance(verdict, (bool, int, float)):
        return verdict, "scripted verdict"
    where = "the score" if key is None else f"rubric key {key!r}"
    raise TypeError(
        f"ScriptedJudge's verdict for {where} is {verdict!r}; expected a bool, a number, "
        "or (score, reasoning)"
    )


def _check_script(script: Any) -> None:
    if callable(script):
        return
    if isinstance(script, Mapping):
        for key, verdict in script.items():
            _split(verdict, str(key))
        return
    _split(script, None)


ScriptedJudge.__module__ = "matchevals.testing"  # it reports where users import it from
