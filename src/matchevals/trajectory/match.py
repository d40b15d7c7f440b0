"""The module path openevals and agentevals use: ``from matchevals.trajectory.match import
create_trajectory_match_evaluator`` works as ``from openevals.trajectory.match import ...``.

>>> from matchevals.trajectory.match import create_trajectory_match_evaluator
>>> create_trajectory_match_evaluator()(outputs=[], reference_outputs=[])["score"]
True
"""

from typing import Any

from matchevals._peers import peer_getattr
from matchevals.trajectory._deprecated import (
    trajectory_strict_scorer,
    trajectory_subset_scorer,
    trajectory_superset_scorer,
    trajectory_unordered_scorer,
)
from matchevals.trajectory._evaluators import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from matchevals.trajectory._types import (
    ToolArgsMatchMode,
    ToolArgsOverride,
    TrajectoryMatchMode,
)

__all__ = [  # noqa: F822 - the peers' types load on first use (module __getattr__)
    "ChatCompletionMessage",
    "SimpleAsyncEvaluator",
    "SimpleEvaluator",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "ToolArgsOverride",
    "TrajectoryMatchMode",
    "create_async_trajectory_match_evaluator",
    "create_trajectory_match_evaluator",
    "trajectory_strict_scorer",
    "trajectory_subset_scorer",
    "trajectory_superset_scorer",
    "trajectory_unordered_scorer",
]

__getattr__: Any = peer_getattr(
    __name__,
    {
        "ChatCompletionMessage": "openevals.types",
        "SimpleAsyncEvaluator": "openevals.types",
        "SimpleEvaluator": "openevals.types",
        "ToolArgsMatchOverrides": "openevals.types",
    },
)
