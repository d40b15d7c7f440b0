"""pytest plugin (entry point ``pytest11``, active once matchevals is installed).

Two things:

* When an assertion about an evaluator result fails, the failure shows why, as the evaluator
  explained it: the differing paths with expected and actual values, each failing run's
  verdicts superstep by superstep with the first divergence, or an agent trajectory's messages
  (strict mode) or tool calls beside the reference's, each failing row marked. Supported forms::

      assert result["score"]                   # the result is a local variable of the test
      assert result["score"] >= 0.9
      assert all(r["score"] for r in results)  # a list of results in a local variable
      assert results == [...]                  # an EvaluatorResult (or a list of them) compared

  A plain ``assert`` only hands pytest the value ``False``: the result it came from is found
  among the local variables of the frame where the assertion failed, and every one of them
  scoring below 1 is explained (so keep the result in a variable; ``assert evaluator(...)[0]
  ["score"]`` has nothing to point at). Comparisons go through ``pytest_assertrepr_compare``.
  Failures raised by :mod:`matchevals.testing` already carry their explanation.

  In a project where this is unwanted, ``pytest -p no:matchevals`` turns the plugin off.

* The fixture ``graph_runs`` captures every LangGraph invocation made during the test (see
  :func:`matchevals.graph_trajectory.langgraph.capture_graph_runs`); tests using it are
  skipped when LangGraph is not installed::

      def test_agent(graph_runs):
          graph.invoke({"question": "hi"})
          assert graph_runs.trajectories[0]["steps"] == [["a"], ["b", "c"], ["d"]]
"""

from __future__ import annotations

import reprlib
from collections.abc import Generator, Iterable, Iterator, Mapping
from types import TracebackType
from typing import Any

import pytest

__all__ = ["graph_runs", "pytest_assertrepr_compare", "pytest_runtest_call"]

HEADING = "matchevals explains:"
MAX_EXPLAINED = 5


def is_evaluator_result(value: Any) -> bool:
    """Whether ``value`` looks like an ``EvaluatorResult`` dict (``key`` and ``score``)."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("key"), str)
        and "score" in value
        and isinstance(value["score"], (bool, int, float))
    )


def _failing(value: Any) -> bool:
    return is_evaluator_result(value) and float(value["score"]) < 1


def explain_result(result: Mapping[str, Any]) -> list[str]:
    """Lines explaining one result from what it carries, each package's way: an agent
    trajectory side by side, json_match's differences as a table, graph runs superstep by
    superstep, or else the comment's clauses (the packages are imported only when a result
    fails)."""
    from matchevals.trajectory._side_by_side import is_trajectory_result, trajectory_lines

    if is_trajectory_result(result):
        return trajectory_lines(result)
    lines = [f"{result['key']} = {result['score']!r}"]
    metadata = result.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    mismatches = metadata.get("mismatches")
    if mismatches:
        from matchevals.json_match._difference_table import (
            groups_from_mismatches,
            render_differences,
        )

        groups = groups_from_mismatches([m for m in mismatches if isinstance(m, Mapping)])
        lines.extend("  " + line for line in render_differences(groups))
    elif isinstance(metadata.get("runs"), list):
        from matchevals.graph_trajectory._side_by_side import runs_lines

        lines.extend(runs_lines(metadata["runs"], result.get("comment")))
    elif result.get("comment"):
        lines.extend("  " + part for part in str(result["comment"]).split("; "))
    return lines


def _results_in(name: str, value: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if _failing(value):
        yield name, value
    elif isinstance(value, (list, tuple)) and value and all(map(is_evaluator_result, value)):
        for index, item in enumerate(value):
            if _failing(item):
                yield f"{name}[{index}]", item


def _explanation(named: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The lines the plugin adds for some failing results, each under its variable name."""
    lines = [HEADING]
    for name, result in named[:MAX_EXPLAINED]:
        first, *rest = explain_result(result)
        lines.append(f"  {name}: {first}")
        lines.extend("  " + line for line in rest)
    if len(named) > MAX_EXPLAINED:
        lines.append(f"  … and {len(named) - MAX_EXPLAINED} more results below 1")
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: Any, right: Any
) -> Generator[None, list[Iterable[str]], list[Iterable[str]]]:
    """Explain a comparison in which one side is an EvaluatorResult or a list of them.

    A hook wrapper: pytest's own explanation (and any other plugin's) is computed as usual, and
    the evaluator's explanation goes right after its summary line, so pytest's truncation of long
    comparisons (without ``-vv``) keeps it.
    """
    explanations = yield
    named = [*_results_in("left", left), *_results_in("right", right)]
    if not named:
        return explanations
    lines: list[Iterable[str]] = [list(found) for found in explanations]
    first = next((index for index, found in enumerate(lines) if found), None)
    if first is None:
        return [[_summary(left, op, right), *_explanation(named)]]
    summary, *details = lines[first]  # pytest shows the first non-empty explanation
    lines[first] = [summary, *_explanation(named), *details]
    return lines


def _summary(left: Any, op: str, right: Any) -> str:
    shorten = reprlib.Repr()
    shorten.maxstring = shorten.maxother = 60
    shorten.maxlevel = 2
    return f"{shorten.repr(left)} {op} {shorten.repr(right)}"


def _innermost(tb: TracebackType | None) -> Any:
    frame = None
    while tb is not None:
        frame, tb = tb.tb_frame, tb.tb_next
    return frame


def _annotate(error: AssertionError) -> None:
    frame = _innermost(error.__traceback__)
    if frame is None or str(frame.f_globals.get("__name__", "")).startswith("matchevals."):
        return
    message = str(error.args[0]) if error.args else ""
    if HEADING in message:
        return
    named = _once(
        pair
        for name, value in frame.f_locals.items()
        if not name.startswith("@")  # pytest's assertion-rewriting temporaries
        for pair in _results_in(name, value)
    )
    if named:
        text = "\n".join(_explanation(named))
        error.args = (f"{message}\n\n{text}" if message else text, *error.args[1:])


def _once(named: Iterable[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, Mapping[str, Any]]]:
    """Each result once (``result = results[0]`` is one result under two names), under its
    own variable's name rather than an item of a list."""
    found: dict[int, tuple[str, Mapping[str, Any]]] = {}
    for name, result in named:
        known = found.get(id(result))
        if known is None or ("[" in known[0] and "[" not in name):
            found[id(result)] = (name, result)
    return list(found.values())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Add the explanation of failing evaluator results to a failed assertion's message."""
    try:
        return (yield)
    except AssertionError as error:
        _annotate(error)
        raise


@pytest.fixture
def graph_runs() -> Iterator[Any]:
    """A :class:`~matchevals.graph_trajectory.langgraph.GraphRunCapture` active for the test:
    ``graph_runs.trajectories`` lists the LangGraph invocations made so far, oldest first."""
    try:
        from matchevals.graph_trajectory.langgraph import capture_graph_runs
    except ImportError:
        pytest.skip("graph_runs needs LangGraph: pip install 'matchevals[langgraph]'")
    with capture_graph_runs() as capture:
        yield capture
