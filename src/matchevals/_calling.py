"""How every evaluator is called: ``evaluator(outputs=..., reference_outputs=..., **kwargs)``.

Evaluators are ``functools.partial`` objects of module-level edge functions (so they pickle).
Each edge takes ``*positional`` only to refuse it with a message a user understands, and starts
with :func:`check_call`; :func:`keyword_evaluator` names the partial and gives it the keyword
signature that ``langsmith.evaluate`` reads to decide what to pass.

>>> from functools import partial
>>> def _edge(scale, /, *positional, outputs=MISSING, **kwargs):
...     if positional or outputs is MISSING:
...         check_call("doubler", positional, outputs=outputs)
...     return scale * outputs
>>> doubler = keyword_evaluator(partial(_edge, 2), "doubler", reference=False)
>>> import inspect; str(inspect.signature(doubler)), doubler(outputs=3)
('(*, outputs, **kwargs)', 6)
>>> doubler(3)
Traceback (most recent call last):
...
TypeError: doubler takes keyword arguments: call it as doubler(outputs=...), not with 1 ...
"""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

__all__ = ["MISSING", "check_call", "keyword_evaluator"]

_F = TypeVar("_F")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The default of ``outputs`` and ``reference_outputs`` in an edge: not passed."""


def _signature(arguments: tuple[str, ...]) -> inspect.Signature:
    keyword, rest = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD
    parameters = [inspect.Parameter(name, keyword) for name in arguments]
    return inspect.Signature([*parameters, inspect.Parameter("kwargs", rest)])


_SIGNATURES = {
    ("outputs", "reference_outputs"): _signature(("outputs", "reference_outputs")),
    ("outputs",): _signature(("outputs",)),
}


def keyword_evaluator(evaluator: _F, name: str, *, reference: bool = True) -> _F:
    """``evaluator`` (a partial) named ``name``, with the keyword signature callers read:
    ``(*, outputs, reference_outputs, **kwargs)``, or ``(*, outputs, **kwargs)`` for an
    evaluator that takes no ``reference``.

    LangSmith names evaluator runs after ``__name__``; a partial keeps both attributes in its
    (pickled) ``__dict__``.
    """
    attributes = vars(evaluator)
    attributes["__name__"] = name
    attributes["__signature__"] = _SIGNATURES[
        ("outputs", "reference_outputs") if reference else ("outputs",)
    ]
    return evaluator


def check_call(name: str, positional: tuple[Any, ...], **required: Any) -> None:
    """Refuse a call with positional arguments, or without one of the ``required`` keyword
    arguments (given as they arrived: :data:`MISSING` when not passed).

    Edges call it only when ``positional`` is not empty or an argument is missing, so a good call
    costs two comparisons.
    """
    if positional:
        count = len(positional)
        shown = ", ".join(f"{argument}=..." for argument in required)
        raise TypeError(
            f"{name} takes keyword arguments: call it as {name}({shown}), not with {count} "
            f"positional argument{'s' * (count != 1)}"
        )
    for argument, value in required.items():
        if value is MISSING:
            raise TypeError(f"{name} needs {argument}=...; it was called without it")
