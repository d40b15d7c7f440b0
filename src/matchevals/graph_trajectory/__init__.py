"""Match LangGraph runs superstep by superstep, with modes, patterns, partial credit and rules.

>>> from matchevals.graph_trajectory import Repeat, graph_trajectory_match
>>> run = {"inputs": None, "results": None, "steps": [["agent"], ["tools"], ["agent"]]}
>>> loop = Repeat([["agent"], ["tools"]], min=1)
>>> reference = {"inputs": None, "results": None, "steps": [loop, ["agent"]]}
>>> graph_trajectory_match(outputs=run, reference_outputs=reference)["score"]
True
"""

from matchevals._any_of import AnyOf
from matchevals.graph_trajectory._agentevals import (
    AgentevalsConversion,
    from_agentevals_trajectory,
    to_agentevals_trajectory,
)
from matchevals.graph_trajectory._evaluators import (
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from matchevals.graph_trajectory._types import (
    GraphRunReferenceTrajectory,
    GraphRunTrajectory,
    GraphTrajectoryMatchMode,
    ReferenceStep,
    Repeat,
)

__all__ = [
    "AgentevalsConversion",
    "AnyOf",
    "GraphRunReferenceTrajectory",
    "GraphRunTrajectory",
    "GraphTrajectoryMatchMode",
    "ReferenceStep",
    "Repeat",
    "create_async_graph_trajectory_match_evaluator",
    "create_async_graph_trajectory_rules_evaluator",
    "create_graph_trajectory_match_evaluator",
    "create_graph_trajectory_rules_evaluator",
    "from_agentevals_trajectory",
    "graph_trajectory_match",
    "graph_trajectory_match_async",
    "to_agentevals_trajectory",
]

for _public in (
    AgentevalsConversion,
    GraphRunReferenceTrajectory,
    GraphRunTrajectory,
    ReferenceStep,
    Repeat,
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
    from_agentevals_trajectory,
    graph_trajectory_match,
    graph_trajectory_match_async,
    to_agentevals_trajectory,
):
    _public.__module__ = __name__  # they report where users import them from
del _public
