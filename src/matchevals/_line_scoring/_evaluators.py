"""The evaluator a kind of file is scored with: ``json``, ``trajectory`` or ``graph``.

A trajectory is itself a list, so a trajectory example that is one message (a JSONL file
written one message per line) is refused, never scored as a trajectory of one message.

>>> evaluator = build_evaluator("json", {"aggregator": "average"})
>>> evaluator(outputs={"a": 1}, reference_outputs={"a": 2})[0]["comment"]
'a: expected 2, got 1'
>>> evaluate = build_evaluator("trajectory", {"trajectory_match_mode": "unordered"})
>>> evaluate(outputs=[], reference_outputs={"messages": []})["score"]
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from matchevals.report._summary import Kind

__all__ = ["Kind", "build_evaluator", "is_message"]


def build_evaluator(kind: Kind, options: dict[str, Any]) -> Callable[..., Any]:
    """The evaluator a command scores with (raises the factory's ValueError/TypeError)."""
    if kind == "json":
        from matchevals.json_match import create_json_match_evaluator

        return create_json_match_evaluator(**options)
    if kind == "trajectory":
        from matchevals.trajectory import create_trajectory_match_evaluator

        return partial(_trajectory_evaluate, create_trajectory_match_evaluator(**options))
    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

    return create_graph_trajectory_match_evaluator(**options)


def is_message(value: Any) -> bool:
    """Whether ``value`` is one message (not a trajectory, nor a state holding ``messages``)."""
    return (
        isinstance(value, Mapping)
        and "messages" not in value
        and ("role" in value or "type" in value)
    )


def _refuse_one_message(value: Any, side: str) -> None:
    if is_message(value):
        raise ValueError(
            f"{side} is one message, not a trajectory; each example is a list of messages or "
            '{"messages": [...]} (one trajectory per line of a JSONL file)'
        )


def _trajectory_evaluate(
    evaluator: Callable[..., Any], *, outputs: Any, reference_outputs: Any, **kwargs: Any
) -> Any:
    _refuse_one_message(outputs, "outputs")
    _refuse_one_message(reference_outputs, "reference_outputs")
    return evaluator(outputs=outputs, reference_outputs=reference_outputs, **kwargs)
