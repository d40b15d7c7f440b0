"""The one edge of every evaluator: a call checked, its inputs read, then the computation run
directly or, when LangSmith watches, as one traced run (and pytest feedback).

Each package's factory validates its options once and hands :func:`evaluator` the computation
``compute(outputs, reference_outputs)``; what comes back is a ``functools.partial`` of
:func:`evaluate` (or :func:`aevaluate`) over an :class:`Edge`, so evaluators pickle whenever
their computation does, with the keyword signature LangSmith reads
(:func:`matchevals._calling.keyword_evaluator`). A call asks
:func:`~matchevals._langsmith.watching` once; the traced run records ``outputs``,
``reference_outputs`` (when the evaluator takes one) and ``inputs`` when the caller gave them.

>>> double = evaluator("double", lambda outputs, reference_outputs: 2 * outputs, reference=False)
>>> double(outputs=21)
42
>>> double(21)
Traceback (most recent call last):
...
TypeError: double takes keyword arguments: call it as double(outputs=...), not with 1 ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from matchevals._calling import MISSING, check_call, keyword_evaluator
from matchevals._langsmith import EvaluatorRun, watching

__all__ = ["Edge", "aevaluate", "evaluate", "evaluator"]

Compute = Callable[[Any, Any], Any]


@dataclass(frozen=True, slots=True)
class Edge:
    """What one evaluator's edge needs: its ``name`` (in errors, and LangSmith's run), the
    computation, the traced ``run``, how to ``read`` both inputs first (None: as given), what
    runs when traced (None: ``compute``), and whether it takes ``reference_outputs``."""

    name: str
    compute: Compute
    run: EvaluatorRun
    read: Callable[[Any, Any], tuple[Any, Any]] | None = None
    traced: Compute | None = None
    reference: bool = True

    def refuse(self, positional: tuple[Any, ...], outputs: Any, reference_outputs: Any) -> None:
        """A call with positional arguments or without a required keyword: a clear TypeError."""
        if self.reference:
            check_call(self.name, positional, outputs=outputs, reference_outputs=reference_outputs)
        else:
            check_call(self.name, positional, outputs=outputs)

    def traced_inputs(self, outputs: Any, reference_outputs: Any, kwargs: Any) -> dict[str, Any]:
        found = {"outputs": outputs}
        if self.reference:
            found["reference_outputs"] = reference_outputs
        if "inputs" in kwargs:
            found["inputs"] = kwargs["inputs"]
        return found


def evaluate(
    edge: Edge,
    /,
    *positional: Any,
    outputs: Any = MISSING,
    reference_outputs: Any = MISSING,
    **kwargs: Any,
) -> Any:
    """The sync edge: ``edge.compute(outputs, reference_outputs)``, traced when watched."""
    if positional or outputs is MISSING or (reference_outputs is MISSING and edge.reference):
        edge.refuse(positional, outputs, reference_outputs)
    if edge.read is not None:
        outputs, reference_outputs = edge.read(outputs, reference_outputs)
    if not watching():
        return edge.compute(outputs, reference_outputs)
    return edge.run.traced(
        partial(edge.traced or edge.compute, outputs, reference_outputs),
        **edge.traced_inputs(outputs, reference_outputs, kwargs),
    )


async def aevaluate(
    edge: Edge,
    /,
    *positional: Any,
    outputs: Any = MISSING,
    reference_outputs: Any = MISSING,
    **kwargs: Any,
) -> Any:
    """The async edge: the same, awaiting ``edge.compute(outputs, reference_outputs)``."""
    if positional or outputs is MISSING or (reference_outputs is MISSING and edge.reference):
        edge.refuse(positional, outputs, reference_outputs)
    if edge.read is not None:
        outputs, reference_outputs = edge.read(outputs, reference_outputs)
    if not watching():
        return await edge.compute(outputs, reference_outputs)
    return await edge.run.atraced(
        partial(edge.traced or edge.compute, outputs, reference_outputs),
        **edge.traced_inputs(outputs, reference_outputs, kwargs),
    )


def evaluator(
    name: str,
    compute: Compute,
    *,
    asynchronous: bool = False,
    read: Callable[[Any, Any], tuple[Any, Any]] | None = None,
    traced: Compute | None = None,
    reference: bool = True,
) -> Callable[..., Any]:
    """An evaluator named ``name`` computing ``compute(outputs, reference_outputs)`` (a
    coroutine function when ``asynchronous``); see :class:`Edge` for the rest."""
    edge = Edge(name, compute, EvaluatorRun(name), read, traced, reference)
    return keyword_evaluator(
        partial(aevaluate if asynchronous else evaluate, edge), name, reference=reference
    )
