"""One value against its reference, under the rule at its path: the decision every general path
takes, whether it compares two objects key by key (``_keys``) or two documents leaf by leaf
(``_leaves``).

- a side without the value (``ABSENT``) scores 0;
- a rubric path scores ``True`` without a call when the values are equal as JSON (unless
  ``judge_identical``), else it is left to the judge (``None``);
- values equal as JSON score 1, whatever the comparator;
- a comparator's answer is checked: a bool, or a number in [0, 1];
- anything else scores 0.

>>> from matchevals.json_match._paths import NO_RULE
>>> score_value(1, 1.0, NO_RULE, False, "a", str), score_value(ABSENT, 2, NO_RULE, False, "a", str)
(1, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from matchevals._differences import ABSENT
from matchevals._values import json_equal
from matchevals.json_match._paths import Rule
from matchevals.json_match._types import Score

__all__ = ["absent_if_null", "checked_score", "score_value"]


def absent_if_null(value: Any) -> Any:
    """``none_is_missing=True``: a ``null`` counts as an absent key."""
    return ABSENT if value is None else value


def score_value(
    actual: Any,
    expected: Any,
    rule: Rule,
    judge_identical: bool,
    path: str,
    where: Callable[[], str],
) -> Score | None:
    """The score of ``actual`` against ``expected`` under ``rule``; None: ask the judge.

    ``path`` names the rule's path and ``where`` the values' locations in a comparator's errors.
    """
    if actual is ABSENT or expected is ABSENT:
        return 0
    if rule.criteria is not None:
        return True if not judge_identical and json_equal(actual, expected) else None
    if json_equal(actual, expected):
        return 1
    if rule.comparator is not None:
        return checked_score(rule.comparator, actual, expected, path, where)
    return 0


def checked_score(
    comparator: Any,
    output_value: Any,
    reference_value: Any,
    path: str,
    where: Callable[[], str],
) -> float:
    """Call a comparator and check its answer: a bool, or a number in [0, 1].

    Raises ValueError naming the path (and, through ``where``, the values' locations).

    >>> checked_score(lambda a, b: 0.5, 1, 2, "a", str)
    0.5
    """
    try:
        result = comparator(output_value, reference_value)
    except Exception as error:
        raise ValueError(
            f"the comparator for {path!r} failed at {where()}: {type(error).__name__}: {error}"
        ) from error
    if result is True:
        return 1.0
    if result is False:
        return 0.0
    result_type = type(result)
    if result_type is float or result_type is int or isinstance(result, (int, float)):
        number = float(result)
        if 0.0 <= number <= 1.0:
            return number
        problem = "outside [0, 1]"
    else:
        problem = f"a {result_type.__name__}"
    raise ValueError(
        f"the comparator for {path!r} returned {result!r} at {where()}: {problem}; "
        "expected a bool or a number in [0, 1]"
    )
