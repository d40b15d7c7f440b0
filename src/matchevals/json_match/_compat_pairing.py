"""openevals' greedy pairing of list items, at matchevals' speed (``compat="openevals"``).

openevals gives each item, in order, the first free partner with the most keys equal under
Python's ``==`` (only keys that are neither excluded nor rubric keys count). That answer is
computed here over value codes: when every counted value has a hashable stand-in that is equal
exactly when Python's ``==`` says so (``None``, bools, numbers but NaN, strings, and lists,
tuples and dicts of them: ``True``, ``1`` and ``1.0`` share one code, a tuple never equals a
list), the likeness of one item with every partner is one numpy comparison. Any other value
(NaN, objects with their own ``__eq__``) sends the evaluation through the plain loop, which asks
``==`` itself.

>>> chooser = Chooser([{"a": 1, "b": 2}], [{"a": 1.0, "b": 3}, {"a": True, "b": 2}], ())
>>> chooser.first_best(0, [0, 1])
1
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Chooser", "exact_pairs"]

_ATOMS = frozenset({str, int, float, bool, type(None)})
_ITEM_MISSING, _PARTNER_MISSING = -1, -2


class _NoStandIn(Exception):
    """A value whose equality only ``==`` itself can decide."""


def stand_in(value: Any) -> Any:
    """A hashable value equal to another's stand-in exactly when the values are ``==``."""
    kind = type(value)
    if kind in _ATOMS:
        if kind is float and value != value:
            raise _NoStandIn
        return value
    if kind is list or kind is tuple:
        return (kind is list, tuple(stand_in(item) for item in value))
    if kind is dict:
        return frozenset((key, stand_in(item)) for key, item in value.items())
    raise _NoStandIn


class Chooser:
    """Picks, for item ``index`` of ``items``, its first best partner among free ``partners``."""

    def __init__(
        self, items: Sequence[Mapping[Any, Any]], partners: Sequence[Mapping[Any, Any]],
        ignored: Collection[Any],
    ) -> None:  # fmt: skip
        self.items, self.partners, self.ignored = items, partners, ignored
        self._codes: tuple[np.ndarray, np.ndarray] | bool | None = False  # False: not yet built

    @property
    def codes(self) -> tuple[Any, Any] | None:
        """Both sides' value codes by key (None: some value has no stand-in), built once."""
        if self._codes is False:
            try:
                self._codes = self._coded()
            except (_NoStandIn, RecursionError, TypeError):
                self._codes = None
        return self._codes  # type: ignore[return-value]

    def _coded(self) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np  # loaded when items pair (as json_match's own pairing does)

        columns: dict[Any, int] = {}
        codes: dict[Any, int] = {}
        for side in (self.items, self.partners):
            for item in side:
                for key in item:
                    if key not in self.ignored:
                        columns.setdefault(key, len(columns))
        tables = []
        for side, missing in ((self.items, _ITEM_MISSING), (self.partners, _PARTNER_MISSING)):
            table = np.full((len(side), len(columns)), missing, dtype=np.int64)
            for row, item in enumerate(side):
                for key, value in item.items():
                    if key not in self.ignored:
                        table[row, columns[key]] = codes.setdefault(stand_in(value), len(codes))
            tables.append(table)
        return tables[0], tables[1]

    def _plain_likeness(self, item: Mapping[Any, Any], partner: Mapping[Any, Any]) -> int:
        return sum(
            int(item[key] == partner[key])
            for key in item
            if key in partner and key not in self.ignored
        )

    def first_best(self, index: int, free: list[int]) -> int | None:
        """openevals' choice: the first of ``free`` (kept in increasing order) with the most
        equal keys; ``None`` when nothing is free."""
        if not free:
            return None
        if self.codes is None:
            item = self.items[index]
            likeness = [self._plain_likeness(item, self.partners[other]) for other in free]
            return free[likeness.index(max(likeness))]
        mine, theirs = self.codes
        likeness = (theirs[free] == mine[index]).sum(axis=1)
        return free[int(likeness.argmax())]


def exact_pairs(
    outputs: Sequence[Mapping[Any, Any]], references: Sequence[Mapping[Any, Any]],
    ignored: Collection[Any],
) -> dict[int, int]:  # fmt: skip
    """same_elements' first pass: each output's first free reference equal to it (counted keys
    only), kept only when every item on both sides pairs."""
    if len(outputs) != len(references):
        return {}

    def counted(item: Mapping[Any, Any]) -> dict[Any, Any]:
        return {key: value for key, value in item.items() if key not in ignored}

    try:
        waiting: dict[Any, list[int]] = {}
        for index in reversed(range(len(references))):
            waiting.setdefault(stand_in(counted(references[index])), []).append(index)
        pairs = {}
        for position, output in enumerate(outputs):
            found = waiting.get(stand_in(counted(output)))
            if not found:
                return {}
            pairs[position] = found.pop()
        return pairs
    except (_NoStandIn, RecursionError, TypeError):
        return _plain_exact_pairs([counted(item) for item in outputs], [counted(item) for item in references])  # fmt: skip # noqa: E501


def _plain_exact_pairs(outputs: list[dict[Any, Any]], references: list[dict[Any, Any]]) -> dict[int, int]:  # fmt: skip # noqa: E501
    free = list(range(len(references)))
    pairs: dict[int, int] = {}
    for position, output in enumerate(outputs):
        for index in free:
            if output == references[index]:
                pairs[position] = index
                free.remove(index)
                break
    return pairs if len(pairs) == len(outputs) else {}
