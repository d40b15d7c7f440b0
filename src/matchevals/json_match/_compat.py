"""openevals 0.2.2's JSON match, reproduced result for result (``compat="openevals"``).

A pure computation on the values as given: Python equality (``True == 1``, no conversion),
greedy first-best pairing of list items, openevals' result keys, its scores for empty inputs,
``comment=None``. openevals names every list value ``<key>_<index>`` and reads key and index
back by splitting at the last ``_``; this module keeps that naming, so inputs whose keys hold
``_`` or are not strings score as openevals scores them. Its sync and async evaluators differ
in one place (``fill_absent``): with a key present at two or more list positions, the sync one
scores the key 0 at every other scored position, even where neither item has it.

>>> options = CompatOptions(aggregator=None, list_aggregator="all", exclude_keys=())
>>> prepared = prepare({"a": True, "b": [1]}, {"a": 1, "b": (1,)}, options, "same_elements")
>>> [(r["key"], r["score"], r["comment"]) for r in finish(prepared, {}, options)]
[('json_match:a', 1, None), ('json_match:b', 0, None)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from matchevals._types import EvaluatorResult
from matchevals.json_match._compat_pairing import Chooser, exact_pairs

__all__ = [
    "EMPTY_RECORD_KEY",
    "CompatOptions",
    "JudgedScores",
    "Prepared",
    "base_key",
    "check_inputs",
    "finish",
    "prepare",
    "reported_groups",
]

EMPTY_RECORD_KEY = "__openevals_empty_record"
"""openevals' name for a list item with no keys of its own, scored so it is not lost."""
PREFIX = "json_match"


@dataclass(frozen=True)
class CompatOptions:
    aggregator: str | None
    list_aggregator: str
    exclude_keys: tuple[Any, ...]
    rubric: Mapping[Any, str] = field(default_factory=dict)
    fill_absent: bool = True
    """The sync evaluator's rule (see the module docstring); False for the async one."""


@dataclass
class Prepared:
    """Both sides as openevals flattens them, and the exact scores decided so far."""

    outputs: dict[Any, Any]
    references: dict[Any, Any]
    scores: dict[Any, Any]
    judged: list[Any]
    """Raw keys a judge scores (rubric keys present on both sides), in openevals' order."""
    listed: bool


JudgedScores = Mapping[Any, Mapping[Any, Any]]
"""The judge's answer to each request, by the request's ``group``: verdicts by raw key, each a
bool or ``{"score": bool, "reasoning": str}``."""


def _ignored(options: CompatOptions) -> tuple[Any, ...]:
    """Keys that take no part in pairing: excluded keys and rubric keys."""
    return (*options.exclude_keys, *options.rubric)


def _put(target: dict[Any, Any], item: Mapping[Any, Any], position: int) -> None:
    for key, value in item.items():
        target[f"{key}_{position}"] = value


def _put_or_mark(target: dict[Any, Any], item: Mapping[Any, Any], position: int) -> None:
    if item:
        _put(target, item, position)
    else:
        target[f"{EMPTY_RECORD_KEY}_{position}"] = item


def _ordered(outputs: list[Any], references: list[Any]) -> tuple[dict[Any, Any], dict[Any, Any]]:
    flat_outputs: dict[Any, Any] = {}
    flat_references: dict[Any, Any] = {}
    for side, other, flat in ((outputs, references, flat_outputs), (references, outputs, flat_references)):  # fmt: skip # noqa: E501
        for position, item in enumerate(side):
            _put(flat, item, position)
            if not item and position >= len(other):
                flat[f"{EMPTY_RECORD_KEY}_{position}"] = item
    return flat_outputs, flat_references


def _superset(
    outputs: list[Any], references: list[Any], options: CompatOptions
) -> tuple[dict[Any, Any], dict[Any, Any]]:
    flat_outputs: dict[Any, Any] = {}
    flat_references: dict[Any, Any] = {}
    free = list(range(len(outputs)))
    chooser = Chooser(references, outputs, _ignored(options))
    for position, reference in enumerate(references):
        best = chooser.first_best(position, free)
        if best is None:
            _put_or_mark(flat_references, reference, position)
            continue
        _put(flat_outputs, outputs[best], position)
        _put(flat_references, reference, position)
        free.remove(best)
    return flat_outputs, flat_references


