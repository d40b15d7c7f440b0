"""The one edge of every evaluator: a call checked, its inputs read, then the computation run
directly or, when LangSmith watches, as one traced run (and pytest feedback).

Each package's factory validates its options once and hands :func:`evaluator` the computation
``compute(outputs, reference_outputs)``; what comes back is a ``functools.partial`` of
:func:`evaluate` (or :func:`aevaluate`) over an :class:`Edge`, so evaluators pickle whenever
their computation does, with the keyword signature LangSmith reads
(:func:`matchevals._calling.keyword_evaluator`). A call asks
:func:`~matchevals._langsmith.watching` once; the traced run records ``outputs``,
``reference_outputs`` (when the evaluator takes one) and ``inputs`` when the caller gave them.

A reference holding alternatives (:class:`~matchevals._any_of.AnyOf`, or its JSON form under
the factory's ``any_of_key``) is read alternative by alternative, each checked by the
evaluator's ``kind`` (errors name ``reference_outputs.alternatives[i]``), computed by the same
``compute``, and the best result chosen (:func:`~matchevals._any_of.choose`), in one traced run.

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

from matchevals._any_of import Alternatives, AnyOf, alternatives_of, check_kinds, choose
from matchevals._calling import MISSING, check_call, keyword_evaluator
from matchevals._langsmith import EvaluatorRun, watching

__all__ = ["Edge", "aevaluate", "evaluate", "evaluator"]

Compute = Callable[[Any, Any], Any]
Read = Callable[[Any, str], Any]


@dataclass(frozen=True, slots=True)
class Edge:
    """What one evaluator's edge needs: its ``name`` (in errors, and LangSmith's run), the
    computation, the traced ``run``, how to ``read`` each input first (given it and its name;
    None: as given), what runs when traced (None: ``compute``), whether it takes
    ``reference_outputs``, and for several references (:class:`~matchevals._any_of.AnyOf`)
    ``kind``: the evaluator's own check of one reference (read, given its path), returning
    what kind it is (None: the evaluator takes no AnyOf), and ``any_of_key``, the key of the
    JSON form (None: none)."""

    name: str
    compute: Compute
    run: EvaluatorRun
    read: Read | None = None
    traced: Compute | None = None
    reference: bool = True
    kind: Read | None = None
    any_of_key: str | None = None

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
    if type(reference_outputs) is AnyOf or edge.any_of_key is not None:  # else: one reference
        alternatives = _alternatives(edge, reference_outputs)
        if alternatives is not None:
            return _any_of(edge, alternatives, _best, outputs, reference_outputs, kwargs)
    if edge.read is not None:
        outputs = edge.read(outputs, "outputs")
        reference_outputs = edge.read(reference_outputs, "reference_outputs")
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
    if type(reference_outputs) is AnyOf or edge.any_of_key is not None:
        alternatives = _alternatives(edge, reference_outputs)
        if alternatives is not None:
            return await _any_of(edge, alternatives, _abest, outputs, reference_outputs, kwargs)
    if edge.read is not None:
        outputs = edge.read(outputs, "outputs")
        reference_outputs = edge.read(reference_outputs, "reference_outputs")
    if not watching():
        return await edge.compute(outputs, reference_outputs)
    return await edge.run.atraced(
        partial(edge.traced or edge.compute, outputs, reference_outputs),
        **edge.traced_inputs(outputs, reference_outputs, kwargs),
    )


def _alternatives(edge: Edge, reference_outputs: Any) -> Alternatives | None:
    """The alternatives of an AnyOf reference (or its JSON form), None for a plain one."""
    if edge.kind is None:
        if type(reference_outputs) is AnyOf:
            raise TypeError(f"{edge.name} takes one reference; AnyOf is not supported here")
        return None
    return alternatives_of(reference_outputs, edge.any_of_key)


def _read(edge: Edge, outputs: Any, alternatives: Alternatives) -> tuple[Any, list[Any]]:
    """``outputs`` and every alternative read, each checked by the evaluator (errors name the
    alternative's path) and all of one kind."""
    assert edge.kind is not None
    read = edge.read
    references = [
        item if read is None else read(item, path)
        for item, path in zip(alternatives.items, alternatives.paths, strict=True)
    ]
    kinds = [
        edge.kind(reference, path)
        for reference, path in zip(references, alternatives.paths, strict=True)
    ]
    check_kinds(kinds, alternatives.paths)
    return (outputs if read is None else read(outputs, "outputs")), references


def _best(compute: Compute, alternatives: Alternatives, references: list[Any], outputs: Any) -> Any:
    results = [compute(outputs, reference) for reference in references]
    return choose(results, alternatives)


async def _abest(
    compute: Compute, alternatives: Alternatives, references: list[Any], outputs: Any
) -> Any:
    results = [await compute(outputs, reference) for reference in references]
    return choose(results, alternatives)


def _any_of(
    edge: Edge,
    alternatives: Alternatives,
    best: Callable[..., Any],
    outputs: Any,
    reference_outputs: Any,
    kwargs: Any,
) -> Any:
    """Every alternative computed, the best chosen (a coroutine when ``best`` is async): the
    same computation as a plain reference's, once per alternative, in one traced run."""
    read_outputs, references = _read(edge, outputs, alternatives)
    if not watching():
        return best(edge.compute, alternatives, references, read_outputs)
    run = partial(best, edge.traced or edge.compute, alternatives, references, read_outputs)
    found = edge.traced_inputs(outputs, reference_outputs, kwargs)
    return edge.run.atraced(run, **found) if best is _abest else edge.run.traced(run, **found)


def evaluator(
    name: str,
    compute: Compute,
    *,
    asynchronous: bool = False,
    read: Read | None = None,
    traced: Compute | None = None,
    reference: bool = True,
    kind: Read | None = None,
    any_of_key: str | None = None,
) -> Callable[..., Any]:
    """An evaluator named ``name`` computing ``compute(outputs, reference_outputs)`` (a
    coroutine function when ``asynchronous``); see :class:`Edge` for the rest."""
    edge = Edge(name, compute, EvaluatorRun(name), read, traced, reference, kind, any_of_key)
    return keyword_evaluator(
        partial(aevaluate if asynchronous else evaluate, edge), name, reference=reference
    )
