"""Score JSON outputs against references: a correct, fast drop-in for openevals' JSON match.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator(aggregator="all")
>>> evaluator(outputs=[{"a": 1}, {"a": 2}], reference_outputs=[{"a": 2}, {"a": 1}])[0]["score"]
1
"""

from matchevals.json_match import comparators
from matchevals.json_match._evaluators import (
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from matchevals.json_match._judge import JudgeError

__all__ = [
    "JudgeError",
    "comparators",
    "create_async_json_match_evaluator",
    "create_json_match_evaluator",
]

for _public in (create_async_json_match_evaluator, create_json_match_evaluator, JudgeError):
    _public.__module__ = __name__  # they report where users import them from
del _public
