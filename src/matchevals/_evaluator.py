"""The one place that touches LangSmith: traced runs and pytest feedback.

Every matchevals evaluator hands its pure computation to an :class:`EvaluatorRun`, built once
per evaluator. When tracing is off and no ``@pytest.mark.langsmith`` test is active, the
computation is called directly: no ``traceable`` wrapper, no run tree, no feedback. Otherwise it
runs inside a ``traceable`` wrapper created once at construction (never per call or per key), and
inside a LangSmith pytest test each result is also logged as feedback, as openevals does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any, TypedDict, TypeVar

from langsmith import testing as ls_testing
from langsmith import traceable
from langsmith.testing._internal import _TEST_CASE
from langsmith.utils import get_env_var, tracing_is_enabled
from typing_extensions import NotRequired

_ls_context: ModuleType | None
try:  # Reading the context variables directly saves ~2 µs per call over tracing_is_enabled().
    from langsmith._internal import _context as _ls_context

    _TRACING_ENABLED_VAR = getattr(_ls_context, "_TRACING_ENABLED")  # noqa: B009
    _PARENT_RUN_TREE_REF = getattr(_ls_context, "_PARENT_RUN_TREE_REF")  # noqa: B009
except (ImportError, AttributeError):  # pragma: no cover - depends on the langsmith version
    _ls_context = None

__all__ = ["AsyncEvaluator", "Evaluator", "EvaluatorResult", "EvaluatorRun", "langsmith_active"]


class EvaluatorResult(TypedDict):
    """One piece of feedback, shaped as openevals and LangSmith expect it."""

    key: str
    score: float | bool
    comment: str | None
    metadata: dict[str, Any] | None
    source_run_id: NotRequired[str | None]


Evaluator = Callable[..., list[EvaluatorResult]]
"""Called with keyword arguments ``outputs=``, ``reference_outputs=`` (and any others)."""
AsyncEvaluator = Callable[..., Awaitable[list[EvaluatorResult]]]

Result = TypeVar("Result")
FRAMEWORK = "matchevals"


def _tracing_active() -> bool:
    """The same decision as ``langsmith.utils.tracing_is_enabled``, in a fraction of its time."""
    if _ls_context is None:  # pragma: no cover - fallback for an unknown langsmith layout
        return bool(tracing_is_enabled())
    enabled = _TRACING_ENABLED_VAR.get()
    if enabled is not None:
        return bool(enabled)
    run_tree_ref = _PARENT_RUN_TREE_REF.get()  # get_current_run_tree(), without the call
    if run_tree_ref is not None and run_tree_ref() is not None:
        return True
    global_enabled = _ls_context._GLOBAL_TRACING_ENABLED
    if global_enabled is not None:
        return bool(global_enabled)
    from_env = get_env_var("TRACING_V2")  # positional: langsmith's cached lookup, cheapest form
    return (from_env if from_env is not None else get_env_var("TRACING")) == "true"


def langsmith_active() -> bool:
    """Whether a call must go through :meth:`EvaluatorRun.call` (tracing on, or inside a
    ``@pytest.mark.langsmith`` test); when False, evaluators may compute directly.

    >>> import langsmith
    >>> with langsmith.tracing_context(enabled=True):
    ...     langsmith_active()
    True
    """
    return _TEST_CASE.get() is not None or _tracing_active()


def _drop_compute(inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in inputs.items() if name != "compute"}


def _call(compute: Callable[[], Result], **_traced_inputs: Any) -> Result:
    return compute()


async def _acall(compute: Callable[[], Awaitable[Result]], **_traced_inputs: Any) -> Result:
    return await compute()


def _results_as_list(results: Any) -> list[Mapping[str, Any]]:
    return list(results) if isinstance(results, list) else [results]


class EvaluatorRun:
    """Runs an evaluator's computation as LangSmith expects, paying for tracing only when on.

    >>> run = EvaluatorRun("my_evaluator")
    >>> run.call(lambda: {"key": "k", "score": 1}, outputs={}, reference_outputs={})
    {'key': 'k', 'score': 1}
    """

    def __init__(self, run_name: str) -> None:
        self.run_name = run_name
        metadata = {"__ls_framework": FRAMEWORK, "__ls_evaluator": run_name}
        self._traced: Callable[..., Any] = traceable(
            name=run_name, metadata=metadata, process_inputs=_drop_compute
        )(_call)
        self._atraced: Callable[..., Any] = traceable(
            name=run_name, metadata=metadata, process_inputs=_drop_compute
        )(_acall)

    def __reduce__(self) -> tuple[type[EvaluatorRun], tuple[str]]:
        return (EvaluatorRun, (self.run_name,))

    def call(self, compute: Callable[[], Result], **traced_inputs: Any) -> Result:
        """Return ``compute()``, traced and logged as feedback when LangSmith asks for it."""
        if _TEST_CASE.get() is not None:
            with ls_testing.trace_feedback(name=self.run_name):
                results: Result = self._traced(compute, **traced_inputs)
                self._log_feedback(results)
            return results
        if _tracing_active():
            traced: Result = self._traced(compute, **traced_inputs)
            return traced
        return compute()

    async def acall(self, compute: Callable[[], Awaitable[Result]], **traced_inputs: Any) -> Result:
        """The async twin of :meth:`call`: the same decisions, awaiting ``compute()``."""
        if _TEST_CASE.get() is not None:
            with ls_testing.trace_feedback(name=self.run_name):
                results: Result = await self._atraced(compute, **traced_inputs)
                self._log_feedback(results)
            return results
        if _tracing_active():
            traced: Result = await self._atraced(compute, **traced_inputs)
            return traced
        return await compute()

    @staticmethod
    def _log_feedback(results: Any) -> None:
        for result in _results_as_list(results):
            ls_testing.log_feedback(
                key=result["key"], score=result["score"], comment=result.get("comment")
            )
