"""Conversions to AgentEvals' trajectory formats (pure; no LangGraph needed).

>>> to_agentevals_trajectory({"inputs": None, "results": None, "steps": [["a"], ["b"]]})
{'inputs': [{}], 'results': [{}], 'steps': [['a', 'b']]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matchevals.graph_trajectory._types import GraphRunTrajectory

__all__ = ["to_agentevals_trajectory"]


def to_agentevals_trajectory(
    runs: GraphRunTrajectory | Sequence[GraphRunTrajectory],
) -> dict[str, Any]:
    """AgentEvals' flat ``GraphTrajectory``: one flat list of node names per invocation.

    >>> to_agentevals_trajectory({"inputs": {"q": 1}, "results": {"a": 2},
    ...                           "steps": [["a"], ["b", "c"], ["d"]]})
    {'inputs': [{'q': 1}], 'results': [{'a': 2}], 'steps': [['a', 'b', 'c', 'd']]}

    Superstep boundaries are lost (that is the older format). A ``None`` input (resume) or result
    (failed run) becomes ``{}``.
    """
    if isinstance(runs, Mapping):
        runs = [runs]
    return {
        "inputs": [run["inputs"] or {} for run in runs],
        "results": [run["results"] or {} for run in runs],
        "steps": [[name for step in run["steps"] for name in step] for run in runs],
    }
