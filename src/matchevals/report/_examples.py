"""One example as a report sees it, read from any result shape a notebook has at hand (an
evaluator result or a list of them, a saved ``--format jsonl`` line, a ``langsmith.evaluate``
row); a ``TypeError`` names the item and what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from matchevals._values import a_type
from matchevals.report._stats import example_score

__all__ = ["DEFAULT_DETAILS", "NOT_GIVEN", "ReportExample", "example_from", "examples_from"]

DEFAULT_DETAILS = 1000
"""How many of the lowest-scoring examples a report shows in full, unless told."""


class _NotGiven:
    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Any = _NotGiven()
"""Stands for values the caller did not pass (results alone)."""


@dataclass(frozen=True)
class ReportExample:
    """One scored example as the report sees it."""

    index: int
    id: Any
    where: str
    score: float
    results: list[dict[str, Any]]
    outputs: Any = NOT_GIVEN
    reference_outputs: Any = NOT_GIVEN


def _plain_result(result: Any, subject: str) -> dict[str, Any]:
    """A result dict from a dict or an object with ``key``/``score`` (LangSmith's
    ``EvaluationResult``)."""
    if isinstance(result, Mapping):
        if "key" not in result:
            names = ", ".join(repr(str(name)) for name in list(result)[:5]) or "nothing"
            raise TypeError(f"{subject} has no 'key': a result is {{'key': ..., 'score': ...}}; "
                            f"it holds {names}")  # fmt: skip
        plain = dict(result)
        _check_score(plain.get("score"), f"{subject}['score']")
        return plain
    if not hasattr(result, "key"):
        raise TypeError(
            f"{subject} is {a_type(result)}; expected a result ({{'key': ..., "
            "'score': ...}} or LangSmith's EvaluationResult)"
        )
    plain = {name: getattr(result, name, None) for name in ("key", "score", "comment")}
    metadata = getattr(result, "metadata", None)
    plain["metadata"] = dict(metadata) if isinstance(metadata, Mapping) else None
    if plain["score"] is None and isinstance(getattr(result, "value", None), (bool, int, float)):
        plain["score"] = result.value
    _check_score(plain["score"], f"{subject}.score")
    return plain


def _check_score(score: Any, subject: str) -> None:
    """A score is None (value-only feedback, left out of means), a bool, or a number in [0, 1]."""
    if score is None or isinstance(score, bool):
        return
    if not isinstance(score, (int, float)):
        raise TypeError(f"{subject} is {a_type(score)}; expected a bool or a number in [0, 1]")
    if not 0 <= score <= 1:  # NaN too
        raise ValueError(f"{subject} is {score!r}; scores are bools or numbers in [0, 1]")


def _results_of(value: Any, subject: str) -> list[dict[str, Any]]:
    if isinstance(value, Mapping) and "results" in value and "key" not in value:
        value, subject = value["results"], f"{subject}['results']"
    if isinstance(value, Mapping) or hasattr(value, "key"):
        return [_plain_result(value, subject)]
    if isinstance(value, (list, tuple)):
        return [_plain_result(item, f"{subject}[{i}]") for i, item in enumerate(value)]
    raise TypeError(
        f"{subject} is {a_type(value)}; expected an evaluator result (a dict with "
        "'key' and 'score'), a list of them, or {'results': [...], 'outputs': ..., "
        "'reference_outputs': ...}"
    )


def example_from(item: Any, position: int, subject: str | None = None) -> ReportExample:
    """One example from any of the shapes a notebook has at hand:

    - an evaluator result (``{"key": ..., "score": ...}``) or a list of them;
    - ``{"results": [...], "outputs": ..., "reference_outputs": ..., "id": ...}`` (values and
      id optional; ``--format jsonl`` example lines have this shape);
    - a ``langsmith.evaluate`` row (``{"run": ..., "example": ..., "evaluation_results": ...}``).

    A ``TypeError`` names the item (``subject``, ``examples[3]`` by default) and what is wrong.

    >>> example_from({"key": "json_match:a", "score": 0.5}, 3).score
    0.5
    >>> example_from(7, 3)
    Traceback (most recent call last):
    ...
    TypeError: examples[3] is a number; expected an evaluator result (a dict with 'key' and ...
    """
    subject = subject or f"examples[{position}]"
    if isinstance(item, Mapping) and "evaluation_results" in item:
        run, example = item.get("run"), item.get("example")
        results = _results_of(item["evaluation_results"], f"{subject}['evaluation_results']")
        ident = getattr(example, "id", None)
        return ReportExample(
            index=position,
            id=str(ident) if ident is not None else position,
            where=f"example {ident}" if ident is not None else f"row {position}",
            score=example_score(results),
            results=results,
            outputs=getattr(run, "outputs", NOT_GIVEN),
            reference_outputs=getattr(example, "outputs", NOT_GIVEN),
        )
    if isinstance(item, Mapping) and "results" in item and "key" not in item:
        results = _results_of(item["results"], f"{subject}['results']")
        score, index = item.get("score"), item.get("index", position)
        _check_score(score, f"{subject}['score']")
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"{subject}['index'] is {a_type(index)}; expected a whole "
                            "number")  # fmt: skip
        return ReportExample(
            index=index,
            id=item.get("id", position),
            where=str(item.get("where") or f"example {position}"),
            score=example_score(results) if score is None else float(score),
            results=results,
            outputs=item.get("outputs", NOT_GIVEN),
            reference_outputs=item.get("reference_outputs", NOT_GIVEN),
        )
    results = _results_of(item, subject)
    return ReportExample(position, position, f"example {position}", example_score(results), results)


def examples_from(items: Iterable[Any]) -> Iterable[ReportExample]:
    """Each item of a list of results (any shape :func:`example_from` takes) as an example."""
    for position, item in enumerate(items):
        yield item if isinstance(item, ReportExample) else example_from(item, position)
