"""Paths and globs: which rule (exclude, rubric, comparator, list mode) applies at a path.

A path names a value the way results are keyed: top-level keys as they are (``city``), nested
keys joined with dots (``address.city``), list items as ``[*]`` (``items[*].price``); a top-level
list of plain values is ``[]`` and its items ``[*]``.

A pattern matches a path when it is equal to it, or as a glob: ``*`` matches any run of
characters within one dot-separated segment (``*.internal_*`` matches ``user.internal_id``;
``items[*]`` is the literal list marker, not a glob), and ``**`` matches any number of segments
(``**.internal_*`` matches ``internal_id``, ``user.internal_id`` and ``a.b.internal_id``).

When several patterns of one kind match, an exact one wins, then the first glob in the order
given. Across kinds, an excluded path is never scored, a rubric path goes to the judge, and a
comparator applies otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from matchevals._path_text import child_path, key_path

__all__ = ["PathRules", "Rule", "child_path", "is_glob", "key_path"]

LIST_MARKER = "[*]"


def is_glob(pattern: str) -> bool:
    """Whether a pattern has a ``*`` other than the list marker ``[*]``.

    >>> is_glob("items[*].id"), is_glob("*.internal_*")
    (False, True)
    """
    return "*" in pattern.replace(LIST_MARKER, "")


def _compile(pattern: str) -> re.Pattern[str]:
    # "**.**." means the same as "**.": collapsing it keeps the regex free of stacked optional
    # groups, which would backtrack exponentially on deep paths.
    while "**.**." in pattern:
        pattern = pattern.replace("**.**.", "**.")
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern.startswith(LIST_MARKER, index):
            parts.append(re.escape(LIST_MARKER))
            index += len(LIST_MARKER)
        elif pattern.startswith("**.", index):
            parts.append(r"(?:.*\.)?")
            index += 3
        elif pattern.startswith(".**", index) and index + 3 == len(pattern):
            parts.append(r"(?:\..*)?")
            index += 3
        elif pattern.startswith("**", index):
            parts.append(".*")
            index += 2
        elif pattern[index] == "*":
            parts.append(r"[^.]*")
            index += 1
        else:
            parts.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(parts), re.DOTALL)


class Rule(NamedTuple):
    """What applies at one path."""

    excluded: bool = False
    criteria: str | None = None
    comparator: Any = None
    list_mode: str | None = None


NO_RULE = Rule()


class _Kind:
    """Exact paths and globs of one kind of rule."""

    __slots__ = ("exact", "globs")

    def __init__(self, entries: Mapping[str, Any]) -> None:
        self.exact: dict[str, Any] = {}
        self.globs: list[tuple[re.Pattern[str], Any]] = []
        for pattern, value in entries.items():
            self.exact[pattern] = value
            if is_glob(pattern):
                self.globs.append((_compile(pattern), value))

    def find(self, path: str) -> Any:
        if path in self.exact:
            return self.exact[path]
        for compiled, value in self.globs:
            if compiled.fullmatch(path):
                return value
        return None


class PathRules:
    """Every path rule of one evaluator, compiled once; lookups are cached per path.

    ``rules.at(path)`` is the :class:`Rule` at ``path``: a dictionary lookup once the path has
    been seen (the scoring loops call it for every key and leaf).

    >>> rules = PathRules(exclude=["*.internal_*"], rubric={}, comparators={}, list_modes={})
    >>> rules.at("user.internal_id").excluded, rules.at("user.name").excluded
    (True, False)
    """

    __slots__ = ("_comparators", "_exclude", "_list_modes", "_rubric", "at", "has_globs")

    def __init__(
        self,
        *,
        exclude: tuple[str, ...] | frozenset[str],
        rubric: Mapping[str, str],
        comparators: Mapping[str, Any],
        list_modes: Mapping[str, str],
    ) -> None:
        self._exclude = _Kind(dict.fromkeys(exclude, True))
        self._rubric = _Kind(rubric)
        self._comparators = _Kind(comparators)
        self._list_modes = _Kind(list_modes)
        self.has_globs = any(
            kind.globs
            for kind in (self._exclude, self._rubric, self._comparators, self._list_modes)
        )
        self.at: Callable[[str], Rule] = _RuleCache(self.find).__getitem__

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (
                tuple(self._exclude.exact),
                self._rubric.exact,
                self._comparators.exact,
                self._list_modes.exact,
            ),
        )

    def find(self, path: str) -> Rule:
        """The rule at ``path``, looked up (uncached: use :attr:`at`)."""
        rule = Rule(
            excluded=bool(self._exclude.find(path)),
            criteria=self._rubric.find(path),
            comparator=self._comparators.find(path),
            list_mode=self._list_modes.find(path),
        )
        return NO_RULE if rule == NO_RULE else rule


class _RuleCache(dict[str, Rule]):
    """Rules by path, filled on first lookup (up to a bound, so memory stays small)."""

    __slots__ = ("_find",)
    _LIMIT = 1 << 16

    def __init__(self, find: Callable[[str], Rule]) -> None:
        super().__init__()
        self._find = find

    def __missing__(self, path: Any) -> Rule:
        if type(path) is not str:  # a non-JSON key (an int, say): match its text, never cached
            return self._find(str(path))
        rule = self._find(path)
        if len(self) < self._LIMIT:
            self[path] = rule
        return rule


def _rebuild(
    exclude: tuple[str, ...],
    rubric: Mapping[str, str],
    comparators: Mapping[str, Any],
    list_modes: Mapping[str, str],
) -> PathRules:
    return PathRules(exclude=exclude, rubric=rubric, comparators=comparators, list_modes=list_modes)
