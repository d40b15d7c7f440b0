"""What fails in an example, read from its results' own data: json_match's
``metadata["mismatches"]`` (a path each), trajectory match's mismatches (a tool call, an
argument, a message each), turn patterns' ``metadata["divergence"]`` (the first turn the
pattern did not accept), graph runs' ``metadata["runs"][i]["verdicts"]`` (a superstep each),
and, for any other result below 1 (a judge, a graded key), the result's key. Comments are
never read.

Each failing thing gets a label that names it the same way in both runs, so two runs' sets can
be subtracted: JSON paths as the evaluator wrote them (``reference_outputs[2].price`` for list
items, named by the reference side, which both runs share), tool calls by their tool and their
place in the reference, supersteps by position.

>>> results = [{"key": "json_match:total", "score": 0,
...             "metadata": {"mismatches": [{"path": "total", "expected": 2, "actual": 1}]}}]
>>> failing(results)["json"]
{'total'}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from matchevals._scoring import result_score
from matchevals.compare._model import CATEGORIES

__all__ = ["changes", "failing"]

_INDEX = re.compile(r"\[\d+\]")
_CALL_KINDS = frozenset({"arg", "missing_arg", "extra_arg", "matcher"})
_TRAJECTORY_KINDS = _CALL_KINDS | {
    "missing_call",
    "extra_call",
    "missing_message",
    "extra_message",
    "role",
    "tool_call_count",
    "message_count",
}


def failing(results: Sequence[Mapping[str, Any]]) -> dict[str, set[str]]:
    """What fails in one scored example, by category (:data:`CATEGORIES`): only results
    scoring below 1 are read; one without data saying what failed is its key."""
    found: dict[str, set[str]] = {category: set() for category in CATEGORIES}
    for result in results:
        score = result_score(result)
        if score is None or score >= 1:
            continue
        metadata = result.get("metadata")
        itemized = False
        if isinstance(metadata, Mapping):
            mismatches = metadata.get("mismatches")
            if isinstance(mismatches, list):
                for mismatch in mismatches:
                    if isinstance(mismatch, Mapping):
                        category, label = _mismatch_label(mismatch)
                        found[category].add(label)
                        itemized = True
            divergence = metadata.get("divergence")
            if metadata.get("mode") == "pattern" and isinstance(divergence, Mapping):
                found["tool_calls"].add(f"turn {divergence.get('turn')} (pattern)")
                itemized = True
            runs = metadata.get("runs")
            if isinstance(runs, list):
                labels = set(_superstep_labels(runs))
                found["supersteps"] |= labels
                itemized = itemized or bool(labels)
        if not itemized:
            found["results"].add(str(result.get("key")))
    return found


def changes(
    base: Iterable[Sequence[Mapping[str, Any]]], new: Iterable[Sequence[Mapping[str, Any]]]
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """What fails in some trial of the new run and in no trial of the base (newly failing),
    and the other way round (now passing), by category (only those with something in them);
    each trial given by its results.

    >>> old = [[{"key": "graph", "score": 1.0, "metadata": {"runs": [{"verdicts": ["match"]}]}}]]
    >>> now = [[{"key": "graph", "score": 0.0, "metadata": {"runs": [{"verdicts": ["mismatch"]}]}}]]
    >>> changes(old, now)[0]["supersteps"]
    ('superstep 0',)
    """
    before, after = _union(base), _union(new)
    newly = {c: tuple(sorted(after[c] - before[c])) for c in CATEGORIES if after[c] - before[c]}
    fixed = {c: tuple(sorted(before[c] - after[c])) for c in CATEGORIES if before[c] - after[c]}
    return newly, fixed


def _union(trials: Iterable[Sequence[Mapping[str, Any]]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {category: set() for category in CATEGORIES}
    for results in trials:
        for category, labels in failing(results).items():
            found[category] |= labels
    return found


def _mismatch_label(mismatch: Mapping[str, Any]) -> tuple[str, str]:
    kind = mismatch.get("kind")
    if kind in _TRAJECTORY_KINDS:
        return "tool_calls", _call_label(str(kind), mismatch)
    path = mismatch.get("path")
    path = "" if path is None else str(path)
    reference, output = mismatch.get("reference_outputs"), mismatch.get("outputs")
    if isinstance(reference, str):  # an item of a list, named by the reference both runs share
        return "json", _item_path(reference, path)
    if isinstance(output, str):
        return "json", "an output item without a partner" + (f" ({path})" if path else "")
    return "json", path or "(the whole value)"


def _item_path(reference: str, path: str) -> str:
    """The path of a list item's mismatch, concrete: ``items[*].qty`` in the item at
    ``reference_outputs.items[0]`` is ``items[0].qty``; in a top-level list's item
    ``reference_outputs[2]``, ``a`` is ``reference_outputs[2].a``."""
    inner = reference.removeprefix("reference_outputs.")
    if inner != reference:
        pattern = _INDEX.sub("[*]", inner)
        if path.startswith(pattern):
            return inner + path[len(pattern) :]
    return f"{reference}.{path}" if path else reference


def _call_label(kind: str, mismatch: Mapping[str, Any]) -> str:
    name = mismatch.get("name")
    reference = mismatch.get("reference_outputs")
    at = f" ({reference})" if isinstance(reference, str) else ""
    if kind in _CALL_KINDS:
        path = mismatch.get("path")
        return f"{name} args{'.' + str(path) if path else ''}{at}"
    if kind == "missing_call":
        return f"{name} call missing{at}"
    if kind == "extra_call":  # its place in the outputs differs from run to run: named by tool
        return f"an extra {name} call"
    if kind == "extra_message":
        return f"an extra {mismatch.get('actual')} message"
    if kind == "missing_message":
        return f"message missing{at}"
    return f"{kind.replace('_', ' ')}{at}"


def _superstep_labels(runs: Sequence[Any]) -> Iterable[str]:
    """``superstep 2`` (``run 1 superstep 2`` with several runs) for every superstep that
    failed (not left unchecked), and every superstep the run fell short of."""
    many = len(runs) > 1
    for position, run in enumerate(runs):
        if not isinstance(run, Mapping):
            continue
        number = run.get("run", position)
        prefix = f"run {number} " if many else ""
        verdicts = run.get("verdicts") or []
        for step, verdict in enumerate(verdicts):
            if verdict not in ("match", "unchecked"):
                yield f"{prefix}superstep {step}"
        expected = run.get("expected_supersteps")
        least = expected.get("min") if isinstance(expected, Mapping) else None
        if isinstance(least, int):
            for step in range(len(verdicts), least):
                yield f"{prefix}superstep {step}"
        results = run.get("results")
        if isinstance(results, Mapping) and results.get("match") is False:
            yield f"{prefix}results".strip()
