"""Score JSON outputs against references: a correct, fast drop-in for openevals' JSON match.

>>> from matchevals.json_match import create_json_match_evaluator
>>> evaluator = create_json_match_evaluator(aggregator="all")
>>> evaluator(outputs=[{"a": 1}, {"a": 2}], reference_outputs=[{"a": 2}, {"a": 1}])[0]["score"]
1
"""

from typing import Any

from matchevals._any_of import AnyOf
from matchevals._peers import peer_getattr
from matchevals.json_match import comparators
from matchevals.json_match._evaluators import (
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from matchevals.json_match._judge import JudgeError

__all__ = [
    "SYSTEM_PROMPT",
    "USER_PROMPT",
    "AnyOf",
    "JudgeError",
    "comparators",
    "create_async_json_match_evaluator",
    "create_json_match_evaluator",
]

for _public in (create_async_json_match_evaluator, create_json_match_evaluator, JudgeError):
    _public.__module__ = __name__  # they report where users import them from
del _public

__getattr__: Any = peer_getattr(
    __name__, {"SYSTEM_PROMPT": "openevals.json.match", "USER_PROMPT": "openevals.json.match"}
)
