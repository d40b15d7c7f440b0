"""Explanations people read: JSON differences by path, and any result from what it carries
(graph runs side by side are in ``_explain_graph``, agent trajectories in
``_explain_trajectory``).

Pure functions on plain data, shared by :mod:`matchevals.testing`, the pytest plugin and the
command line. Nothing here scores anything: the evaluators decide, this module only shows why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._explain_graph import expected_cell, nodes_cell, verdict_mark
from matchevals._explain_trajectory import is_trajectory_result, trajectory_lines
from matchevals._values import json_equal, render

__all__ = [
    "MISSING",
    "Difference",
    "DifferenceGroup",
    "explain_result",
    "groups_from_mismatches",
    "is_evaluator_result",
    "json_differences",
    "render_differences",
]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
"""Stands for a value that one side does not have."""

_VALUE_WIDTH = 40


@dataclass(frozen=True)
class Difference:
    """One differing leaf: its path and the two values (``MISSING`` when a side lacks it)."""

    path: str
    expected: Any
    actual: Any


@dataclass(frozen=True)
class DifferenceGroup:
    """Differences of one pair of items (``title`` names the pair; None for plain objects)."""

    title: str | None
    differences: tuple[Difference, ...]


def _show(value: Any) -> str:
    return "<missing>" if value is MISSING else render(value, _VALUE_WIDTH)


def _walk(expected: Any, actual: Any, path: str) -> Iterable[Difference]:
    if json_equal(expected, actual):
        return
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in sorted({*expected, *actual}, key=str):
            yield from _walk(expected.get(key, MISSING), actual.get(key, MISSING), f"{path}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            yield from _walk(left, right, f"{path}[{index}]")
    else:
        yield Difference(path.lstrip("."), expected, actual)


def _object_differences(
    output: Mapping[str, Any], reference: Mapping[str, Any], skip: frozenset[str]
) -> tuple[Difference, ...]:
    keys = sorted(({*output, *reference} - skip), key=str)
    found: list[Difference] = []
    for key in keys:
        found.extend(_walk(reference.get(key, MISSING), output.get(key, MISSING), f".{key}"))
    return tuple(found)


def json_differences(
    outputs: Any,
    reference_outputs: Any,
    *,
    alignment: Sequence[Sequence[int | None]] | None = None,
    skip_keys: Iterable[str] = (),
) -> list[DifferenceGroup]:
    """The differing paths of outputs against references, grouped by paired list item.

    ``alignment`` is a json_match result's ``metadata["alignment"]`` (pairs by index when None);
    ``skip_keys`` are top-level keys not to show (excluded or judged keys).

    >>> [d.path for g in json_differences({"a": {"b": 1}}, {"a": {"b": 2}}) for d in g.differences]
    ['a.b']
    """
    skip = frozenset(skip_keys)
    if isinstance(outputs, Mapping) and isinstance(reference_outputs, Mapping):
        found = _object_differences(outputs, reference_outputs, skip)
        return [DifferenceGroup(None, found)] if found else []
    if not isinstance(outputs, list) or not isinstance(reference_outputs, list):
        return [DifferenceGroup(None, (Difference("", reference_outputs, outputs),))]
    if alignment is None:
        pairs: list[tuple[int | None, int | None]] = [
            (i if i < len(outputs) else None, i if i < len(reference_outputs) else None)
            for i in range(max(len(outputs), len(reference_outputs)))
        ]
    else:
        pairs = [(pair[0], pair[1]) for pair in alignment]
    groups: list[DifferenceGroup] = []
    for out_index, ref_index in pairs:
        if out_index is None and ref_index is not None:
            title = f"reference_outputs[{ref_index}] has no partner in outputs"
            only = Difference("", reference_outputs[ref_index], MISSING)
            groups.append(DifferenceGroup(title, (only,)))
        elif ref_index is None and out_index is not None:
            title = f"outputs[{out_index}] has no partner in reference_outputs"
            groups.append(DifferenceGroup(title, (Difference("", MISSING, outputs[out_index]),)))
        elif out_index is not None and ref_index is not None:
            output, reference = outputs[out_index], reference_outputs[ref_index]
            if isinstance(output, Mapping) and isinstance(reference, Mapping):
                found = _object_differences(output, reference, skip)
            else:
                found = tuple(_walk(reference, output, ""))
            if found:
                groups.append(
                    DifferenceGroup(
                        f"outputs[{out_index}] vs reference_outputs[{ref_index}]", found
                    )
                )
    return groups


def groups_from_mismatches(mismatches: Sequence[Mapping[str, Any]]) -> list[DifferenceGroup]:
    """Groups of differences from json_match's ``metadata["mismatches"]`` (the evaluator's own
    account, which knows comparators, globs and nested paths). A whole nested value that
    differs is opened up into the leaves that differ.

    >>> found = groups_from_mismatches([{"path": "a", "expected": {"b": 2}, "actual": {"b": 1}}])
    >>> [(d.path, d.expected, d.actual) for d in found[0].differences]
    [('a.b', 2, 1)]
    """
    grouped: dict[str | None, list[Difference]] = {}
    seen: set[tuple[Any, ...]] = set()
    for mismatch in mismatches:
        kind = mismatch.get("kind", "value")
        path = str(mismatch.get("path") or "")
        out_at, ref_at = mismatch.get("outputs"), mismatch.get("reference_outputs")
        identity = (path, out_at, ref_at, kind)
        if identity in seen:
            continue
        seen.add(identity)
        expected = MISSING if kind == "extra" else mismatch.get("expected")
        actual = MISSING if kind == "missing" else mismatch.get("actual")
        if kind in ("unmatched", "unmatched_value"):
            title = (
                f"{ref_at} has no partner in outputs"
                if out_at is None
                else f"{out_at} has no partner in reference_outputs"
            )
            expected, actual = (expected, MISSING) if out_at is None else (MISSING, actual)
            grouped.setdefault(title, []).append(Difference(path, expected, actual))
            continue
        pair = f"{out_at} vs {ref_at}" if out_at and ref_at else None
        bucket = grouped.setdefault(pair, [])
        if kind == "value" and path and not isinstance(mismatch.get("score"), float):
            opened = list(_walk(expected, actual, "." + path))
            if opened:
                bucket.extend(opened)
                continue
        extra = f"  ({kind}: {mismatch['reason']})" if mismatch.get("reason") else ""
        bucket.append(Difference(path + extra, expected, actual))
    return [DifferenceGroup(title, tuple(found)) for title, found in grouped.items() if found]


def render_differences(groups: Sequence[DifferenceGroup], limit: int = 20) -> list[str]:
    """Lines of a small table: path, expected, actual (at most ``limit`` rows).

    >>> print("\\n".join(render_differences(json_differences({"a": 1}, {"a": 2}))))
      path  expected  actual
      a     2         1
    """
    rows: list[tuple[str, str, str, str]] = []  # indent, path, expected, actual
    for group in groups:
        indent = "  "
        if group.title is not None:
            rows.append(("  ", group.title + ":", "", ""))
            indent = "    "
        rows.extend(
            (indent, d.path or "(whole item)", _show(d.expected), _show(d.actual))
            for d in group.differences
        )
    shown, hidden = rows[:limit], len(rows) - limit
    body = [row for row in shown if row[2] or row[3]]
    path_width = max([len("path")] + [len(r[0]) - 2 + len(r[1]) for r in body])
    expected_width = max([len("expected")] + [len(r[2]) for r in body])
    lines = [f"  {'path'.ljust(path_width)}  {'expected'.ljust(expected_width)}  actual"]
    for indent, path, expected, actual in shown:
        if not expected and not actual:
            lines.append(indent + path)
            continue
        cell = (indent[2:] + path).ljust(path_width)
        lines.append(f"  {cell}  {expected.ljust(expected_width)}  {actual}".rstrip())
    if hidden > 0:
        lines.append(f"  … and {hidden} more")
    return lines


# --------------------------------------------------------------------------------------------
# Results alone (what the pytest plugin sees)
# --------------------------------------------------------------------------------------------


def is_evaluator_result(value: Any) -> bool:
    """Whether ``value`` looks like an ``EvaluatorResult`` dict (``key`` and ``score``).

    >>> is_evaluator_result({"key": "json_match:a", "score": 0, "comment": None})
    True
    """
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("key"), str)
        and "score" in value
        and isinstance(value["score"], (bool, int, float))
    )


def explain_result(result: Mapping[str, Any]) -> list[str]:
    """Lines explaining one result from what it carries (score, comment, metadata).

    >>> explain_result({"key": "json_match:age", "score": 0, "comment": "age: expected 3, got 2"})
    ['json_match:age = 0', '  age: expected 3, got 2']
    """
    if is_trajectory_result(result):  # the messages or tool calls side by side
        return trajectory_lines(result)
    lines = [f"{result['key']} = {result['score']!r}"]
    metadata = result.get("metadata") or {}
    mismatches = metadata.get("mismatches") if isinstance(metadata, Mapping) else None
    runs = metadata.get("runs") if isinstance(metadata, Mapping) else None
    if mismatches:
        groups = groups_from_mismatches([m for m in mismatches if isinstance(m, Mapping)])
        lines.extend("  " + line for line in render_differences(groups))
    elif isinstance(runs, list):
        lines.extend(_explain_runs(runs, result.get("comment")))
    elif result.get("comment"):
        lines.extend("  " + part for part in str(result["comment"]).split("; "))
    return lines


def _explain_runs(runs: Sequence[Any], comment: Any) -> list[str]:
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
