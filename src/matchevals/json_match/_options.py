"""The options of a JSON-match evaluator, validated once when the evaluator is created."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from matchevals.json_match._paths import PathRules

__all__ = [
    "Aggregator",
    "Alignment",
    "ExtraKeys",
    "JsonMatchOptions",
    "ListAggregator",
    "ListMatchMode",
    "OnJudgeError",
]

Aggregator = Literal["average", "all"]
ListAggregator = Literal["average", "all"]
ListMatchMode = Literal["superset", "subset", "same_elements", "ordered"]
Alignment = Literal["optimal", "greedy"]
ExtraKeys = Literal["penalize", "ignore"]
OnJudgeError = Literal["raise", "zero"]


def _check_choice(name: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        choices = ", ".join(repr(choice) for choice in allowed)
        raise ValueError(f"{name} must be one of {choices}; got {value!r}")


def _string_tuple(name: str, values: Iterable[Any]) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list of key names; got {type(values).__name__}")
    keys = tuple(values)
    for index, key in enumerate(keys):
        if not isinstance(key, str):
            raise TypeError(f"{name}[{index}] must be a str; got {type(key).__name__}")
    return keys


@dataclass(frozen=True)
class JsonMatchOptions:
    """Everything that decides how outputs are scored against references (no judge here)."""

    aggregator: Aggregator | None = None
    list_aggregator: ListAggregator = "all"
    rubric: tuple[tuple[str, str], ...] = ()
    exclude_keys: frozenset[str] = frozenset()
    use_reasoning: bool = True
    list_match_mode: ListMatchMode = "same_elements"
    alignment: Alignment = "optimal"
    judged_keys: frozenset[str] = frozenset()
    nested: bool = False
    list_match_modes: tuple[tuple[str, ListMatchMode], ...] = ()
    comparators: tuple[tuple[str, Any], ...] = ()
    extra_keys: ExtraKeys = "penalize"
    none_is_missing: bool = False
    judge_identical: bool = False
    on_judge_error: OnJudgeError = "raise"
    rules: PathRules | None = field(default=None, compare=False, repr=False)
    """Compiled path rules; None when no path needs a rule (the common, fast case)."""
    plain: bool = True
    """No exclusion, rubric, comparator, extra-key or null rule: scoring takes the lean path."""

    @classmethod
    def build(
        cls,
        *,
        aggregator: Any,
        list_aggregator: Any,
        rubric: Any,
        exclude_keys: Any,
        use_reasoning: Any,
        list_match_mode: Any,
        alignment: Any,
        nested: Any = False,
        list_match_modes: Any = None,
        comparators: Any = None,
        extra_keys: Any = "penalize",
        none_is_missing: Any = False,
        judge_identical: Any = False,
        on_judge_error: Any = "raise",
    ) -> JsonMatchOptions:
        """Validate user-supplied options; raise ValueError/TypeError naming the argument."""
        _check_choice("aggregator", aggregator, (None, *get_args(Aggregator)))
        _check_choice("list_aggregator", list_aggregator, get_args(ListAggregator))
        _check_choice("list_match_mode", list_match_mode, get_args(ListMatchMode))
        _check_choice("alignment", alignment, get_args(Alignment))
        _check_choice("extra_keys", extra_keys, get_args(ExtraKeys))
        _check_choice("on_judge_error", on_judge_error, get_args(OnJudgeError))
        _check_flags(
            nested=nested, none_is_missing=none_is_missing, judge_identical=judge_identical
        )
        modes = _list_modes(list_match_modes, nested)
        comparator_map = _comparators(comparators)
        rubric = _rubric(rubric)
        if not isinstance(use_reasoning, bool):
            raise TypeError(f"use_reasoning must be a bool; got {type(use_reasoning).__name__}")
        excluded = _string_tuple("exclude_keys", exclude_keys or ())
        needs_rules = bool(excluded or rubric or comparator_map or modes)
        rules = (
            PathRules(exclude=excluded, rubric=rubric, comparators=comparator_map, list_modes=modes)
            if needs_rules
            else None
        )
        return cls(
            aggregator=aggregator,
            list_aggregator=list_aggregator,
            rubric=tuple(sorted(rubric.items())),
            exclude_keys=frozenset(excluded),
            use_reasoning=use_reasoning,
            list_match_mode=list_match_mode,
            alignment=alignment,
            judged_keys=frozenset(rubric),
            nested=nested,
            list_match_modes=tuple(modes.items()),
            comparators=tuple(comparator_map.items()),
            extra_keys=extra_keys,
            none_is_missing=none_is_missing,
            judge_identical=judge_identical,
            on_judge_error=on_judge_error,
            rules=rules,
            plain=not needs_rules and extra_keys == "penalize" and not none_is_missing,
        )


def _check_flags(**flags: Any) -> None:
    for name, flag in flags.items():
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool; got {type(flag).__name__}")


def _list_modes(list_match_modes: Any, nested: bool) -> dict[str, Any]:
    modes = _pattern_map("list_match_modes", list_match_modes)
    for pattern, mode in modes.items():
        _check_choice(f"list_match_modes[{pattern!r}]", mode, get_args(ListMatchMode))
    if modes and not nested:
        raise ValueError(
            "list_match_modes applies to lists inside objects: pass nested=True as well"
        )
    return modes


def _comparators(comparators: Any) -> dict[str, Any]:
    comparator_map = _pattern_map("comparators", comparators)
    for pattern, comparator in comparator_map.items():
        if not callable(comparator):
            raise TypeError(
                f"comparators[{pattern!r}] must be a callable "
                f"(output_value, reference_value) -> bool | float; "
                f"got {type(comparator).__name__}"
            )
    return comparator_map


def _rubric(rubric: Any) -> dict[str, str]:
    if rubric is None:
        return {}
    if not isinstance(rubric, Mapping):
        raise TypeError(f"rubric must be a dict of key -> criteria; got {type(rubric).__name__}")
    for key, criteria in rubric.items():
        if not isinstance(key, str) or not isinstance(criteria, str):
            raise TypeError(f"rubric[{key!r}] must map a str key to str criteria")
    return dict(rubric)


def _pattern_map(name: str, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict of path -> value; got {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be paths (str); got {key!r}")
    return dict(value)
