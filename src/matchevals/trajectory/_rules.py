"""Which rule compares each tool's arguments: the options, validated once into rules.

``tool_args_match_mode`` names the default rule; ``tool_args_match_overrides`` gives a tool a
mode, a list of dotted keys, a matcher, a LangSmith-style evaluator or json_match options.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from matchevals.trajectory._args import BUILT_IN, ArgsRule, ArgsRules, KeyArgs, MatcherArgs
from matchevals.trajectory._json import json_match_evaluator
from matchevals.trajectory._types import ARGS_MODES

__all__ = ["build_rules"]


def build_rules(mode: Any, overrides: Any) -> ArgsRules:
    """Validate ``tool_args_match_mode`` and ``tool_args_match_overrides`` once.

    >>> rules = build_rules("exact", {"search": ["q"], "fetch": "ignore"})
    >>> rules.rule_for("search").compatible({"q": 1, "n": 2}, {"q": 1})
    True
    """
    if not isinstance(mode, str) or mode not in BUILT_IN:
        raise ValueError(
            f"Invalid tool args match mode: `{mode}`. Must be either `exact`, `ignore`, "
            "`subset`, or `superset`."
        )
    if overrides is None:
        return ArgsRules(BUILT_IN[mode])
    if not isinstance(overrides, Mapping):
        raise TypeError(
            f"tool_args_match_overrides is {type(overrides).__name__}; expected a dict of "
            "tool name -> mode, list of keys, matcher, evaluator or json_match options"
        )
    built = {}
    for tool, override in overrides.items():
        if not isinstance(tool, str):
            raise TypeError(f"tool_args_match_overrides has a key {tool!r}; tool names are str")
        built[tool] = _override_rule(tool, override)
    return ArgsRules(BUILT_IN[mode], built)


def _override_rule(tool: str, override: Any) -> ArgsRule:
    where = f"tool_args_match_overrides[{tool!r}]"
    if isinstance(override, str):
        if override not in ARGS_MODES:
            raise ValueError(f"{where} is {override!r}; a mode is one of {', '.join(ARGS_MODES)}")
        return BUILT_IN[override]
    if isinstance(override, (list, tuple)):
        if not override:
            raise ValueError(
                f"{where} is an empty list of keys; pass 'ignore' to compare no arguments"
            )
        for key in override:
            if not isinstance(key, str) or not key or any(not part for part in key.split(".")):
                raise ValueError(f"{where} has the key {key!r}; keys are dotted names like 'a.b'")
        return KeyArgs(tuple(override))
    if isinstance(override, Mapping):
        try:
            evaluator = json_match_evaluator(override)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: invalid json_match options: {error}") from None
        return MatcherArgs(evaluator, tool, keywords=True, origin=f"{where} (json_match options)")
    if callable(override):
        if _is_async(override):
            raise TypeError(
                f"{where} is an async function; argument matchers must be synchronous (use "
                "the sync json_match evaluator, not the async one)"
            )
        return MatcherArgs(override, tool, keywords=_takes_keywords(override), origin=where)
    raise TypeError(
        f"{where} is {type(override).__name__}; expected a mode, a list of dotted keys, a "
        "matcher (output_args, reference_args) -> bool, an evaluator, or json_match options"
    )


def _is_async(function: Any) -> bool:
    while isinstance(function, partial):
        function = function.func
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004 - an async __call__ counts too
    )


def _takes_keywords(function: Callable[..., Any]) -> bool:
    """Whether to call ``function(outputs=..., reference_outputs=...)``: its signature names
    both (a LangSmith-style evaluator); otherwise it is called positionally."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return all(
        name in parameters and parameters[name].kind in named
        for name in ("outputs", "reference_outputs")
    )
