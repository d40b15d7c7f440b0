"""Names the peers define, re-exported lazily by matchevals' twin modules.

The types and constants of openevals and agentevals (``SimpleEvaluator``,
``ChatCompletionMessage``, ``SYSTEM_PROMPT``, ...) are theirs: a twin module lists where each
comes from, and :func:`peer_getattr` makes its module ``__getattr__`` import the peer on first
use (so ``import matchevals.json_match`` stays light) and keep the value.

>>> import sys, types
>>> module = types.ModuleType("demo")
>>> sys.modules["demo"] = module
>>> module.__getattr__ = peer_getattr("demo", {"dumps": "json"})
>>> module.dumps({"a": 1})
'{"a": 1}'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["peer_getattr"]


def peer_getattr(module: str, sources: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` giving each name of ``sources`` from the module it names."""

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__
