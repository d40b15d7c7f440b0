"""Graph runs explained for people: a run beside its reference, superstep by superstep, and a
result's failing runs from its metadata alone.

References are read with the matchers' own reference model (``graph_trajectory._reference``),
so a run is shown exactly as it was matched. Pure functions on plain data, shared by
:mod:`matchevals.testing`, the pytest plugin, the command line's demo and the HTML report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.graph_trajectory._reference import Loop, Step, read_reference

__all__ = [
    "TrajectoryRow",
    "expected_cell",
    "nodes_cell",
    "runs_lines",
    "trajectory_rows",
    "trajectory_side_by_side",
    "verdict_mark",
]

_INDEX = re.compile(r"\.(?:steps|repeat)\[(\d+)\]")


def nodes_cell(nodes: Sequence[str]) -> str:
    return "[" + ", ".join(nodes) + "]"


def _cell(nodes: Sequence[Any], mode: str, optional: bool) -> str:
    text = nodes_cell([str(node) for node in nodes])
    if mode != "unordered":
        text += f" {mode}"
    return text + (" optional" if optional else "")


def _step_cell(step: Step) -> str:
    """``[a, b]``, ``[a, b] exact``, ``[t] optional``."""
    return _cell(step.nodes, step.mode, step.optional)


def _reference_cell(element: Step | Loop[Step]) -> str:
    """A step's cell, or ``repeat([a], [t]) ×1..`` for a Repeat."""
    if isinstance(element, Step):
        return _step_cell(element)
    inner = ", ".join(_step_cell(step) for step in element.body)
    return f"repeat({inner}) ×{element.min}..{'' if element.max is None else element.max}"


def _resolve(elements: Sequence[Step | Loop[Step]], path: str) -> Step | Loop[Step]:
    """The reference element a path like ``reference_outputs.steps[0].steps[1]`` names."""
    element: Step | Loop[Step] | None = None
    container: Sequence[Step | Loop[Step]] = elements
    for index in (int(match) for match in _INDEX.findall(path)):
        element = container[index]
        if isinstance(element, Loop):
            container = element.body
    assert element is not None
    return element


def verdict_mark(verdict: str | None) -> str:
    return {"match": "ok", "mismatch": "DIFF", "skipped": "skip"}.get(verdict or "", "")


@dataclass(frozen=True)
class TrajectoryRow:
    """One superstep of a run beside what its reference expected there.

    ``expected`` is the reference cell as text (``[a, b] exact``, ``repeat(...) ×1..``, ``[a] or
    [b]``, ``—`` for nothing); ``expected_nodes`` and ``mode`` describe it when it is one step;
    ``actual`` is None past the end of the run; ``verdict`` is the matcher's (``match``,
    ``mismatch``, ``extra``, ``unchecked``) or None where it gave none.
    """

    superstep: int
    expected: str
    expected_nodes: tuple[str, ...] | None
    mode: str | None
    actual: tuple[str, ...] | None
    verdict: str | None
    first_divergence: bool


def _step_parts(element: Step | Loop[Step]) -> tuple[tuple[str, ...] | None, str | None]:
    """A step's nodes and mode (None for a Repeat, which is no single step)."""
    if isinstance(element, Loop):
        return None, None
    return tuple(str(node) for node in element.nodes), element.mode


def _alternatives(
    alternatives: Sequence[Mapping[str, Any]],
) -> tuple[str, tuple[str, ...] | None, str | None]:
    """What a divergence expected: ``[a] or [b]``, and the nodes and mode when it is one step."""
    text = " or ".join(expected_cell(e) for e in alternatives)
    if len(alternatives) != 1:
        return text, None, None
    only = alternatives[0]
    return text, tuple(str(n) for n in only["steps"]), str(only["match_mode"])


