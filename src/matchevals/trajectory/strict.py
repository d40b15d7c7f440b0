"""The peers' ``trajectory.strict`` module path: ``trajectory_strict_match``
and its async twin (deprecated there and here: use
``create_trajectory_match_evaluator(trajectory_match_mode="strict")``).

The functions score with matchevals' matching; the types are openevals', loaded on first use.
"""

from typing import Any

from matchevals._peers import peer_getattr
from matchevals.trajectory._deprecated import trajectory_strict_match, trajectory_strict_match_async
from matchevals.trajectory._types import ToolArgsMatchMode

__all__ = [  # noqa: F822 - the peers' types load on first use (module __getattr__)
    "ChatCompletionMessage",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "trajectory_strict_match",
    "trajectory_strict_match_async",
]

__getattr__: Any = peer_getattr(
    __name__,
    {"ChatCompletionMessage": "openevals.types", "ToolArgsMatchOverrides": "openevals.types"},
)
