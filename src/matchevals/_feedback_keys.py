"""Feedback keys: the name LangSmith files a score under, checked once, applied at the edge.

A graded score (a fraction) never shares a default key with a boolean one, so one LangSmith
feedback key never mixes booleans and fractions across experiments; ``feedback_key=`` chooses
the key (for json_match, the prefix of its keys).

>>> graded_key("trajectory_unordered_match", "f1")
'trajectory_unordered_match_f1'
>>> results = [{"key": "json_match:total", "score": 1, "comment": None, "metadata": None}]
>>> renamed(results, "json_match", "invoice")[0]["key"]
'invoice:total'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

__all__ = ["check_feedback_key", "graded_key", "renamed", "renaming"]

_R = TypeVar("_R")


def check_feedback_key(value: Any, default: str | None = None) -> str:
    """``value`` when it is a usable key (a non-empty string without surrounding spaces);
    ``default`` when ``value`` is None (the caller's peer default)."""
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise TypeError(f"feedback_key must be a str; got {type(value).__name__}")
    if not value.strip() or value != value.strip():
        raise ValueError(
            f"feedback_key must be a non-empty name without surrounding spaces; got {value!r}"
        )
    return value


def graded_key(boolean_key: str, grade: str) -> str:
    """The default key of a graded score: the boolean evaluator's key and the grade."""
    return f"{boolean_key}_{grade}"


def renamed(results: _R, default_prefix: str, prefix: str) -> _R:
    """``results`` (one result dict or a list of them, fresh from an evaluator) with the
    ``default_prefix`` of their keys replaced by ``prefix``; unchanged when they are equal."""
    if prefix == default_prefix:
        return results
    start = len(default_prefix)
    for result in results if isinstance(results, list) else [results]:
        key = result["key"]  # type: ignore[index]
        if key.startswith(default_prefix):
            result["key"] = prefix + key[start:]  # type: ignore[index]
    return results


def renaming(
    compute: Callable[..., Any], default_prefix: str, prefix: str, *, asynchronous: bool = False
) -> Callable[..., Any]:
    """``compute`` (a sync or async function of the evaluator's arguments) with the
    ``default_prefix`` of its results' keys replaced by ``prefix``; ``compute`` itself when they
    are equal. A partial of module-level functions, so it pickles when ``compute`` does.

    >>> results = lambda outputs, reference_outputs: [{"key": "json_match:a", "score": 1}]
    >>> renaming(results, "json_match", "invoice")(1, 1)[0]["key"]
    'invoice:a'
    """
    if prefix == default_prefix:
        return compute
    return partial(_arenamed if asynchronous else _renamed, compute, default_prefix, prefix)


def _renamed(compute: Callable[..., Any], default_prefix: str, prefix: str, *args: Any) -> Any:
    return renamed(compute(*args), default_prefix, prefix)


async def _arenamed(
    compute: Callable[..., Awaitable[Any]], default_prefix: str, prefix: str, *args: Any
) -> Any:
    return renamed(await compute(*args), default_prefix, prefix)