def trajectory_rows(
    run_steps: Sequence[Sequence[str]],
    reference_steps: Sequence[Any],
    run_metadata: Mapping[str, Any],
) -> list[TrajectoryRow]:
    """The run and its reference superstep by superstep, as data (what
    :func:`trajectory_side_by_side` prints, and the HTML report draws as a swimlane).

    >>> meta = {"verdicts": ["match", "mismatch"], "divergence": {"superstep": 1}}
    >>> [(r.expected, r.actual, r.verdict, r.first_divergence)
    ...  for r in trajectory_rows([["a"], ["b"]], [["a"], ["b", "c"]], meta)]
    [('[a]', ('a',), 'match', False), ('[b, c]', ('b',), 'mismatch', True)]
    """
    divergence = run_metadata.get("divergence") or {}
    diverged_at = divergence.get("superstep")
    verdicts: Sequence[str] = run_metadata.get("verdicts") or ()
    alignment = run_metadata.get("alignment")
    elements = read_reference({"steps": list(reference_steps)}, "reference_outputs").elements
    cells: list[tuple[str, tuple[str, ...] | None, str | None, tuple[str, ...] | None]] = []
    if alignment is None:  # plain reference: superstep i against reference step i
        for index in range(max(len(run_steps), len(elements))):
            if index < len(elements):
                nodes, mode = _step_parts(elements[index])
                expected = _reference_cell(elements[index])
            else:
                nodes, mode, expected = None, None, "—"
            actual = tuple(run_steps[index]) if index < len(run_steps) else None
            cells.append((expected, nodes, mode, actual))
    else:  # pattern: each superstep against the reference step it was aligned with
        for index, steps in enumerate(run_steps):
            path = alignment[index] if index < len(alignment) else None
            nodes, mode = None, None
            if index == diverged_at and divergence.get("expected"):
                expected, nodes, mode = _alternatives(divergence["expected"])
            elif path is None:
                expected = "—"
            else:
                element = _resolve(elements, path)
                nodes, mode = _step_parts(element)
                expected = _reference_cell(element)
            cells.append((expected, nodes, mode, tuple(steps)))
        if diverged_at is not None and diverged_at >= len(run_steps):
            expected, nodes, mode = _alternatives(divergence.get("expected") or ())
            cells.append((expected or "—", nodes, mode, None))
    return [
        TrajectoryRow(
            superstep=index,
            expected=expected,
            expected_nodes=nodes,
            mode=mode,
            actual=actual,
            verdict=verdicts[index] if index < len(verdicts) else None,
            first_divergence=index == diverged_at,
        )
        for index, (expected, nodes, mode, actual) in enumerate(cells)
    ]


def trajectory_side_by_side(
    run_steps: Sequence[Sequence[str]],
    reference_steps: Sequence[Any],
    run_metadata: Mapping[str, Any],
) -> list[str]:
    """The run and its reference superstep by superstep; ``>`` marks the first divergence.

    ``run_metadata`` is one entry of a ``graph_trajectory_match`` result's ``metadata["runs"]``.

    >>> meta = {"verdicts": ["match", "mismatch"], "divergence": {"superstep": 1}}
    >>> print("\\n".join(trajectory_side_by_side([["a"], ["b"]], [["a"], ["b", "c"]], meta)))
        superstep  expected  actual
        0          [a]       [a]     ok
      > 1          [b, c]    [b]     DIFF  <- first divergence
    """
    rows = trajectory_rows(run_steps, reference_steps, run_metadata)
    texts = [
        (str(row.superstep), row.expected, "—" if row.actual is None else nodes_cell(row.actual))
        for row in rows
    ]
    header = ("superstep", "expected", "actual")
    widths = [
        max(len(title), *(len(text[column]) for text in texts))
        for column, title in enumerate(header)
    ]
    lines = ["    " + "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for cells, row in zip(texts, rows, strict=True):
        marker = "  > " if row.first_divergence else "    "
        verdict = verdict_mark(row.verdict)
        if row.first_divergence and not verdict:
            verdict = "DIFF"
        text = "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))
        note = "  <- first divergence" if row.first_divergence else ""
        lines.append(f"{marker}{text}  {verdict}{note}".rstrip())
    return lines


def expected_cell(expected: Mapping[str, Any]) -> str:
    return _cell(expected["steps"], expected["match_mode"], False)


def runs_lines(runs: Sequence[Any], comment: Any) -> list[str]:
    """A graph result's failing runs from its ``metadata["runs"]`` alone: each run's verdict per
    superstep and its first divergence (what the pytest plugin shows without the values).

    >>> print("\\n".join(runs_lines([{"run": 0, "match": False, "supersteps": 2,
    ...     "expected_supersteps": {"min": 2, "max": 2}, "verdicts": ["match", "mismatch"],
    ...     "divergence": {"superstep": 1, "actual": ["c"],
    ...                    "expected": [{"steps": ["b"], "match_mode": "unordered"}]}}], None)))
      run 0: 2 supersteps (2 expected); per superstep 0:ok 1:DIFF
        first divergence at superstep 1: expected [b], got [c]
    """
    lines = [f"  {comment}"] if comment else []
    for run in runs:
        if not isinstance(run, Mapping) or run.get("match", True):
            continue
        verdicts = run.get("verdicts") or []
        cells = " ".join(
            f"{index}:{verdict_mark(verdict)}" for index, verdict in enumerate(verdicts)
        )
        expected = run.get("expected_supersteps") or {}
        low, high = expected.get("min"), expected.get("max")
        span = f"{low}" if low == high else f"{low}..{'' if high is None else high}"
        lines.append(
            f"  run {run.get('run')}: {run.get('supersteps')} supersteps ({span} expected); "
            f"per superstep {cells or '(none)'}"
        )
        divergence = run.get("divergence")
        if isinstance(divergence, Mapping):
            expected_cells = " or ".join(expected_cell(e) for e in divergence.get("expected") or ())
            actual = divergence.get("actual")
            lines.append(
                f"    first divergence at superstep {divergence.get('superstep')}: "
                f"expected {expected_cells or '(nothing more)'}, "
                f"got {'(run ended)' if actual is None else nodes_cell(actual)}"
            )
    return lines
