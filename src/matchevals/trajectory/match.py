"""The module path openevals and agentevals use: ``from matchevals.trajectory.match import
create_trajectory_match_evaluator`` works as ``from openevals.trajectory.match import ...``.

>>> from matchevals.trajectory.match import create_trajectory_match_evaluator
>>> create_trajectory_match_evaluator()(outputs=[], reference_outputs=[])["score"]
True
"""

from matchevals.trajectory._evaluators import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from matchevals.trajectory._types import (
    ToolArgsMatchMode,
    ToolArgsOverride,
    TrajectoryMatchMode,
)

__all__ = [
    "ToolArgsMatchMode",
    "ToolArgsOverride",
    "TrajectoryMatchMode",
    "create_async_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
]
