"""The one place that touches LangSmith: traced runs and pytest feedback.

Every matchevals evaluator hands its pure computation to an :class:`EvaluatorRun`, built once
per evaluator. When tracing is off and no ``@pytest.mark.langsmith`` test is active, the
computation is called directly: no ``traceable`` wrapper, no run tree, no feedback. Otherwise it
runs inside a ``traceable`` wrapper created once at construction (never per call or per key), and
inside a LangSmith pytest test each result is also logged as feedback, as openevals does.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypedDict, TypeVar

from langsmith import testing as ls_testing
from langsmith import traceable
from langsmith.utils import get_env_var, tracing_is_enabled
from typing_extensions import NotRequired

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


def tracing_check(context_module: str = "langsmith._internal._context") -> Callable[[], bool]:
    """A function deciding what ``langsmith.utils.tracing_is_enabled()`` decides, cheaply.

    The one use of a private langsmith name in matchevals, guarded: ``tracing_is_enabled()`` costs
    ~3 µs, more than a whole evaluator call on a small dict, while reading the context variables
    it reads costs ~0.3 µs. Those live in a private module; when it or its names are missing or
    not context variables (another langsmith layout), the public ``tracing_is_enabled`` is used.

    >>> tracing_check("no.such.module") is _public_tracing_check
    True
    """
    try:
        context = importlib.import_module(context_module)
        enabled_var = getattr(context, "_TRACING_ENABLED")  # noqa: B009
        parent_var = getattr(context, "_PARENT_RUN_TREE_REF")  # noqa: B009
        getattr(context, "_GLOBAL_TRACING_ENABLED")  # noqa: B009
        enabled_var.get(), parent_var.get()
    except (ImportError, AttributeError, TypeError, LookupError):
        return _public_tracing_check

    def check() -> bool:
        enabled = enabled_var.get()
        if enabled is not None:
            return bool(enabled)
        run_tree_ref = parent_var.get()  # get_current_run_tree(), without the call
        if run_tree_ref is not None and run_tree_ref() is not None:
            return True
        global_enabled = context._GLOBAL_TRACING_ENABLED
        if global_enabled is not None:
            return bool(global_enabled)
        from_env = get_env_var("TRACING_V2")  # positional: langsmith's cached lookup
        return (from_env if from_env is not None else get_env_var("TRACING")) == "true"

    return check


def _public_tracing_check() -> bool:
    return bool(tracing_is_enabled())


langsmith_active = tracing_check()
"""Whether a call must go through :meth:`EvaluatorRun.call` (tracing is on, which it also is
inside a tracked ``@pytest.mark.langsmith`` test); when False, evaluators may compute directly.

>>> import langsmith
>>> with langsmith.tracing_context(enabled=True):
...     langsmith_active()
True
"""


def _enter_test_feedback(scope: contextlib.ExitStack, name: str) -> bool:
    """Enter ``langsmith.testing.trace_feedback`` when inside a ``@pytest.mark.langsmith`` test.

    langsmith has no public "is a test running" check; ``trace_feedback`` refuses with a
    ValueError outside such a test, so that refusal is the answer (only asked while tracing).
    """
    try:
        scope.enter_context(ls_testing.trace_feedback(name=name))
    except ValueError:
        return False
    return True


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
        if not langsmith_active():
            return compute()
        with contextlib.ExitStack() as scope:
            in_test = _enter_test_feedback(scope, self.run_name)
            results: Result = self._traced(compute, **traced_inputs)
            if in_test:
                self._log_feedback(results)
        return results

    async def acall(self, compute: Callable[[], Awaitable[Result]], **traced_inputs: Any) -> Result:
        """The async twin of :meth:`call`: the same decisions, awaiting ``compute()``."""
        if not langsmith_active():
            return await compute()
        with contextlib.ExitStack() as scope:
            in_test = _enter_test_feedback(scope, self.run_name)
            results: Result = await self._atraced(compute, **traced_inputs)
            if in_test:
                self._log_feedback(results)
        return results

    @staticmethod
    def _log_feedback(results: Any) -> None:
        for result in _results_as_list(results):
            ls_testing.log_feedback(
                key=result["key"], score=result["score"], comment=result.get("comment")
            )
