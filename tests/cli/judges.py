"""Judges for ``matchevals json --judge tests.cli.judges:NAME`` (scripted, offline)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import FakeListChatModel

from tests.scripted_judge import ScriptedJudge


def reject_all(schema: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """Answer every requested key with score False and a reason."""
    return {
        name: {"score": False, "reasoning": f"{name} says something else"}
        if spec.get("type") == "object"
        else False
        for name, spec in schema["properties"].items()
    }


approving = ScriptedJudge()
rejecting = ScriptedJudge(answer=reject_all)


def make_rejecting() -> ScriptedJudge:
    """A zero-argument factory returning a judge."""
    return ScriptedJudge(answer=reject_all)


class Approving(ScriptedJudge):
    """A class: ``--judge`` makes one with no arguments."""


stock_fake = FakeListChatModel(responses=["{}"])  # no with_structured_output
not_a_model = 42
