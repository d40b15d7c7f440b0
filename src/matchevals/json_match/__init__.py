"""Score JSON outputs against references: a correct, fast drop-in for openevals' JSON match.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator(aggregator="all")
>>> evaluator(outputs=[{"a": 1}, {"a": 2}], reference_outputs=[{"a": 2}, {"a": 1}])[0]["score"]
1
"""

from matchevals.json_match._evaluators import (
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)

__all__ = ["create_async_json_match_evaluator", "create_json_match_evaluator"]
