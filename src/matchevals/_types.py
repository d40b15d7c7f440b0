"""What every matchevals evaluator returns: LangSmith-compatible ``EvaluatorResult`` dicts.

The one result type of the package (json_match, graph_trajectory, the rules evaluator, the
assertions and the command line all use it). It imports nothing, not even LangSmith: it has the
shape of ``langsmith.evaluation.EvaluationResult`` dicts and openevals' ``EvaluatorResult``.

>>> result: EvaluatorResult = {"key": "json_match:age", "score": 0, "comment": None,
...                            "metadata": None}
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

if sys.version_info >= (3, 11):
    from typing import NotRequired
else:  # pragma: no cover - Python 3.10
    from typing_extensions import NotRequired

__all__ = ["AsyncEvaluator", "Evaluator", "EvaluatorResult"]


class EvaluatorResult(TypedDict):
    """One piece of feedback, shaped as openevals and LangSmith expect it."""

    key: str
    score: float | bool
    comment: str | None
    metadata: dict[str, Any] | None
    source_run_id: NotRequired[str | None]


Evaluator = Callable[..., list[EvaluatorResult]]
"""Called with keyword arguments ``outputs=``, ``reference_outputs=`` (and any others)."""
AsyncEvaluator = Callable[..., Awaitable[list[EvaluatorResult]]]
