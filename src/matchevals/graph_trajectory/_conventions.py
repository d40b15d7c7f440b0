"""The conventions live recording (``_live``) and history extraction (``_history``) share.

Nothing here imports LangGraph. Node names are joined with ``":"`` along the subgraph path
(``"mid:inner:x"``), names within a superstep are sorted with duplicates kept, hidden nodes
(tagged ``langsmith:hidden``, and ``__start__``) are dropped, and a subgraph's own supersteps
follow the parent superstep that ran it. Tasks are ordered by their LangGraph path
(:func:`path_key`); ``inputs`` and ``results`` are normalized the same way by both.

>>> path_key(("__pregel_push", 2)) < path_key(("__pregel_push", 10))
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["HIDDEN_TAG", "PathKey", "normalize_inputs", "normalize_results", "path_key"]

HIDDEN_TAG = "langsmith:hidden"

PathKey = tuple[tuple[int, int, str], ...]


def path_key(path: Any) -> PathKey:
    """A sortable key for a LangGraph task path (``('__pregel_push', 10, False)`` after ``2``)."""
    if not isinstance(path, (tuple, list)):
        path = (path,)
    return tuple(
        (0, p, "") if isinstance(p, int) and not isinstance(p, bool) else (1, 0, str(p))
        for p in path
    )


def normalize_inputs(value: Any, *, is_resume: Callable[[Any], bool]) -> dict[str, Any] | None:
    """``inputs`` of a trajectory: a mapping as a dict, ``None`` for a resume or no input."""
    if value is None or is_resume(value):
        return None
    return _as_dict(value, "input")


def normalize_results(value: Any, interrupts: Sequence[Any]) -> dict[str, Any]:
    """``results`` of a trajectory: the final state, plus ``"__interrupt__"`` when interrupted."""
    results = _as_dict(value, "output") if value is not None else {}
    if interrupts:
        results["__interrupt__"] = list(interrupts)
    return results


def _as_dict(value: Any, key: str) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        dumped = dump()
        if isinstance(dumped, dict):
            return dumped
    return {key: value}
