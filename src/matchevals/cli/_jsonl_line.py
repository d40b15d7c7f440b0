"""One line of ``--format jsonl``: an example's record (with its values' JSON texts) or a
problem's.

>>> from matchevals.cli._read import Problem
>>> jsonl_line(Problem("out.jsonl:2", "blank line"))
'{"type": "invalid", "where": "out.jsonl:2", "message": "blank line"}'
"""

from __future__ import annotations

from typing import Any

from matchevals.cli._read import Problem
from matchevals.cli._run import Scored
from matchevals.cli._value_text import encode_value

__all__ = ["jsonl_line"]


def jsonl_line(item: Scored | Problem, values: tuple[str, str] | None = None) -> str:
    """One line of ``--format jsonl`` for an example (with the JSON texts of its ``outputs`` and
    ``reference_outputs`` when known, so ``matchevals report`` can show them) or a problem.

    An example's line is ``encode_value`` of ``{"type": "example", "index": …, "id": …,
    "where": …, "score": …, "results": …}`` (then the values), written field by field: one is
    written per example, and the short fields cost more through the encoder than the results.

    >>> from matchevals.cli._run import Scored
    >>> jsonl_line(Scored(3, "a-1", "out.jsonl:4", 0.5, [{"key": "k", "score": 0.5}]), ("1", "2"))
    '{"type": "example", "index": 3, "id": "a-1", "where": "out.jsonl:4", "score": 0.5, \
"results": [{"key": "k", "score": 0.5}], "outputs": 1, "reference_outputs": 2}'
    """
    if isinstance(item, Problem):
        record: dict[str, Any] = {"type": "invalid", "where": item.where, "message": item.message}
        if not item.counted:
            record["counted"] = False
        return encode_value(record)
    line = (
        f'{{"type": "example", "index": {item.index}, "id": {_scalar(item.id)}, '
        f'"where": {encode_value(item.where)}, "score": {_scalar(item.score)}, '
        f'"results": {encode_value(item.results)}'
    )
    if values is None:
        return line + "}"
    return f'{line}, "outputs": {values[0]}, "reference_outputs": {values[1]}}}'


def _scalar(value: Any) -> str:
    """``encode_value(value)``: an int or a finite float is its repr."""
    kind = type(value)
    if kind is int or (kind is float and value - value == 0):
        return repr(value)
    return encode_value(value)
