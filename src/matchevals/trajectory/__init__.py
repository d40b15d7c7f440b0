"""Match agent trajectories (messages and tool calls) against references.

A drop-in for ``openevals.trajectory.match`` / ``agentevals.trajectory.match`` that pairs tool
calls by a maximum matching, explains every failure, and grades on request.

>>> from matchevals.trajectory import create_trajectory_match_evaluator
>>> evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
>>> weather = {"name": "get_weather", "args": {"city": "SF"}}
>>> news = {"name": "get_news", "args": {"topic": "AI"}}
>>> outputs = [{"role": "user", "content": "hi"}, {"role": "ai", "tool_calls": [weather, news]}]
>>> references = [{"role": "ai", "tool_calls": [news]}, {"role": "ai", "tool_calls": [weather]}]
>>> evaluator(outputs=outputs, reference_outputs=references)["score"]
True
"""

from typing import TYPE_CHECKING, Any

from matchevals._any_of import AnyOf
from matchevals._peers import peer_getattr
from matchevals.trajectory._evaluators import (
    create_async_trajectory_match_evaluator,
    create_async_trajectory_rules_evaluator,
    create_trajectory_match_evaluator,
    create_trajectory_rules_evaluator,
)
from matchevals.trajectory._turn_step import TurnStep
from matchevals.trajectory._types import (
    Alignment,
    ArgsMatcher,
    ToolArgsMatchMode,
    ToolArgsOverride,
    TrajectoryMatchMode,
    TrajectoryScore,
    TurnMatchMode,
)

if TYPE_CHECKING:  # one class with graph references, imported on first use (import stays light)
    from matchevals.graph_trajectory import Repeat

__all__ = [
    "Alignment",
    "AnyOf",
    "ArgsMatcher",
    "Repeat",
    "ToolArgsMatchMode",
    "ToolArgsOverride",
    "TrajectoryMatchMode",
    "TrajectoryScore",
    "TurnMatchMode",
    "TurnStep",
    "create_async_trajectory_llm_as_judge",
    "create_async_trajectory_match_evaluator",
    "create_async_trajectory_rules_evaluator",
    "create_trajectory_llm_as_judge",
    "create_trajectory_match_evaluator",
    "create_trajectory_rules_evaluator",
]

for _public in (
    TurnStep,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    create_async_trajectory_rules_evaluator,
    create_trajectory_rules_evaluator,
):
    _public.__module__ = __name__  # they report where users import them from
del _public

__getattr__: Any = peer_getattr(
    __name__,
    {
        "create_trajectory_llm_as_judge": "matchevals.trajectory.llm",
        "create_async_trajectory_llm_as_judge": "matchevals.trajectory.llm",
        "Repeat": "matchevals.graph_trajectory",
    },
)
