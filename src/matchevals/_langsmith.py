"""The one module that touches LangSmith: traced runs and pytest feedback.

Every matchevals evaluator asks :func:`watching` once per call whether LangSmith could be
watching. Nothing can watch before someone imports langsmith (the caller, ``langsmith.evaluate``,
a traced parent, LangSmith's pytest plugin) or turns tracing on in the environment
(``LANGSMITH_TRACING=true``), so until then the answer costs a dictionary lookup and langsmith
is not even imported. Otherwise it is langsmith's own answer (:data:`langsmith_active`).

When something watches, the evaluator's edge (:mod:`matchevals._edge`) runs its computation
through :meth:`EvaluatorRun.traced`:
inside a ``traceable`` wrapper created once per evaluator (never per call or per key), and inside
a ``@pytest.mark.langsmith`` test each result is also logged as feedback, as openevals does.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

__all__ = ["EvaluatorRun", "langsmith_active", "tracing_check", "watching"]

Result = TypeVar("Result")
FRAMEWORK = "matchevals"
traceable: Any = None  # langsmith's public API, bound on first use (see _import_langsmith)
ls_testing: Any = None


def _import_langsmith() -> None:
    """Bind langsmith's public API in this module (once; a name already set is kept)."""
    global traceable, ls_testing
    if traceable is None:
        from langsmith import traceable as public_traceable

        traceable = public_traceable
    if ls_testing is None:
        from langsmith import testing

        ls_testing = testing


def _environment_value(name: str) -> str | None:
    """What ``langsmith.utils.get_env_var(name)`` reads, without importing langsmith."""
    for namespace in ("LANGSMITH", "LANGCHAIN"):
        value = os.environ.get(f"{namespace}_{name}")
        if value is not None and value.strip() != "":
            return value
    return None


def tracing_in_environment() -> bool:
    """Whether the environment turns LangSmith tracing on (``LANGSMITH_TRACING=true``).

    >>> import os
    >>> tracing_in_environment() == (os.environ.get("LANGSMITH_TRACING") == "true")
    True
    """
    value = _environment_value("TRACING_V2")
    return (value if value is not None else _environment_value("TRACING")) == "true"


_traced_by_environment = tracing_in_environment()


def tracing_check(context_module: str = "langsmith._internal._context") -> Callable[[], bool]:
    """A function deciding what ``langsmith.utils.tracing_is_enabled()`` decides, cheaply.

    The one use of a private langsmith name in matchevals, guarded: ``tracing_is_enabled()`` costs
    ~3 µs, more than a whole evaluator call on a small dict, while reading the context variables
    it reads costs ~0.3 µs. Those live in a private module; when it or its names are missing or
    not context variables (another langsmith layout), the public ``tracing_is_enabled`` is used.

    >>> tracing_check("no.such.module") is _public_tracing_check
    True
    """
    from langsmith.utils import get_env_var

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
    from langsmith.utils import tracing_is_enabled

    return bool(tracing_is_enabled())


def _first_check() -> bool:
    """:data:`langsmith_active` until langsmith is needed: builds the real check, then asks it."""
    global langsmith_active
    if langsmith_active is _first_check:
        langsmith_active = tracing_check()
    return langsmith_active()


langsmith_active: Callable[[], bool] = _first_check
"""langsmith's answer to "is tracing on here" (which it also is inside a tracked
``@pytest.mark.langsmith`` test); built on first use, see :func:`tracing_check`."""


def watching() -> bool:
    """Whether LangSmith could be watching this call: the one decision, asked once per call.

    >>> import langsmith
    >>> with langsmith.tracing_context(enabled=True):
    ...     watching()
    True
    """
    if "langsmith" not in sys.modules and not _traced_by_environment:
        return False  # nobody imported langsmith and the environment does not trace
    return langsmith_active()


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

    The ``traceable`` wrappers are made once per evaluator: when it is built if langsmith is
    already imported or the environment traces, else on the first traced call.

    >>> run = EvaluatorRun("my_evaluator")
    >>> run.traced(lambda: {"key": "k", "score": 1}, outputs={}, reference_outputs={})
    {'key': 'k', 'score': 1}
    """

    def __init__(self, run_name: str) -> None:
        global _traced_by_environment
        self.run_name = run_name
        self._traced: Callable[..., Any] | None = None
        self._atraced: Callable[..., Any] | None = None
        _traced_by_environment = tracing_in_environment()
        if "langsmith" in sys.modules or _traced_by_environment:
            self._wrap()

    def __reduce__(self) -> tuple[type[EvaluatorRun], tuple[str]]:
        return (EvaluatorRun, (self.run_name,))

    def _wrap(self) -> None:
        _import_langsmith()
        metadata = {"__ls_framework": FRAMEWORK, "__ls_evaluator": self.run_name}
        wrap = traceable(name=self.run_name, metadata=metadata, process_inputs=_drop_compute)
        self._traced = wrap(_call)
        wrap = traceable(name=self.run_name, metadata=metadata, process_inputs=_drop_compute)
        self._atraced = wrap(_acall)

    def traced(self, compute: Callable[[], Result], **traced_inputs: Any) -> Result:
        """``compute()`` as a traced run, logged as feedback inside a LangSmith pytest test
        (the edge asks :func:`watching` first, :mod:`matchevals._edge`)."""
        if self._traced is None:
            self._wrap()
        assert self._traced is not None
        with contextlib.ExitStack() as scope:
            in_test = _enter_test_feedback(scope, self.run_name)
            results: Result = self._traced(compute, **traced_inputs)
            if in_test:
                self._log_feedback(results)
        return results

    async def atraced(
        self, compute: Callable[[], Awaitable[Result]], **traced_inputs: Any
    ) -> Result:
        """The async twin of :meth:`traced`."""
        if self._atraced is None:
            self._wrap()
        assert self._atraced is not None
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
