"""Trajectories read from LangSmith runs, and the evaluator wrapper that reads them for
``langsmith.evaluate`` (the run is read by attribute: langsmith is never imported here).

>>> def evaluator(*, outputs, reference_outputs):
...     return {"key": "calls", "score": len(outputs["messages"])}
>>> wrapped = evaluate_run_trajectory(evaluator)
>>> wrapped.__name__
'evaluator'
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Literal

from matchevals.graph_trajectory._types import GraphRunTrajectory
from matchevals.traces._langsmith_runs import graph_runs, read_run, run_dict
from matchevals.traces._types import TraceError, TraceProblem

__all__ = [
    "evaluate_run_trajectory",
    "graph_runs_from_langsmith_run",
    "trajectory_from_langsmith_run",
]

RunSource = Literal["messages", "graph"]


def trajectory_from_langsmith_run(run: Any) -> list[dict[str, Any]]:
    """The agent's messages recorded in a LangSmith run tree (a ``Run``/``RunTree``, or a dict
    with ``child_runs``), as OpenAI-style message dicts; :class:`TraceError` when they cannot be
    read exactly.

    >>> trajectory_from_langsmith_run(run)  # doctest: +SKIP
    [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': '', 'tool_calls': ...}]
    """
    return read_run(run_dict(run)).checked()[0]["messages"]


def graph_runs_from_langsmith_run(run: Any) -> list[GraphRunTrajectory]:
    """The LangGraph invocations recorded in a LangSmith run tree, superstep by superstep (the
    conventions of :mod:`matchevals.graph_trajectory.langgraph`'s live capture).

    >>> graph_runs_from_langsmith_run(run)[0]["steps"]  # doctest: +SKIP
    [['agent'], ['tools', 'tools'], ['agent']]
    """
    tree = run_dict(run)
    found = graph_runs(tree)
    if not found:
        trace_id = str(tree.get("trace_id") or tree.get("id"))
        raise TraceError([TraceProblem(trace_id, None, None, "the run tree holds no LangGraph run (no graph:step tagged runs)")])  # fmt: skip # noqa: E501
    return found


def _outputs(run: Any, source: RunSource) -> Any:
    if source == "messages":
        return {"messages": trajectory_from_langsmith_run(run)}
    found = graph_runs_from_langsmith_run(run)
    return found[0] if len(found) == 1 else found


def _reference(reference_outputs: Any, key: str | None) -> Any:
    if key is None:
        return reference_outputs
    if not isinstance(reference_outputs, dict) or key not in reference_outputs:
        keys = sorted(reference_outputs) if isinstance(reference_outputs, dict) else []
        raise ValueError(f"reference_outputs has no key {key!r} (keys: {keys})")
    return reference_outputs[key]


def evaluate_run_trajectory(
    evaluator: Callable[..., Any],
    *,
    source: RunSource = "messages",
    reference_key: str | None = None,
) -> Callable[..., Any]:
    """A ``langsmith.evaluate`` evaluator that reads the trajectory from the target's run tree
    and hands it to ``evaluator`` as ``outputs``, so the target need not return it.

    ``source="messages"``: ``outputs`` is ``{"messages": [...]}`` (for the trajectory
    evaluators); ``"graph"``: the LangGraph run (a list when the target ran the graph more than
    once). ``reference_outputs`` is the example's outputs, or its ``reference_key`` entry.
    An async ``evaluator`` gives an async wrapper (for ``langsmith.aevaluate``).

    >>> from matchevals.trajectory import create_trajectory_match_evaluator
    >>> evaluator = evaluate_run_trajectory(
    ...     create_trajectory_match_evaluator(trajectory_match_mode="superset"),
    ...     reference_key="trajectory")
    >>> langsmith.evaluate(target, data=examples, evaluators=[evaluator])  # doctest: +SKIP
    """
    if source not in ("messages", "graph"):
        raise ValueError(f"source is {source!r}; expected 'messages' or 'graph'")
    if reference_key is not None and not isinstance(reference_key, str):
        raise TypeError(f"reference_key is {type(reference_key).__name__}; expected a str")
    name = getattr(evaluator, "__name__", None) or "run_trajectory"
    if inspect.iscoroutinefunction(evaluator):
        wrapper: Callable[..., Any] = functools.partial(
            _aevaluate, evaluator, source, reference_key
        )
    else:
        wrapper = functools.partial(_evaluate, evaluator, source, reference_key)
    vars(wrapper)["__name__"] = name
    vars(wrapper)["__signature__"] = _SIGNATURE
    return wrapper


def _evaluate(
    evaluator: Callable[..., Any],
    source: RunSource,
    key: str | None,
    *,
    run: Any,
    reference_outputs: Any = None,
    **kwargs: Any,
) -> Any:
    return evaluator(outputs=_outputs(run, source), reference_outputs=_reference(reference_outputs, key))  # fmt: skip # noqa: E501


async def _aevaluate(
    evaluator: Callable[..., Any],
    source: RunSource,
    key: str | None,
    *,
    run: Any,
    reference_outputs: Any = None,
    **kwargs: Any,
) -> Any:
    return await evaluator(outputs=_outputs(run, source), reference_outputs=_reference(reference_outputs, key))  # fmt: skip # noqa: E501


_SIGNATURE = inspect.Signature(
    [
        inspect.Parameter("run", inspect.Parameter.KEYWORD_ONLY),
        inspect.Parameter("reference_outputs", inspect.Parameter.KEYWORD_ONLY, default=None),
    ]
)