def _same_elements_or_subset(
    outputs: list[Any], references: list[Any], options: CompatOptions, *, same: bool
) -> tuple[dict[Any, Any], dict[Any, Any]]:
    flat_outputs: dict[Any, Any] = {}
    flat_references: dict[Any, Any] = {}
    exact = exact_pairs(outputs, references, _ignored(options)) if same else {}
    free = [] if exact else list(range(len(references)))
    chooser = Chooser(outputs, references, _ignored(options))
    for position, output in enumerate(outputs):
        best = exact[position] if exact else chooser.first_best(position, free)
        if best is None:
            _put_or_mark(flat_outputs, output, position)
            continue
        _put(flat_outputs, output, position)
        _put(flat_references, references[best], position)
        if not exact:
            free.remove(best)
    if same:
        for rank, index in enumerate(free):
            _put_or_mark(flat_references, references[index], len(outputs) + rank)
    return flat_outputs, flat_references


def base_key(raw_key: str) -> str:
    return raw_key[: raw_key.rfind("_")]


def _flatten(
    outputs: list[Any], references: list[Any], options: CompatOptions, mode: str
) -> tuple[dict[Any, Any], dict[Any, Any]]:
    if mode == "ordered":
        return _ordered(outputs, references)
    if mode == "superset":
        return _superset(outputs, references, options)
    return _same_elements_or_subset(outputs, references, options, same=mode == "same_elements")


def prepare(outputs: Any, references: Any, options: CompatOptions, mode: str) -> Prepared:
    """Flatten both sides as openevals does and score every exactly compared key."""
    listed = isinstance(outputs, list)
    if listed:
        outputs, references = _flatten(outputs, references, options, mode)
    scores: dict[Any, Any] = {}
    judged: list[Any] = []
    for raw_key, value in outputs.items():
        key = base_key(raw_key) if listed else raw_key
        if key in options.exclude_keys:
            continue
        if raw_key not in references:
            scores[raw_key] = 0
        elif key in options.rubric:
            judged.append(raw_key)
        else:
            scores[raw_key] = int(bool(references[raw_key] == value))
    for raw_key in references:
        key = base_key(raw_key) if listed else raw_key
        if key not in options.exclude_keys and raw_key not in outputs:
            scores[raw_key] = 0
    return Prepared(outputs, references, scores, judged, listed)


def _number(score: Any) -> float:
    return float(score["score"]) if isinstance(score, dict) else float(score)


def _combine(numbers: Sequence[float], how: str) -> float | int:
    if how == "average":
        return sum(numbers) / len(numbers)
    return 0 if any(number != 1 for number in numbers) else 1


def _by_position(scores: Mapping[Any, Any]) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for raw_key, score in scores.items():
        cut = raw_key.rfind("_")
        groups.setdefault(raw_key[cut + 1 :], {})[raw_key[:cut]] = score
    return groups


def _aggregated(scores: Mapping[Any, Any], listed: bool, options: CompatOptions) -> dict[str, Any]:
    """One score for everything (an aggregator is set), keyed ``json_match:<aggregator>``."""
    aggregator = options.aggregator
    assert aggregator is not None
    if not listed:
        numbers = [_number(score) for score in scores.values()]
        total = _combine(numbers, aggregator) if numbers else (0 if aggregator == "average" else 1)
        return {f"{PREFIX}:{aggregator}": total}
    per_item = [
        _combine([_number(score) for score in group.values()], aggregator)
        for group in _by_position(scores).values()
    ]
    if not per_item:
        total = 0 if options.list_aggregator == "average" else 1
    else:
        total = _combine(per_item, options.list_aggregator)
    return {f"{PREFIX}:{aggregator}": total}


