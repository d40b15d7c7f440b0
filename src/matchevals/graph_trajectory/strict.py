"""agentevals 0.0.9's ``graph_trajectory.strict``, as a drop-in: change the import, keep the code.

>>> from matchevals.graph_trajectory.strict import graph_trajectory_strict_match
>>> graph_trajectory_strict_match(
...     outputs={"results": [], "steps": [["__start__", "agent", "tools"], ["agent"]]},
...     reference_outputs={"results": [], "steps": [["__start__", "agent", "tools"], ["agent"]]},
... )
{'key': 'graph_trajectory_strict_match', 'score': True, 'comment': None, 'metadata': None}

The same key, score and result shape as agentevals (a different number of invocations scores
False); a failing result also says in ``comment`` which invocation differs. The trajectories are
agentevals' flat ones (one node list per invocation, e.g. ``extracted["outputs"]`` from
:func:`matchevals.graph_trajectory.utils.extract_langgraph_trajectory_from_thread`), so what
ran in parallel cannot be told from what ran in sequence: for that, match superstep by superstep
with :func:`matchevals.graph_trajectory.graph_trajectory_match`.
"""

from __future__ import annotations

from typing import Any

from matchevals._edge import Edge, aevaluate, evaluate
from matchevals._langsmith import EvaluatorRun
from matchevals._peers import peer_getattr
from matchevals._types import EvaluatorResult
from matchevals.graph_trajectory._flat_match import flat_strict_match

__all__ = [  # noqa: F822 - agentevals' types load on first use (module __getattr__)
    "EvaluatorResult",
    "GraphTrajectory",
    "graph_trajectory_strict_match",
    "graph_trajectory_strict_match_async",
]

__getattr__: Any = peer_getattr(__name__, {"GraphTrajectory": "agentevals.types"})

KEY = "graph_trajectory_strict_match"


def _result(outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    score, comment = flat_strict_match(outputs, reference_outputs)
    return {"key": KEY, "score": score, "comment": comment, "metadata": None}


async def _aresult(outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    return _result(outputs, reference_outputs)


_RUN = EvaluatorRun(KEY)
_EDGE = Edge(KEY, _result, _RUN)
_AEDGE = Edge(KEY, _aresult, _RUN)


def graph_trajectory_strict_match(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """True when each invocation ran exactly the reference's node list, in order."""
    return evaluate(_EDGE, outputs=outputs, reference_outputs=reference_outputs, **kwargs)  # type: ignore[no-any-return]


async def graph_trajectory_strict_match_async(
    *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of :func:`graph_trajectory_strict_match`."""
    return await aevaluate(_AEDGE, outputs=outputs, reference_outputs=reference_outputs, **kwargs)  # type: ignore[no-any-return]
