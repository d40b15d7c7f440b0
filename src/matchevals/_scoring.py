"""One example scored from files or tables: its line read as JSON, its score, or the problem
that stands in its place. Shared by the command line, ``matchevals.ray`` and the reports.

>>> from matchevals.json_match import create_json_match_evaluator
>>> scored = score_example(create_json_match_evaluator(), 0, 0, "out.jsonl:1", {"a": 1}, {"a": 2})
>>> scored.score, scored.results[0]["comment"]
(0.0, 'a: expected 2, got 1')
>>> decode(b"  \\n")
Traceback (most recent call last):
...
matchevals._scoring.LineError: blank line (each line of a JSONL file is one example)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._fast_json import exact_loads

__all__ = [
    "BLANK",
    "LineError",
    "Problem",
    "Scored",
    "decode",
    "example_score",
    "not_json",
    "result_score",
    "score_example",
]

BLANK = "blank line (each line of a JSONL file is one example)"


class LineError(ValueError):
    """One line is not an example: its message says why."""


@dataclass(frozen=True, slots=True)
class Problem:
    """An example that could not be scored, with where it came from.

    ``counted`` is False for the second report of one broken example: a reference left without
    its output when an output line that could not be read may have been that output.
    """

    where: str
    message: str
    counted: bool = True

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class Scored:
    """One scored example: its score in [0, 1] and the evaluator's results.

    A plain slotted record (a frozen dataclass costs a few microseconds more to make, and
    one is made per example); it is never changed after it is made.
    """

    __slots__ = ("id", "index", "results", "score", "where")

    def __init__(
        self, index: int, id: Any, where: str, score: float, results: list[dict[str, Any]]
    ) -> None:
        self.index, self.id, self.where, self.score, self.results = index, id, where, score, results

    def __repr__(self) -> str:
        return (
            f"Scored(index={self.index!r}, id={self.id!r}, where={self.where!r}, "
            f"score={self.score!r}, results=[...])"
        )


def result_score(result: Mapping[str, Any]) -> float | None:
    """A result's score as a float (booleans 0/1), None where it has none."""
    score = result.get("score")
    if type(score) is float:
        return score
    if score is None or not isinstance(score, (bool, int, float)):
        return None
    return float(score)


def example_score(results: Sequence[Mapping[str, Any]]) -> float:
    """An example's score: the mean of its results' scores (booleans count 0/1; results
    without a score, such as LangSmith value-only feedback, are left out); nothing to score
    is 1. The one rule: the command line, the reports and ``matchevals.ray`` all use it.

    >>> example_score([{"key": "a", "score": True}, {"key": "b", "score": 0.5}])
    0.75
    """
    if len(results) == 1:
        only = result_score(results[0])
        return 1.0 if only is None else only
    scores = [s for s in map(result_score, results) if s is not None]
    return math.fsum(scores) / len(scores) if scores else 1.0


def score_example(
    evaluator: Callable[..., Any], index: int, ident: Any, where: str, outputs: Any, reference: Any
) -> Scored | Problem:
    """Example ``index`` (``ident``, read at ``where``) scored, or the problem the evaluator
    found with it."""
    try:
        answer = evaluator(outputs=outputs, reference_outputs=reference)
    except (TypeError, ValueError, KeyError) as error:
        return Problem(where, f"cannot score: {error}")
    results = [
        r if type(r) is dict else dict(r)
        for r in (answer if isinstance(answer, list) else [answer])
    ]
    return Scored(index, ident, where, example_score(results), results)


def decode(line: bytes) -> Any:
    """The JSON value of one line; :class:`LineError` says why a line is not one."""
    try:
        return exact_loads(line)
    except UnicodeDecodeError:
        raise LineError("not valid UTF-8") from None
    except RecursionError:
        raise LineError("nested too deeply to read") from None
    except ValueError:
        if not line.strip():
            raise LineError(BLANK) from None
        raise LineError(_why_not_json(line)) from None


def _why_not_json(line: bytes) -> str:
    """The standard parser's complaint about a line, quoted where it failed."""
    try:
        json.loads(line)
    except json.JSONDecodeError as error:
        return not_json(error)
    except ValueError as error:
        return f"not valid JSON: {error}"
    return "not valid JSON"  # unreachable: the fast parser refuses only what json refuses


_QUOTE_BEFORE, _QUOTE_AFTER = 30, 10


def _quoted(text: str) -> str:
    return "".join(c if c >= " " or c == "\t" else repr(c)[1:-1] for c in text)


def not_json(error: json.JSONDecodeError, *, document: bool = False) -> str:
    """``not valid JSON at column 13 (expecting ':' delimiter): …{"a": 1, "b"``: where parsing
    failed, why, and the text around it (the end of the text said when it is cut there).

    >>> try:
    ...     json.loads('{"a": 1, "b"')
    ... except json.JSONDecodeError as error:
    ...     print(not_json(error))
    not valid JSON at column 13 (expecting ':' delimiter): {"a": 1, "b" (the line ends there)
    """
    text = error.doc
    position = min(error.pos, len(text.rstrip()))  # not past the end, onto a final newline
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line_end = len(text) if line_end < 0 else line_end
    start = max(line_start, position - _QUOTE_BEFORE)
    end = min(line_end, position + _QUOTE_AFTER)
    quoted = text[start:end] if start > line_start else text[start:end].lstrip()
    snippet = ("…" if start > line_start else "") + _quoted(quoted)
    snippet += "…" if end < line_end else ""
    column = position - line_start + 1
    line = text.count("\n", 0, position) + 1
    where = f"line {line}, column {column}" if document else f"column {column}"
    reason = error.msg[:1].lower() + error.msg[1:]
    ends = (
        ""
        if text[position:].strip()
        else " (the text ends there)"
        if document
        else " (the line ends there)"
    )
    return f"not valid JSON at {where} ({reason}): {snippet.rstrip() if ends else snippet}{ends}"
