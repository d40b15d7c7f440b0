"""matchevals: correct, fast JSON-match, agent-trajectory and LangGraph superstep evaluators.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator(aggregator="average")
>>> evaluator(outputs={"a": 1, "b": 2}, reference_outputs={"a": 1, "b": 3})[0]["score"]
0.5
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("matchevals")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