def _across_items(scores: Mapping[Any, Any], options: CompatOptions) -> dict[str, Any]:
    """One key's scores at several list positions, combined by ``list_aggregator``."""
    values: dict[str, list[Any]] = {}
    for group in _by_position(scores).values():
        for key, score in group.items():
            values.setdefault(key, []).append(score)
    return {
        f"{PREFIX}:{key}": _combine([_number(score) for score in found], options.list_aggregator)
        for key, found in values.items()
    }


def _group_key(raw_key: Any, listed: bool) -> Any:
    if listed and "_" in raw_key and raw_key.rfind("_") > 0:
        return base_key(raw_key)
    return raw_key


def _positions(scores: Mapping[Any, Any]) -> set[int]:
    """The list positions scored exactly (a list-mode raw key always ends in ``_<position>``)."""
    return {int(raw_key[raw_key.rfind("_") + 1 :]) for raw_key in scores}


def reported_groups(prepared: Prepared) -> dict[Any, list[Any]]:
    """Raw keys by the key openevals reports them under (no aggregator), in sorted order."""
    groups: dict[Any, list[Any]] = {}
    for raw_key in {*prepared.scores, *prepared.judged}:
        groups.setdefault(_group_key(raw_key, prepared.listed), []).append(raw_key)
    return {key: groups[key] for key in sorted(groups)}


def _per_key(
    prepared: Prepared, verdicts: JudgedScores, options: CompatOptions
) -> list[tuple[str, Any]]:
    """One result per key (no aggregator), in sorted key order, as openevals reports them."""
    judged = set(prepared.judged)
    results: list[tuple[str, Any]] = []
    for key, raw_keys in reported_groups(prepared).items():
        any_judged = not judged.isdisjoint(raw_keys)
        scores = {
            raw_key: prepared.scores.get(raw_key, 0)
            for raw_key in raw_keys
            if raw_key not in judged
        }
        if any_judged:
            scores.update(verdicts.get(key, {}))
        if not (prepared.listed and len(raw_keys) > 1):
            results.append((f"{PREFIX}:{key}", next(iter(scores.values()))))
            continue
        if options.fill_absent or any_judged:
            for position in _positions(prepared.scores):
                scores.setdefault(f"{key}_{position}", 0)
        results.extend(_across_items(scores, options).items())
    return results


def _as_result(key: str, score: Any) -> EvaluatorResult:
    if isinstance(score, dict):
        if "score" not in score:
            raise ValueError(
                f"Expected a dictionary with keys 'score' and 'reasoning', but got {score}"
            )
        return {"key": key, "score": score["score"], "comment": score.get("reasoning"), "metadata": score.get("metadata")}  # fmt: skip # noqa: E501
    return {"key": key, "score": score, "comment": None, "metadata": None}


def finish(prepared: Prepared, verdicts: JudgedScores, options: CompatOptions) -> list[EvaluatorResult]:  # fmt: skip # noqa: E501
    """The results openevals returns, given the judge's verdicts on ``prepared.judged``."""
    if options.aggregator is not None:
        scores = {**prepared.scores, **verdicts.get(None, {})}
        combined = list(_aggregated(scores, prepared.listed, options).items())
    else:
        combined = _per_key(prepared, verdicts, options)
    return [_as_result(key, score) for key, score in combined]


def check_inputs(outputs: Any, references: Any) -> None:
    """Refuse, with a clear error, what openevals cannot score (it crashes on these)."""
    if isinstance(outputs, list):
        if not isinstance(references, list):
            raise ValueError("If outputs is a list, reference_outputs must also be a list")
        for name, side in (("outputs", outputs), ("reference_outputs", references)):
            for index, item in enumerate(side):
                if not isinstance(item, Mapping):
                    raise TypeError(
                        f"{name}[{index}] is {type(item).__name__}; compat='openevals' scores "
                        "what openevals scores: a dict, or a list of dicts"
                    )
        return
    for name, side in (("outputs", outputs), ("reference_outputs", references)):
        if not isinstance(side, Mapping):
            raise TypeError(
                f"{name} is {type(side).__name__}; compat='openevals' scores what openevals "
                "scores: a dict, or a list of dicts (drop compat to score JSON strings, models "
                "and other values)"
            )
