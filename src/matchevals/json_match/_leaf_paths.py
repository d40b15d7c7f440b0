"""The leaf paths of a document (``nested=True``), for pairing list items and for the zeros of an
item without a partner.

A leaf path names a value the way results are keyed: ``address.city``, ``items[*].price``.
Objects are followed (a path with a rubric entry or a comparator stops there: the judge or the
comparator sees the whole value), excluded paths are left out.

>>> from matchevals.json_match._options import JsonMatchOptions
>>> flatten(JsonMatchOptions(), {"a": {"b": 1}, "c": [1]}, "")
{'c': [1], 'a.b': 1}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._paths import NO_RULE, child_path
from matchevals.json_match._types import MAX_DEPTH

__all__ = ["flat_key_rules", "flatten", "leaf_paths"]


def flatten(options: JsonMatchOptions, item: Mapping[str, Any], path: str) -> dict[str, Any]:
    """An item as ``{leaf path: value}`` for pairing: objects followed, lists kept whole."""
    flat: dict[str, Any] = {}
    rules = options.rules
    stack: list[tuple[Mapping[str, Any], str, int]] = [(item, path, 0)]
    while stack:
        value, prefix, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{prefix} is nested too deeply: more than {MAX_DEPTH} levels")
        if rules is None:
            for key, child in value.items():
                if child and (type(child) is dict or isinstance(child, Mapping)):
                    stack.append((child, child_path(prefix, key), depth + 1))
                else:
                    flat[child_path(prefix, key)] = child
            continue
        for key, child in value.items():
            here = child_path(prefix, key)
            rule = rules.at(here)
            if rule.excluded:
                continue
            if (
                child
                and (type(child) is dict or isinstance(child, Mapping))
                and rule.criteria is None
                and rule.comparator is None
            ):
                stack.append((child, here, depth + 1))
            else:
                flat[here] = child
    return flat


def leaf_paths(options: JsonMatchOptions, item: Any, path: str) -> list[str]:
    """The leaf paths an item would be scored under (for an unmatched item's zeros)."""
    if not isinstance(item, Mapping):
        return [path]
    found: dict[str, None] = {}
    rules = options.rules
    stack: list[tuple[Any, str, int]] = [(item, path, 0)]
    while stack:
        value, prefix, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"{prefix} is nested too deeply: more than {MAX_DEPTH} levels")
        for key, child in value.items():
            here = child_path(prefix, key)
            rule = rules.at(here) if rules is not None else NO_RULE
            if rule.excluded or (options.none_is_missing and child is None):
                continue
            stops = rule.criteria is not None or rule.comparator is not None
            if isinstance(child, Mapping) and child and not stops:
                stack.append((child, here, depth + 1))
            elif (
                type(child) is list
                and child
                and not stops
                and all(isinstance(entry, Mapping) for entry in child)
            ):
                for entry in child:
                    stack.append((entry, here + "[*]", depth + 1))
            else:
                found[here] = None
    return sorted(found) or ([path] if path else [])


def flat_key_rules(
    options: JsonMatchOptions, flat_items: tuple[dict[str, Any], ...]
) -> tuple[frozenset[str], frozenset[str], dict[str, Any] | None]:
    """Judged paths and comparators by path among flattened items (excluded ones are gone)."""
    rules = options.rules
    if rules is None:
        return frozenset(), frozenset(), None
    judged: set[str] = set()
    comparators: dict[str, Any] = {}
    for path in {path for item in flat_items for path in item}:
        rule = rules.at(path)
        if rule.criteria is not None:
            judged.add(path)
        elif rule.comparator is not None:
            comparators[path] = rule.comparator
    return frozenset(), frozenset(judged), comparators or None
