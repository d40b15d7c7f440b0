"""The evaluator a command builds.

>>> evaluator = build_evaluator("json", {"aggregator": "average"})
>>> evaluator(outputs={"a": 1}, reference_outputs={"a": 2})[0]["comment"]
'a: expected 2, got 1'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matchevals.report._summary import Kind

__all__ = ["Kind", "build_evaluator"]


def build_evaluator(kind: Kind, options: dict[str, Any]) -> Callable[..., Any]:
    """The evaluator a command scores with (raises the factory's ValueError/TypeError)."""
    if kind == "json":
        from matchevals.json_match import create_json_match_evaluator

        return create_json_match_evaluator(**options)
    if kind == "trajectory":
        from matchevals.cli._trajectory import trajectory_evaluator

        return trajectory_evaluator(options)
    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

    return create_graph_trajectory_match_evaluator(**options)
