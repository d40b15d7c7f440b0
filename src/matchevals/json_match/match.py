"""openevals' module path: ``from matchevals.json_match.match import ...`` works as
``from openevals.json.match import ...`` does, with every name that module offers.

The factories are matchevals' own; the prompts and types (``SYSTEM_PROMPT``, ``USER_PROMPT``,
``EvaluatorResult``, ``ModelClient``, ``SimpleEvaluator``, ``SimpleAsyncEvaluator``) are
openevals', loaded on first use.

>>> from matchevals.json_match.match import USER_PROMPT, create_json_match_evaluator
>>> "{rubric}" in USER_PROMPT
True
"""

from typing import Any

from matchevals._peers import peer_getattr
from matchevals.json_match._evaluators import (
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)

__all__ = [  # noqa: F822 - the peers' names load on first use (module __getattr__)
    "SYSTEM_PROMPT",
    "USER_PROMPT",
    "EvaluatorResult",
    "ModelClient",
    "SimpleAsyncEvaluator",
    "SimpleEvaluator",
    "create_async_json_match_evaluator",
    "create_json_match_evaluator",
]

__getattr__: Any = peer_getattr(
    __name__,
    {
        "SYSTEM_PROMPT": "openevals.json.match",
        "USER_PROMPT": "openevals.json.match",
        "EvaluatorResult": "openevals.types",
        "ModelClient": "openevals.llm",
        "SimpleAsyncEvaluator": "openevals.types",
        "SimpleEvaluator": "openevals.types",
    },
)
