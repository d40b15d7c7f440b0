"""The options of a JSON-match evaluator, validated once when the evaluator is created."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

__all__ = ["Aggregator", "Alignment", "JsonMatchOptions", "ListAggregator", "ListMatchMode"]

Aggregator = Literal["average", "all"]
ListAggregator = Literal["average", "all"]
ListMatchMode = Literal["superset", "subset", "same_elements", "ordered"]
Alignment = Literal["optimal", "greedy"]


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
    ) -> JsonMatchOptions:
        """Validate user-supplied options; raise ValueError/TypeError naming the argument."""
        _check_choice("aggregator", aggregator, (None, *get_args(Aggregator)))
        _check_choice("list_aggregator", list_aggregator, get_args(ListAggregator))
        _check_choice("list_match_mode", list_match_mode, get_args(ListMatchMode))
        _check_choice("alignment", alignment, get_args(Alignment))
        if rubric is None:
            rubric = {}
        if not isinstance(rubric, Mapping):
            raise TypeError(
                f"rubric must be a dict of key -> criteria; got {type(rubric).__name__}"
            )
        for key, criteria in rubric.items():
            if not isinstance(key, str) or not isinstance(criteria, str):
                raise TypeError(f"rubric[{key!r}] must map a str key to str criteria")
        if not isinstance(use_reasoning, bool):
            raise TypeError(f"use_reasoning must be a bool; got {type(use_reasoning).__name__}")
        return cls(
            aggregator=aggregator,
            list_aggregator=list_aggregator,
            rubric=tuple(sorted(rubric.items())),
            exclude_keys=frozenset(_string_tuple("exclude_keys", exclude_keys or ())),
            use_reasoning=use_reasoning,
            list_match_mode=list_match_mode,
            alignment=alignment,
            judged_keys=frozenset(rubric),
        )
