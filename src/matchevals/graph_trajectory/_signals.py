"""How LangGraph signals a resume (a ``Command`` given as input) and an interrupt (a
``GraphInterrupt`` carrying the values passed to ``interrupt()``), for the capture's edges.

>>> from langgraph.types import Command
>>> is_resume(Command(resume="yes")), is_resume({"question": "hi"})
(True, False)
"""

from __future__ import annotations

from typing import Any

from langgraph.errors import GraphInterrupt
from langgraph.types import Command

__all__ = ["interrupt_values", "is_resume"]


def is_resume(value: Any) -> bool:
    return isinstance(value, Command)


def interrupt_values(error: BaseException) -> list[Any] | None:
    if not isinstance(error, GraphInterrupt):
        return None
    interrupts = error.args[0] if error.args else ()
    return [getattr(i, "value", i) for i in interrupts or ()]
