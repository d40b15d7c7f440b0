"""The judge calls openevals 0.2.2's JSON match makes for rubric keys, as data (pure).

Its prompts' values and structured-output schema, one request per reported key, or a single
request when an aggregator is set (``group`` None); :mod:`._compat_evaluators` sends them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.json_match._compat import CompatOptions, Prepared, base_key, reported_groups

__all__ = ["CompatJudgeRequest", "judge_requests"]


@dataclass(frozen=True)
class CompatJudgeRequest:
    """One judge call openevals makes: for one reported key, or (``group=None``) for all."""

    group: Any
    schema: dict[str, Any]
    rubric: str
    outputs: str
    reference_outputs: str


def _verdict_schema(key: Any, criteria: str, use_reasoning: bool) -> dict[str, Any]:
    question = f"Does the output for key {key}, follow the criteria? {criteria}"
    if not use_reasoning:
        return {"type": "boolean", "description": question}
    reason = f"Reasoning for the score you assigned to key {key}"
    return {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": reason},
            "score": {"type": "boolean", "description": question},
        },
        "required": ["score", "reasoning"],
        "additionalProperties": False,
    }


def _schema(properties: dict[str, Any], required: list[Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "title": "structured_match_score",
        "description": "Scores measuring the accuracy of structured outputs",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _lines(raw_keys: Sequence[Any], values: Mapping[Any, Any]) -> str:
    return "\n".join(f"{raw_key}: {values[raw_key]}" for raw_key in raw_keys if raw_key in values)


def judge_requests(
    prepared: Prepared, options: CompatOptions, use_reasoning: bool
) -> list[CompatJudgeRequest]:
    """The judge calls openevals makes for the rubric keys of ``prepared``, in its order."""
    if not prepared.judged:
        return []
    keys = {raw: base_key(raw) if prepared.listed else raw for raw in prepared.judged}
    properties = {
        raw: _verdict_schema(keys[raw], options.rubric[keys[raw]], use_reasoning)
        for raw in prepared.judged
    }
    if options.aggregator is not None:
        rubric = "".join(
            f"Key: {keys[raw]}, Criteria: {options.rubric[keys[raw]]}\n" for raw in prepared.judged
        )
        return [CompatJudgeRequest(None, _schema(properties, []), rubric, _lines(prepared.judged, prepared.outputs), _lines(prepared.judged, prepared.references))]  # fmt: skip # noqa: E501
    requests = []
    for group, raw_keys in reported_groups(prepared).items():
        asked = [raw for raw in raw_keys if raw in properties]
        if not asked:
            continue
        criteria = options.rubric.get(group, "")
        rubric = f"Key: {group}, Criteria: {criteria}\n" if criteria else ""
        schema = _schema({raw: properties[raw] for raw in asked}, asked)
        requests.append(CompatJudgeRequest(group, schema, rubric, _lines(raw_keys, prepared.outputs), _lines(raw_keys, prepared.references)))  # fmt: skip # noqa: E501
    return requests
