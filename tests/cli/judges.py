"""Judges for ``matchevals json --judge tests.cli.judges:NAME`` (scripted, offline), built with
the public :class:`matchevals.testing.ScriptedJudge`."""

from __future__ import annotations

from langchain_core.language_models import FakeListChatModel

from matchevals.testing import ScriptedJudge
from matchevals.testing import ScriptedJudge as _Scripted


def _approve(request: object) -> tuple[bool, str]:
    return True, f"{getattr(request, 'key', '')} looks right"


def _reject(request: object) -> tuple[bool, str]:
    return False, f"{getattr(request, 'key', '')} says something else"


approving = ScriptedJudge(_approve)
rejecting = ScriptedJudge(_reject)


def make_rejecting() -> ScriptedJudge:
    """A zero-argument factory returning a judge."""
    return ScriptedJudge(_reject)


class Approving(_Scripted):
    """A class: ``--judge`` makes one with no arguments."""

    def __init__(self) -> None:
        super().__init__(_approve)


stock_fake = FakeListChatModel(responses=["{}"])  # no with_structured_output
not_a_model = 42
