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
import re
from typing import Any

from matchevals._scoring import Problem, Scored

__all__ = ["encode_value", "example_body", "example_head", "jsonl_line", "read_head"]

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


_HEAD = re.compile(
    rb'\{"type": "example", "index": (0|[1-9][0-9]{0,17}), "id": '
    rb'(?:"([^"\\\x00-\x1f]*)"|(-?(?:0|[1-9][0-9]{0,17}))), "where": '
)


def read_head(line: bytes) -> tuple[int, Any] | None:
    """An example line's index and id read from its head, as :func:`example_head` and
    :func:`example_body` write it, without parsing the line; None where the head is written
    otherwise (an id that is a float or holds escapes, a line from elsewhere). The rest of the
    line is not read: whoever uses the line parses it and finds a line that is not JSON, or
    whose id is not this one after all.

    >>> read_head(b'{"type": "example", "index": 3, "id": "a-1", "where": "o.jsonl:4"}')
    (3, 'a-1')
    >>> read_head(b'{"type": "example", "index": 3, "id": 7, "where": "o.jsonl:8"}')
    (3, 7)
    >>> read_head(b'{"type": "summary", "kind": "json"}') is None
    True
    """
    match = _HEAD.match(line)
    if match is None:
        return None
    if match[3] is not None:
        return int(match[1]), int(match[3])
    try:
        return int(match[1]), match[2].decode()
    except UnicodeDecodeError:
        return None
