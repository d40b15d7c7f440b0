"""One line of a run saved with ``--format jsonl`` (read back by :mod:`matchevals.report._saved`):
an example's record (with its values' JSON texts) or a problem's. An example's line is written
in two parts: its head (its number, known only once the examples before it are counted) and
the rest (:func:`example_body`, made where the example is scored).

>>> from matchevals._scoring import Problem
>>> jsonl_line(Problem("out.jsonl:2", "blank line"))
'{"type": "invalid", "where": "out.jsonl:2", "message": "blank line"}'
"""

from __future__ import annotations

import json
from typing import Any

from matchevals._scoring import Problem, Scored

__all__ = ["encode_value", "example_body", "example_head", "jsonl_line"]

# json.dumps(value, ensure_ascii=False, default=repr), without building an encoder per value
encode_value = json.JSONEncoder(ensure_ascii=False, default=repr).encode


def jsonl_line(item: Scored | Problem, values: tuple[str, str] | None = None) -> str:
    """One line of ``--format jsonl`` for an example (with the JSON texts of its ``outputs`` and
    ``reference_outputs`` when known, so ``matchevals report`` can show them) or a problem.

    An example's line is ``encode_value`` of ``{"type": "example", "index": …, "id": …,
    "where": …, "score": …, "results": …}`` (then the values), written field by field: one is
    written per example, and the short fields cost more through the encoder than the results.

    >>> from matchevals._scoring import Scored
    >>> jsonl_line(Scored(3, "a-1", "out.jsonl:4", 0.5, [{"key": "k", "score": 0.5}]), ("1", "2"))
    '{"type": "example", "index": 3, "id": "a-1", "where": "out.jsonl:4", "score": 0.5, \
"results": [{"key": "k", "score": 0.5}], "outputs": 1, "reference_outputs": 2}'
    """
    if isinstance(item, Problem):
        record: dict[str, Any] = {"type": "invalid", "where": item.where, "message": item.message}
        if not item.counted:
            record["counted"] = False
        return encode_value(record)
    return example_head(item.index) + example_body(item, values)


def example_head(index: int, id_is_index: bool = False) -> str:
    """The start of an example's line, up to its id (included where ``id_is_index``: examples
    scored against one reference are known by their number)."""
    if id_is_index:
        return f'{{"type": "example", "index": {index}, "id": {index}, '
    return f'{{"type": "example", "index": {index}, '


def example_body(item: Scored, values: tuple[str, str] | None, with_id: bool = True) -> str:
    """The rest of an example's line after :func:`example_head` (from its id on, unless the id
    is the index)."""
    line = (
        f'"where": {encode_value(item.where)}, "score": {_scalar(item.score)}, '
        f'"results": {encode_value(item.results)}'
    )
    if with_id:
        line = f'"id": {_scalar(item.id)}, {line}'
    if values is None:
        return line + "}"
    return f'{line}, "outputs": {values[0]}, "reference_outputs": {values[1]}}}'


def _scalar(value: Any) -> str:
    """``encode_value(value)``: an int or a finite float is its repr."""
    kind = type(value)
    if kind is int or (kind is float and value - value == 0):
        return repr(value)
    return encode_value(value)
