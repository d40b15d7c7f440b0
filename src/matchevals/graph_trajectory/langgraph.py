"""Capture superstep trajectories (:class:`GraphRunTrajectory`) from real LangGraph runs.

Needs the ``langgraph`` extra: ``pip install "matchevals[langgraph]"``.

>>> from matchevals.graph_trajectory.langgraph import record_graph_run
>>> result, run = record_graph_run(graph, {"question": "hi"})  # doctest: +SKIP
>>> run["steps"]  # doctest: +SKIP
[['a'], ['b', 'c'], ['d']]

Three ways in, one set of conventions:

* :func:`record_graph_run` / :func:`arecord_graph_run` run a compiled graph once and return its
  result and trajectory (no checkpointer needed).
* :func:`capture_graph_runs` records every top-level graph invocation made inside it, by any code
  (an unmodified ``graph.invoke`` in a ``langsmith.evaluate`` target, say). Use it as ``with`` or
  ``async with``.
* :func:`extract_graph_run_trajectories` / :func:`aextract_graph_run_trajectories` rebuild the
  invocations of a thread that already ran from its checkpoint history; tag each call with
  :func:`tag_invocation` for exact boundaries.

:func:`to_agentevals_trajectory` converts runs to agentevals' flat thread trajectory (also in
:mod:`matchevals.graph_trajectory`); :mod:`matchevals.graph_trajectory.utils` reads a thread exactly
as agentevals does.

Conventions
-----------
* ``steps``: the outer list holds the supersteps of this invocation, in order; each inner list the
  names of the nodes that ran in it, sorted, duplicates kept (``Send`` fan-out gives
  ``["worker", "worker", "worker"]``).
* ``__start__`` and other hidden nodes (tagged ``langsmith:hidden``) are dropped.
* Subgraph nodes are namespaced ``parent:child`` (``mid:inner:x`` when nested) and come in their own
  supersteps right after the parent superstep that ran the subgraph node, one subgraph run after
  the other (sorted by node name, then task path); this also holds for a subgraph invoked inside a
  node function.
* An interrupted or failed node counts in the superstep where it ran (a subgraph node stopped
  by a breakpoint, interrupt or failure inside it too). A resume (``Command(resume=...)``, or
  ``None`` after a breakpoint or failure) is its own invocation, starting with the superstep
  that re-runs the interrupted or failed tasks. Retries (``RetryPolicy``) add no superstep and no
  duplicate.
* ``inputs`` is what the invocation was called with (a mapping as a dict, a Pydantic model dumped,
  anything else as ``{"input": value}``; ``None`` for a ``Command`` such as a resume, or a ``None``
  input). ``results`` is the final state, with ``"__interrupt__": [values]`` (the interrupt
  values, not ``Interrupt`` objects, in node-name order) when nodes called ``interrupt()`` (a
  static breakpoint adds no key), and ``None`` when the run raised.
* A failed run: the recorder returns ``(None, trajectory)`` with the supersteps up to the failure;
  it re-raises only with ``raise_on_error=True`` (the trajectory rides on the exception as
  ``graph_run_trajectory``). Cancellation and ``KeyboardInterrupt`` always propagate, carrying
  the trajectory the same way. ``capture_graph_runs`` records the failed run and lets the exception
  propagate as usual.

How: a LangChain callback handler follows each graph's runs (tasks carry a ``graph:step:N`` tag
and ``langgraph_*`` metadata) and rebuilds the run tree, so no checkpointer and no change to the
graph are needed; it costs about 5-10% of a plain ``invoke`` of a small graph.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import uuid
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

try:
    import langgraph.errors  # noqa: F401 - fail early with the way to install the extra
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'matchevals.graph_trajectory.langgraph needs LangGraph: pip install "matchevals[langgraph]"'
    ) from exc

from langchain_core.runnables import RunnableConfig

from matchevals.graph_trajectory._agentevals import to_agentevals_trajectory  # noqa: F401 - as before
from matchevals.graph_trajectory._callbacks import CaptureHandler, active_handler, ensure_hook
from matchevals.graph_trajectory._checkpoints import (
    INVOCATION_MARKER_KEY,
    aextract_graph_run_trajectories,
    extract_graph_run_trajectories,
    tag_invocation,
)
from matchevals.graph_trajectory._conventions import normalize_inputs, normalize_results
from matchevals.graph_trajectory._live import Invocation
from matchevals.graph_trajectory._signals import is_resume
from matchevals.graph_trajectory._types import GraphRunTrajectory

if TYPE_CHECKING:
    from uuid import UUID

    from langgraph.pregel import Pregel

    CompiledGraph = Pregel[Any, Any, Any, Any]

__all__ = [
    "INVOCATION_MARKER_KEY",
    "GraphRunCapture",
    "aextract_graph_run_trajectories",
    "arecord_graph_run",
    "async_graph_target",
    "capture_graph_runs",
    "extract_graph_run_trajectories",
    "graph_target",
    "record_graph_run",
    "tag_invocation",
]
# to_agentevals_trajectory is importable from here as before; it is pure, and reports
# matchevals.graph_trajectory, its public home.

for _public in (
    aextract_graph_run_trajectories,
    extract_graph_run_trajectories,
    tag_invocation,
):
    _public.__module__ = __name__  # they report where users import them from
del _public


class GraphRunCapture:
    """Records the top-level graph invocations made while active; see :func:`capture_graph_runs`.

    ``trajectories`` lists the finished ones in the order they started.

    >>> with capture_graph_runs() as captured:
    ...     pass  # run graphs here, e.g. graph.invoke({...})
    >>> captured.trajectories
    []
    """

    def __init__(self) -> None:
        self._invocations: list[Invocation] = []
        self._seen: set[UUID] = set()
        self._lock = threading.Lock()
        self._handler: CaptureHandler | None = None
        self._token: contextvars.Token[CaptureHandler | None] | None = None

    @property
    def trajectories(self) -> list[GraphRunTrajectory]:
        """Trajectories of the finished invocations, oldest first (fresh copies)."""
        with self._lock:
            invocations = list(self._invocations)
        return [inv.trajectory() for inv in invocations if inv.done]

    def _offer(self, invocation: Invocation) -> None:
        handler = self._handler
        if handler is not None and handler.tree.tracks_nested(invocation.run_id):
            return  # a graph called inside a node this capture already follows
        with self._lock:
            if invocation.run_id not in self._seen:
                self._seen.add(invocation.run_id)
                self._invocations.append(invocation)

    def _first(self) -> Invocation | None:
        with self._lock:
            return self._invocations[0] if self._invocations else None

    def __enter__(self) -> GraphRunCapture:
        if self._token is not None:
            raise RuntimeError("this capture is already active")
        ensure_hook()
        outer = active_handler.get()
        self._handler = CaptureHandler((*(outer.sinks if outer else ()), self))
        self._token = active_handler.set(self._handler)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            active_handler.reset(self._token)
            self._token = None

    async def __aenter__(self) -> GraphRunCapture:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)


def capture_graph_runs() -> GraphRunCapture:
    """Record every top-level LangGraph invocation made inside the block, by any code.

    >>> with capture_graph_runs() as captured:  # doctest: +SKIP
    ...     graph.invoke({"question": "hi"})
    >>> captured.trajectories[0]["steps"]  # doctest: +SKIP
    [['a'], ['b', 'c'], ['d']]

    Works as ``with`` and ``async with``. It hooks LangChain's callback configuration through a
    context variable, so it follows the context: calls in ``asyncio`` tasks and in threads started
    with a copied context (LangChain's and LangSmith's executors do) are seen; a bare
    ``threading.Thread`` is not. Concurrent captures in different tasks or threads see only their
    own calls. Nested captures both record a call made in the inner block; a capture entered inside
    a graph node records that node's graph calls as top-level, while an outer capture sees them as
    part of the outer run. Nothing stays active after the block: the hook LangChain keeps is inert
    when no capture is active. An invocation that runs no node at all is recorded only where
    LangGraph marks its graph runs (``ls_integration`` metadata: 1.2 does, 1.0 does not).
    """
    return GraphRunCapture()


def _fallback(input: Any, result: Any, failed: bool) -> GraphRunTrajectory:
    return {
        "inputs": normalize_inputs(input, is_resume=is_resume),
        "results": None if failed else normalize_results(result, []),
        "steps": [],
    }


def _trajectory(
    capture: GraphRunCapture, input: Any, result: Any, failed: bool
) -> GraphRunTrajectory:
    invocation = capture._first()
    return invocation.trajectory() if invocation is not None else _fallback(input, result, failed)


def _attach(error: BaseException, trajectory: GraphRunTrajectory) -> None:
    with contextlib.suppress(AttributeError):  # exceptions with __slots__
        error.graph_run_trajectory = trajectory  # type: ignore[attr-defined]


def _finish(
    capture: GraphRunCapture, input: Any, result: Any, error: Exception | None, raise_on_error: bool
) -> tuple[Any, GraphRunTrajectory]:
    trajectory = _trajectory(capture, input, result, error is not None)
    if error is not None:
        if raise_on_error:
            _attach(error, trajectory)
            raise error
        return None, trajectory
    return result, trajectory


def record_graph_run(
    graph: CompiledGraph,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    raise_on_error: bool = False,
    **invoke_kwargs: Any,
) -> tuple[Any, GraphRunTrajectory]:
    """Invoke ``graph`` once; return its result and the trajectory of that invocation.

    >>> result, run = record_graph_run(graph, {"question": "hi"})  # doctest: +SKIP
    >>> run["steps"]  # doctest: +SKIP
    [['a'], ['b', 'c'], ['d']]

    ``invoke_kwargs`` (``interrupt_before``, ``durability``, ``context``, ...) go to
    ``graph.invoke``. When the run raises an ``Exception``, the result is ``None`` and the
    trajectory holds the supersteps up to the failure (``results`` is ``None``); with
    ``raise_on_error=True`` the exception is re-raised instead, carrying that trajectory as its
    ``graph_run_trajectory`` attribute. ``BaseException``s (``KeyboardInterrupt``, cancellation)
    always propagate, carrying the trajectory up to that point as ``graph_run_trajectory`` too.
    """
    with GraphRunCapture() as capture:
        try:
            result = graph.invoke(input, config, **invoke_kwargs)
        except Exception as error:
            return _finish(capture, input, None, error, raise_on_error)
        except BaseException as error:  # KeyboardInterrupt and the like: propagate with what ran
            _attach(error, _trajectory(capture, input, None, True))
            raise
    return _finish(capture, input, result, None, raise_on_error)


async def arecord_graph_run(
    graph: CompiledGraph,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    raise_on_error: bool = False,
    **invoke_kwargs: Any,
) -> tuple[Any, GraphRunTrajectory]:
    """Async :func:`record_graph_run` (uses ``graph.ainvoke``).

    >>> result, run = await arecord_graph_run(graph, {"question": "hi"})  # doctest: +SKIP
    """
    async with GraphRunCapture() as capture:
        try:
            result = await graph.ainvoke(input, config, **invoke_kwargs)
        except Exception as error:
            return _finish(capture, input, None, error, raise_on_error)
        except BaseException as error:  # cancellation and the like: propagate with what ran
            _attach(error, _trajectory(capture, input, None, True))
            raise
    return _finish(capture, input, result, None, raise_on_error)


# --------------------------------------------------------------------------------------------
# LangSmith targets
# --------------------------------------------------------------------------------------------


def _target_config(
    config: RunnableConfig | Callable[[dict[str, Any]], RunnableConfig] | None,
    inputs: dict[str, Any],
    graph: CompiledGraph,
) -> RunnableConfig | None:
    if callable(config):
        return config(inputs)
    if config is None and getattr(graph, "checkpointer", None):
        return {"configurable": {"thread_id": uuid.uuid4().hex}}  # one fresh thread per example
    return config


def _target_outputs(
    run: GraphRunTrajectory, result: Any, results: Callable[[Any], Any] | None
) -> GraphRunTrajectory:
    if results is not None and result is not None:
        return {"inputs": run["inputs"], "results": results(result), "steps": run["steps"]}
    return run


def _untraced(trace: bool) -> contextlib.AbstractContextManager[Any]:
    if trace:
        return contextlib.nullcontext()
    from langsmith import tracing_context

    return tracing_context(enabled=False)


def graph_target(
    graph: CompiledGraph,
    *,
    config: RunnableConfig | Callable[[dict[str, Any]], RunnableConfig] | None = None,
    results: Callable[[Any], Any] | None = None,
    trace: bool = True,
) -> Callable[[dict[str, Any]], GraphRunTrajectory]:
    """A ``langsmith.evaluate`` target that runs ``graph`` on each example's inputs and returns
    that run's trajectory, so evaluators get it as ``outputs`` (no search by inputs, which
    breaks when two examples share inputs).

    >>> target = graph_target(graph)  # doctest: +SKIP
    >>> langsmith.evaluate(target, data=dataset, evaluators=[graph_trajectory_match])
    ... # doctest: +SKIP

    ``outputs`` is ``{"inputs", "results", "steps"}``: ``results`` is the final state, or
    ``results(state)`` when given (``None`` when the run failed). ``config`` is a config, or a
    function of the example's inputs returning one; a graph with a checkpointer and no config
    runs each example on a new thread. ``trace=False`` keeps the graph's own runs out of
    LangSmith (the target run is still traced by ``evaluate``); use it offline
    (``upload_results=False`` with no LangSmith service), where langchain-core would otherwise
    keep retrying to upload them.
    """

    def target(inputs: dict[str, Any]) -> GraphRunTrajectory:
        with _untraced(trace):
            result, run = record_graph_run(graph, inputs, _target_config(config, inputs, graph))
        return _target_outputs(run, result, results)

    target.__name__ = f"{getattr(graph, 'name', None) or 'graph'}_target"
    return target


def async_graph_target(
    graph: CompiledGraph,
    *,
    config: RunnableConfig | Callable[[dict[str, Any]], RunnableConfig] | None = None,
    results: Callable[[Any], Any] | None = None,
    trace: bool = True,
) -> Callable[[dict[str, Any]], Awaitable[GraphRunTrajectory]]:
    """The ``langsmith.aevaluate`` twin of :func:`graph_target` (the graph runs with
    ``ainvoke``).

    >>> target = async_graph_target(graph)  # doctest: +SKIP
    """

    async def target(inputs: dict[str, Any]) -> GraphRunTrajectory:
        with _untraced(trace):
            result, run = await arecord_graph_run(
                graph, inputs, _target_config(config, inputs, graph)
            )
        return _target_outputs(run, result, results)

    target.__name__ = f"{getattr(graph, 'name', None) or 'graph'}_target"
    return target
