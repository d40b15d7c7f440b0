"""The peers' older trajectory names: deprecated functions and the bare scorers.

openevals and agentevals still export ``trajectory_strict_match``, ``trajectory_unordered_match``,
``trajectory_subset`` and ``trajectory_superset`` (each with an ``_async`` twin; all but the
strict one ignore tool arguments, and the last two report under ``trajectory_subset`` and
``trajectory_superset``), and their ``match`` modules export the four mode scorers returning a
bool. Here they score with matchevals' matching (a maximum pairing, failures explained) under
the same names, keys and defaults, and warn as the peers do.

>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     trajectory_subset(outputs=[], reference_outputs=[])["key"]
'trajectory_subset'
"""

from __future__ import annotations

import warnings
from typing import Any

from matchevals._types import EvaluatorResult
from matchevals.trajectory._evaluators import create_trajectory_match_evaluator

__all__ = [
    "trajectory_strict_match",
    "trajectory_strict_match_async",
    "trajectory_strict_scorer",
    "trajectory_subset",
    "trajectory_subset_async",
    "trajectory_subset_scorer",
    "trajectory_superset",
    "trajectory_superset_async",
    "trajectory_superset_scorer",
    "trajectory_unordered_match",
    "trajectory_unordered_match_async",
    "trajectory_unordered_scorer",
]


def _warn(name: str, mode: str) -> None:
    warnings.warn(
        f"{name}() is deprecated. Use create_trajectory_match_evaluator("
        f"trajectory_match_mode={mode!r}) instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def _score(mode: str, key: str, args_mode: str, outputs: Any, reference_outputs: Any, overrides: Any = None) -> EvaluatorResult:  # fmt: skip # noqa: E501
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode=mode,  # type: ignore[arg-type]
        tool_args_match_mode=args_mode,  # type: ignore[arg-type]
        tool_args_match_overrides=overrides,
        feedback_key=key,
    )
    return evaluator(outputs=outputs, reference_outputs=reference_outputs)


def trajectory_strict_match(
    *, outputs: Any, reference_outputs: Any, tool_call_args_exact_match: bool = True, **kwargs: Any
) -> EvaluatorResult:
    """Deprecated: ``create_trajectory_match_evaluator(trajectory_match_mode="strict")``."""
    _warn("trajectory_strict_match", "strict")
    args_mode = "exact" if tool_call_args_exact_match else "ignore"
    return _score("strict", "trajectory_strict_match", args_mode, outputs, reference_outputs)


async def trajectory_strict_match_async(
    *, outputs: Any, reference_outputs: Any, tool_call_args_exact_match: bool = True, **kwargs: Any
) -> EvaluatorResult:
    """Deprecated async twin of :func:`trajectory_strict_match`."""
    _warn("trajectory_strict_match_async", "strict")
    args_mode = "exact" if tool_call_args_exact_match else "ignore"
    return _score("strict", "trajectory_strict_match", args_mode, outputs, reference_outputs)


def trajectory_unordered_match(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    """Deprecated (tool arguments ignored): use ``trajectory_match_mode="unordered"``."""
    _warn("trajectory_unordered_match", "unordered")
    return _score("unordered", "trajectory_unordered_match", "ignore", outputs, reference_outputs)


async def trajectory_unordered_match_async(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    """Deprecated async twin of :func:`trajectory_unordered_match`."""
    _warn("trajectory_unordered_match_async", "unordered")
    return _score("unordered", "trajectory_unordered_match", "ignore", outputs, reference_outputs)


def trajectory_subset(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:
    """Deprecated (tool arguments ignored): use ``trajectory_match_mode="subset"``."""
    _warn("trajectory_subset", "subset")
    return _score("subset", "trajectory_subset", "ignore", outputs, reference_outputs)


async def trajectory_subset_async(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    """Deprecated async twin of :func:`trajectory_subset`."""
    _warn("trajectory_subset_async", "subset")
    return _score("subset", "trajectory_subset", "ignore", outputs, reference_outputs)


def trajectory_superset(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:
    """Deprecated (tool arguments ignored): use ``trajectory_match_mode="superset"``."""
    _warn("trajectory_superset", "superset")
    return _score("superset", "trajectory_superset", "ignore", outputs, reference_outputs)


async def trajectory_superset_async(*, outputs: Any, reference_outputs: Any, **kwargs: Any) -> EvaluatorResult:  # fmt: skip # noqa: E501
    """Deprecated async twin of :func:`trajectory_superset`."""
    _warn("trajectory_superset_async", "superset")
    return _score("superset", "trajectory_superset", "ignore", outputs, reference_outputs)


def _scorer(mode: str, outputs: Any, reference_outputs: Any, args_mode: Any, overrides: Any) -> bool:  # fmt: skip # noqa: E501
    result = _score(mode, f"trajectory_{mode}_match", args_mode, outputs, reference_outputs, overrides)  # fmt: skip # noqa: E501
    return bool(result["score"])


def trajectory_strict_scorer(*, outputs: Any, reference_outputs: Any, tool_args_match_mode: Any, tool_args_match_overrides: Any = None, **kwargs: Any) -> bool:  # fmt: skip # noqa: E501
    """Whether the trajectories match in strict mode (the bare answer, no result dict)."""
    return _scorer("strict", outputs, reference_outputs, tool_args_match_mode, tool_args_match_overrides)  # fmt: skip # noqa: E501


def trajectory_unordered_scorer(*, outputs: Any, reference_outputs: Any, tool_args_match_mode: Any, tool_args_match_overrides: Any = None, **kwargs: Any) -> bool:  # fmt: skip # noqa: E501
    """Whether the trajectories match in unordered mode."""
    return _scorer("unordered", outputs, reference_outputs, tool_args_match_mode, tool_args_match_overrides)  # fmt: skip # noqa: E501


def trajectory_subset_scorer(*, outputs: Any, reference_outputs: Any, tool_args_match_mode: Any, tool_args_match_overrides: Any = None, **kwargs: Any) -> bool:  # fmt: skip # noqa: E501
    """Whether the trajectories match in subset mode."""
    return _scorer("subset", outputs, reference_outputs, tool_args_match_mode, tool_args_match_overrides)  # fmt: skip # noqa: E501


def trajectory_superset_scorer(*, outputs: Any, reference_outputs: Any, tool_args_match_mode: Any, tool_args_match_overrides: Any = None, **kwargs: Any) -> bool:  # fmt: skip # noqa: E501
    """Whether the trajectories match in superset mode."""
    return _scorer("superset", outputs, reference_outputs, tool_args_match_mode, tool_args_match_overrides)  # fmt: skip # noqa: E501
