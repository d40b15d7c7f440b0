"""A json_match result's differences as a table people read: path, expected, actual.

Shown by :func:`matchevals.testing.assert_json_match` and, from a result alone, by the pytest
plugin. Nothing here scores anything: the rows come from the result's own
``metadata["mismatches"]`` (:func:`groups_from_mismatches`) or, for an assertion that has both
values, from walking them (:func:`json_differences`), with :mod:`matchevals._differences`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._differences import (
    ABSENT,
    UNPAIRED_KINDS,
    Kind,
    actual_is_absent,
    expected_is_absent,
    shown_pair,
    walk,
)
from matchevals._path_text import child_path, path_text
from matchevals._values import render

__all__ = [
    "Difference",
    "DifferenceGroup",
    "groups_from_mismatches",
    "json_differences",
    "render_differences",
]

_VALUE_WIDTH = 40


@dataclass(frozen=True)
class Difference:
    """One differing leaf: its path and the two values (``ABSENT`` when a side lacks it)."""

    path: str
    expected: Any
    actual: Any


@dataclass(frozen=True)
class DifferenceGroup:
    """Differences of one pair of items (``title`` names the pair; None for plain objects)."""

    title: str | None
    differences: tuple[Difference, ...]


def _shown(expected: Any, actual: Any) -> tuple[str, str]:
    if expected is ABSENT or actual is ABSENT:
        return (
            "<missing>" if expected is ABSENT else render(expected, _VALUE_WIDTH),
            "<missing>" if actual is ABSENT else render(actual, _VALUE_WIDTH),
        )
    return shown_pair(expected, actual, _VALUE_WIDTH)


def _walked(expected: Any, actual: Any, path: str) -> list[Difference]:
    return [Difference(path_text(at, path), e, a) for at, e, a in walk(expected, actual)]


def _object_differences(
    output: Mapping[str, Any], reference: Mapping[str, Any], skip: frozenset[str]
) -> tuple[Difference, ...]:
    keys = sorted(({*output, *reference} - skip), key=str)
    found: list[Difference] = []
    for key in keys:
        found.extend(
            _walked(reference.get(key, ABSENT), output.get(key, ABSENT), child_path("", key))
        )
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

    >>> [(g.title, d.path) for g in json_differences({"a": {"x.y": 1}}, {"a": {"x.y": 2}})
    ...  for d in g.differences]
    [(None, 'a["x.y"]')]
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
            only = Difference("", reference_outputs[ref_index], ABSENT)
            groups.append(DifferenceGroup(title, (only,)))
        elif ref_index is None and out_index is not None:
            title = f"outputs[{out_index}] has no partner in reference_outputs"
            groups.append(DifferenceGroup(title, (Difference("", ABSENT, outputs[out_index]),)))
        elif out_index is not None and ref_index is not None:
            output, reference = outputs[out_index], reference_outputs[ref_index]
            if isinstance(output, Mapping) and isinstance(reference, Mapping):
                found = _object_differences(output, reference, skip)
            else:
                found = tuple(_walked(reference, output, ""))
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
        kind = str(mismatch.get("kind") or Kind.VALUE)
        path = str(mismatch.get("path") or "")
        out_at, ref_at = mismatch.get("outputs"), mismatch.get("reference_outputs")
        identity = (path, out_at, ref_at, kind)
        if identity in seen:
            continue
        seen.add(identity)
        expected = ABSENT if expected_is_absent(kind) else mismatch.get("expected")
        actual = ABSENT if actual_is_absent(kind) else mismatch.get("actual")
        if kind in UNPAIRED_KINDS:
            title = (
                f"{ref_at} has no partner in outputs"
                if out_at is None
                else f"{out_at} has no partner in reference_outputs"
            )
            expected, actual = (expected, ABSENT) if out_at is None else (ABSENT, actual)
            grouped.setdefault(title, []).append(Difference(path, expected, actual))
            continue
        pair = f"{out_at} vs {ref_at}" if out_at and ref_at else None
        bucket = grouped.setdefault(pair, [])
        if kind == Kind.VALUE and path and not isinstance(mismatch.get("score"), float):
            opened = _walked(expected, actual, path)
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
            (indent, d.path or "(whole item)", *_shown(d.expected, d.actual))
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
