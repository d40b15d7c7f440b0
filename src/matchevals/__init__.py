"""matchevals: correct, fast JSON-match, agent-trajectory and LangGraph superstep evaluators.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator(aggregator="average")
>>> evaluator(outputs={"a": 1, "b": 2}, reference_outputs={"a": 1, "b": 3})[0]["score"]
0.5
"""

from __future__ import annotations

from matchevals._any_of import AnyOf

__all__ = ["AnyOf", "__version__"]

AnyOf.__module__ = __name__  # it reports where users import it from


def __getattr__(name: str) -> str:
    # ``__version__`` is read from the installed metadata on first use: importlib.metadata
    # costs more than the rest of ``import matchevals.json_match``.
    if name != "__version__":
        raise AttributeError(f"module 'matchevals' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("matchevals")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        found = "0.0.0"
    globals()["__version__"] = found
    return found
