"""The LLM judge of rubric keys: how requests are named, what the judge is asked, how its answer
is read, and the one call to the model (through openevals' public LLM-as-judge, imported only
when an evaluator has a rubric).

>>> request_id("detail.note", 4, counted=True), request_id("summary", 1), request_id("title")
('detail_note_4', 'summary_1', 'title')
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._values import render
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._types import JudgeRequest, JudgeVerdict

__all__ = [
    "JUDGE_PROMPT",
    "JUDGE_SYSTEM",
    "Judge",
    "JudgeError",
    "check_judge",
    "judge_failed",
    "judge_payload",
    "read_judge_answer",
    "request_id",
]


class JudgeError(ValueError):
    """The judge could not score the rubric keys it was asked about (named in the message).

    ``verdicts`` holds the valid verdicts of a partly malformed answer.

    >>> str(JudgeError("the judge failed on rubric keys ['summary']: TimeoutError"))
    "the judge failed on rubric keys ['summary']: TimeoutError"
    """

    def __init__(self, message: str, *, verdicts: Mapping[str, JudgeVerdict] | None = None):
        super().__init__(message)
        self.verdicts: dict[str, JudgeVerdict] = dict(verdicts or {})


JUDGE_SYSTEM = """You grade structured outputs one field at a time.
For every field listed, decide whether the output value meets that field's criteria when compared
with the expected value. Use only the field's own criteria: ignore differences they do not mention,
and never let one field's verdict influence another's. A null value compared with a non-null value
does not meet the criteria."""

JUDGE_PROMPT = """Fields to grade, with their criteria:
{rubric}
<output_values>
{outputs}
</output_values>
<expected_values>
{reference_outputs}
</expected_values>"""

_VALUE_LIMIT = 4000
_UNSAFE_CHARACTER = re.compile(r"[^A-Za-z0-9_-]")
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9_-]+")


def request_id(path: str, number: int | None = None, *, counted: bool = False) -> str:
    """The field a request is answered under: a readable name, unique within one judge call.

    A value scored whole (a key of an object, or of a list item) is named by its key when that
    is a safe name, else by a safe spelling made unique by a checksum (``"[]"`` ->
    ``value_5d9b6c2c``); a list item's key adds the item's position (``summary_1``). A
    ``counted`` one (a nested leaf, which may occur many times in one document) is its path's
    safe spelling and the request's running ``number`` (``detail_note_4``).
    """
    if counted:
        return f"{_UNSAFE_RUN.sub('_', path).strip('_') or 'value'}_{number}"
    name = path
    if _UNSAFE_CHARACTER.search(path):
        spelled = _UNSAFE_CHARACTER.sub("_", path).strip("_") or "value"
        name = f"{spelled}_{zlib.crc32(path.encode()):08x}"
    return name if number is None else f"{name}_{number}"


def judge_payload(
    requests: Sequence[JudgeRequest], use_reasoning: bool
) -> tuple[dict[str, Any], dict[str, str]]:
    """The structured-output JSON schema and the prompt values for one judge call.

    >>> schema, values = judge_payload([JudgeRequest("city", "city", "same city", "NYC",
    ...     "New York")], use_reasoning=False)
    >>> schema["properties"]["city"]["type"], values["outputs"]
    ('boolean', 'city: "NYC"')
    """
    properties: dict[str, Any] = {}
    for request in requests:
        question = f"Does the output for key {request.key} meet the criteria? {request.criteria}"
        if use_reasoning:
            properties[request.request_id] = {
                "type": "object",
                "properties": {
                    "reasoning": {
                        "type": "string",
                        "description": f"Why the score for key {request.key} was given",
                    },
                    "score": {"type": "boolean", "description": question},
                },
                "required": ["score", "reasoning"],
                "additionalProperties": False,
            }
        else:
            properties[request.request_id] = {"type": "boolean", "description": question}
    schema = {
        "type": "object",
        "title": "structured_match_score",
        "description": "Per-key verdicts on the accuracy of a structured output",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    criteria = {request.key: request.criteria for request in requests}
    values = {
        "rubric": "\n".join(f"Key: {key}, Criteria: {text}" for key, text in criteria.items()),
        "outputs": "\n".join(
            f"{r.request_id}: {render(r.output_value, _VALUE_LIMIT)}" for r in requests
        ),
        "reference_outputs": "\n".join(
            f"{r.request_id}: {render(r.reference_value, _VALUE_LIMIT)}" for r in requests
        ),
    }
    return schema, values


def read_judge_answer(
    answer: Any, requests: Sequence[JudgeRequest], use_reasoning: bool
) -> dict[str, JudgeVerdict]:
    """Turn the judge's structured answer into one verdict per request.

    Raises JudgeError (a ValueError) naming the rubric keys whose verdicts are missing or
    malformed.
    """
    keys = sorted({request.key for request in requests})
    if not isinstance(answer, Mapping):
        raise JudgeError(
            f"the judge's answer for rubric keys {keys} is not an object: {render(answer)}"
        )
    verdicts: dict[str, JudgeVerdict] = {}
    invalid: list[JudgeRequest] = []
    for request in requests:
        value = answer.get(request.request_id)
        reasoning: Any = None
        if isinstance(value, Mapping):
            reasoning, value = value.get("reasoning"), value.get("score")
        if isinstance(value, bool):
            verdicts[request.request_id] = JudgeVerdict(
                value, str(reasoning) if reasoning is not None and use_reasoning else None
            )
        else:
            invalid.append(request)
    if invalid:
        fields = ", ".join(
            f"{r.request_id!r}: {render(answer.get(r.request_id))}" for r in invalid[:5]
        )
        raise JudgeError(
            f"the judge gave no valid verdict for rubric keys "
            f"{sorted({r.key for r in invalid})} ({fields}); expected a boolean score",
            verdicts=verdicts,
        )
    return verdicts


def judge_failed(
    error: Exception, requests: Sequence[JudgeRequest], on_judge_error: str
) -> dict[str, JudgeVerdict]:
    """What a failed judge call (an exception, or a malformed answer) turns into.

    ``on_judge_error="raise"``: a :class:`JudgeError` naming the rubric keys, chained to the
    cause. ``"zero"``: a 0 verdict for every request, carrying the error for the comment.

    >>> judge_failed(TimeoutError("slow"), [JudgeRequest("a", "a", "c", 1, 2)], "zero")["a"]
    JudgeVerdict(score=0, reasoning=None, error='TimeoutError: slow')
    """
    keys = sorted({request.key for request in requests})
    is_judge_error = isinstance(error, JudgeError)
    message = str(error) if is_judge_error else f"{type(error).__name__}: {error}"
    if on_judge_error == "zero":
        valid = error.verdicts if isinstance(error, JudgeError) else {}
        return {
            request.request_id: valid.get(request.request_id) or JudgeVerdict(0, None, message)
            for request in requests
        }
    if isinstance(error, JudgeError):
        raise error
    raise JudgeError(f"the judge failed on rubric keys {keys}: {message}") from error


def check_judge(judge: Any, model: str | None) -> None:
    """Refuse, when an evaluator is built, a judge that cannot work (no model is called).

    A judge is a LangChain chat model that gives structured output, or an OpenAI-style client
    (``client.chat.completions.create``) with ``model=`` naming the model.
    """
    if judge is None:
        return
    from langchain_core.language_models import BaseChatModel

    if isinstance(judge, BaseChatModel):
        try:
            judge.with_structured_output(_PROBE_SCHEMA)
        except Exception as error:
            raise TypeError(
                f"judge is a {type(judge).__name__} that cannot give structured output "
                f"(with_structured_output raised {type(error).__name__}: {error}); the judge "
                "answers rubric keys through a JSON schema"
            ) from error
        return
    if hasattr(judge, "chat"):  # an OpenAI-style client
        if not model:
            raise ValueError(
                "judge is an OpenAI-style client; pass model= as well, naming the model it "
                "should call (for example model='openai:gpt-4o-mini')"
            )
        return
    hint = f"; to name a model, pass model={judge!r}" if isinstance(judge, str) else ""
    raise TypeError(
        f"judge is {render(judge)} ({type(judge).__name__}); expected a LangChain chat model "
        f"or an OpenAI-style client{hint}"
    )


_PROBE_SCHEMA = {
    "type": "object",
    "title": "structured_match_score",
    "properties": {"probe": {"type": "boolean"}},
    "required": ["probe"],
}


@dataclass(frozen=True)
class Judge:
    """The model that scores rubric keys: a LangChain chat model, an OpenAI-style client, or a
    ``provider:name`` string, called through openevals' public LLM-as-judge."""

    judge: Any
    model: str | None

    def _settings(
        self, requests: Sequence[JudgeRequest], use_reasoning: bool
    ) -> tuple[dict[str, Any], dict[str, str]]:
        schema, values = judge_payload(requests, use_reasoning)
        settings = {
            "prompt": JUDGE_PROMPT,
            "system": JUDGE_SYSTEM,
            "judge": self.judge,
            "model": self.model,
            "output_schema": schema,
        }
        return settings, values

    def verdicts(
        self, requests: Sequence[JudgeRequest], options: JsonMatchOptions
    ) -> dict[str, JudgeVerdict]:
        """One verdict per request, from one model call (none when nothing is asked)."""
        if not requests:  # every rubric value identical, or none present
            return {}
        from openevals.llm import create_llm_as_judge

        settings, values = self._settings(requests, options.use_reasoning)
        try:
            answer = create_llm_as_judge(**settings)(**values)
            return read_judge_answer(answer, requests, options.use_reasoning)
        except Exception as error:
            return judge_failed(error, requests, options.on_judge_error)

    async def averdicts(
        self, requests: Sequence[JudgeRequest], options: JsonMatchOptions
    ) -> dict[str, JudgeVerdict]:
        """The async twin of :meth:`verdicts`."""
        if not requests:
            return {}
        from openevals.llm import create_async_llm_as_judge

        settings, values = self._settings(requests, options.use_reasoning)
        try:
            answer = await create_async_llm_as_judge(**settings)(**values)
            return read_judge_answer(answer, requests, options.use_reasoning)
        except Exception as error:
            return judge_failed(error, requests, options.on_judge_error)
