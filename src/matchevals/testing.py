"""Assertions for tests: pass silently, or fail with the difference laid out for a person.

>>> from matchevals.testing import assert_json_match
>>> [r["score"] for r in assert_json_match({"name": "Ann", "age": 30}, {"age": 30, "name": "Ann"})]
[1, 1]

Each assertion builds the evaluator from ``**options`` (the factory's keyword arguments), runs it
once, and returns its results when every score reaches ``threshold`` (a boolean score passes only
when True, whatever the threshold). Otherwise it raises ``AssertionError`` listing the differing
paths with expected and actual values (JSON), or the run and its reference side by side,
superstep by superstep, with the first divergence marked (graph), or the agent's messages or tool
calls beside the reference's, each failing row marked (trajectory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matchevals._types import EvaluatorResult

__all__ = [  # noqa: F822 - ScriptedJudge is loaded on first use (module __getattr__)
    "ScriptedJudge",
    "assert_graph_trajectory_match",
    "assert_json_match",
    "assert_trajectory_match",
]


def __getattr__(name: str) -> Any:
    # ScriptedJudge is a LangChain chat model: langchain-core loads only when it is asked for
    if name == "ScriptedJudge":
        from matchevals._scripted_judge import ScriptedJudge

        return ScriptedJudge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__tracebackhide__ = True


def _check_threshold(threshold: object) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number in [0, 1]; got {type(threshold).__name__}")
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1; got {threshold}")
    return float(threshold)


def _passes(result: Mapping[str, Any], bar: float) -> bool:
    """Whether a result passes: a boolean score when True, whatever the threshold (False is
    not a 0 that a threshold of 0 lets through); a number when it reaches the threshold.

    >>> _passes({"score": False}, 0.0), _passes({"score": 0}, 0.0), _passes({"score": 0.5}, 0.6)
    (False, True, False)
    """
    score = result["score"]
    if isinstance(score, bool):
        return score
    return float(score) >= bar


def _below(failing: Sequence[Mapping[str, Any]], bar: float) -> str:
    """How the failing results failed: ``below the threshold 0.8``, ``False``, or both."""
    booleans = sum(isinstance(result["score"], bool) for result in failing)
    if not booleans:
        return f"below the threshold {bar}"
    return "False" if booleans == len(failing) else f"below the threshold {bar} or False"


def _scores_line(results: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{r['key']} = {r['score']!r}" for r in results)


def assert_json_match(
    outputs: Any, reference_outputs: Any, *, threshold: float = 1.0, **options: Any
) -> list[EvaluatorResult]:
    """Assert that every json_match result reaches ``threshold``; return the results.

    ``options`` are :func:`~matchevals.json_match.create_json_match_evaluator`'s keyword
    arguments. With ``aggregator=None`` each key must reach the threshold on its own; pass
    ``aggregator="average"`` to put a bar on the mean instead.

    >>> assert_json_match({"age": 20}, {"age": 30})
    Traceback (most recent call last):
    ...
    AssertionError: json_match: 1 of 1 results below the threshold 1.0: json_match:age = 0
    differences (expected = reference_outputs, actual = outputs):
      path  expected  actual
      age   30        20
    """
    from matchevals.json_match import create_json_match_evaluator

    bar = _check_threshold(threshold)
    results = create_json_match_evaluator(**options)(
        outputs=outputs, reference_outputs=reference_outputs
    )
    failing = [result for result in results if not _passes(result, bar)]
    if not failing:
        return results
    raise AssertionError(_json_message(outputs, reference_outputs, results, failing, bar, options))


def _json_message(
    outputs: Any,
    reference_outputs: Any,
    results: Sequence[EvaluatorResult],
    failing: Sequence[EvaluatorResult],
    bar: float,
    options: Mapping[str, Any],
) -> str:
    from matchevals.json_match._difference_table import (
        groups_from_mismatches,
        json_differences,
        render_differences,
    )

    head = (
        f"json_match: {len(failing)} of {len(results)} results {_below(failing, bar)}: "
        + _scores_line(failing)
    )
    lines = [head]
    mismatches = [m for r in failing for m in ((r.get("metadata") or {}).get("mismatches") or [])]
    if mismatches:  # the evaluator's own account (comparators, globs, nested paths)
        groups = groups_from_mismatches(mismatches)
    else:
        alignment = next(
            (
                (r.get("metadata") or {}).get("alignment")
                for r in results
                if (r.get("metadata") or {}).get("alignment") is not None
            ),
            None,
        )
        skip = {*(options.get("exclude_keys") or ()), *(options.get("rubric") or {})}
        groups = json_differences(outputs, reference_outputs, alignment=alignment, skip_keys=skip)
    if groups:
        lines.append("differences (expected = reference_outputs, actual = outputs):")
        lines.extend(render_differences(groups))
    comments = [f"  {r['key']}: {r['comment']}" for r in failing if r.get("comment")]
    if comments and not groups:
        lines.append("why:")
        lines.extend(comments)
    return "\n".join(lines)


def assert_graph_trajectory_match(
    outputs: Any, reference_outputs: Any, *, threshold: float = 1.0, **options: Any
) -> EvaluatorResult:
    """Assert that a run (or a list of runs) matches its reference; return the result.

    ``options`` are :func:`~matchevals.graph_trajectory.create_graph_trajectory_match_evaluator`'s
    keyword arguments. A strict match passes with score ``True``; with ``partial_credit=True``
    the score must reach ``threshold`` (also handed to the evaluator).

    >>> run = {"inputs": None, "results": None, "steps": [["a"], ["b"]]}
    >>> assert_graph_trajectory_match(run, {"steps": [["a"], ["b", "c"]]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: graph_trajectory_match = False (threshold 1.0): run 0, superstep 1 ...
    run 0:
        superstep  expected  actual
        0          [a]       [a]     ok
      > 1          [b, c]    [b]     DIFF  <- first divergence
    """
    from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator

    bar = _check_threshold(threshold)
    if options.get("partial_credit") or options.get("results_evaluator") is not None:
        options = {"threshold": bar, **options}
    result: Any = create_graph_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=reference_outputs
    )
    if _passes(result, bar):
        return result  # type: ignore[no-any-return]
    raise AssertionError(_graph_message(outputs, reference_outputs, result, bar))


def _runs(value: Any) -> list[Any]:
    return [value] if isinstance(value, Mapping) else list(value)


def _graph_message(outputs: Any, reference_outputs: Any, result: Any, bar: float) -> str:
    from matchevals.graph_trajectory._side_by_side import trajectory_side_by_side

    lines = [f"{result['key']} = {result['score']!r} (threshold {bar}): {result['comment']}"]
    runs, references = _runs(outputs), _runs(reference_outputs)
    for meta in result["metadata"]["runs"]:
        if meta["match"]:
            continue
        index = meta["run"]
        lines.append(f"run {index}:")
        if not meta["steps_match"]:
            lines.extend(
                trajectory_side_by_side(runs[index]["steps"], references[index]["steps"], meta)
            )
        else:
            lines.extend(_results_lines(runs[index], references[index], meta))
    return "\n".join(lines)


def _results_lines(run: Any, reference: Any, meta: Mapping[str, Any]) -> list[str]:
    from matchevals.graph_trajectory._results_check import UNEQUAL
    from matchevals.json_match._difference_table import json_differences, render_differences

    check = meta.get("results") or {}
    comment = check.get("comment")
    if comment and not comment.startswith(UNEQUAL):  # a results_evaluator's own words
        return [f"    results: {comment}"]
    groups = json_differences(run.get("results"), reference.get("results"))
    lines = ["    results differ from the reference results:"]
    return lines + ["  " + line for line in render_differences(groups)]


def assert_trajectory_match(
    outputs: Any, reference_outputs: Any, *, threshold: float = 1.0, **options: Any
) -> EvaluatorResult:
    """Assert that an agent's messages and tool calls match the reference; return the result.

    ``options`` are :func:`~matchevals.trajectory.create_trajectory_match_evaluator`'s keyword
    arguments (``trajectory_match_mode`` defaults to ``"strict"``, as there). A boolean score
    passes when True; a graded one (``score="f1"``, ``"precision"``, ``"recall"``) must reach
    ``threshold``. A failure lays the two trajectories side by side: in strict mode message by
    message, each with its tool calls; otherwise call by call, each beside its partner. Every
    failing row is marked ``>``; ``[n]`` is the index of the message in its list.

    >>> call = lambda city: {"name": "get_weather", "args": {"city": city}}
    >>> ask = {"role": "user", "content": "weather?"}
    >>> outputs = [ask, {"role": "ai", "tool_calls": [call("sf")]}]
    >>> references = [ask, {"role": "ai", "tool_calls": [call("SF")]}]
    >>> assert_trajectory_match(outputs, references)
    Traceback (most recent call last):
    ...
    AssertionError: trajectory_strict_match = False, below the threshold 1.0
        expected (reference_outputs)     actual (outputs)
        [0] user                         [0] user                         ok
      > [1] assistant                    [1] assistant                    DIFF
      >     get_weather({"city": "SF"})      get_weather({"city": "sf"})  DIFF args.city
      why:
        get_weather args.city (outputs[1].tool_calls[0] vs ...): expected "SF", got "sf"
    >>> assert_trajectory_match(outputs, references, tool_args_match_mode="ignore")["score"]
    True
    """
    from matchevals.trajectory import create_trajectory_match_evaluator

    bar = _check_threshold(threshold)
    result = create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=reference_outputs
    )
    if _passes(result, bar):
        return result
    from matchevals.trajectory._side_by_side import trajectory_lines

    raise AssertionError("\n".join(trajectory_lines(result, threshold=bar)))
