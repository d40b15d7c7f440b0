"""Per-field comparators for ``create_json_match_evaluator(comparators={path: comparator})``.

A comparator is any callable ``(output_value, reference_value) -> bool | float`` returning a score
in ``[0, 1]``: ``True``/``1`` is a match, ``False``/``0`` a miss, and a float in between gives
partial credit (list items are paired by the same scores). The evaluator calls a comparator only
for values that are not JSON-equal: equal values always score 1, so every comparator treats a
value as matching itself, and identical list items still pair by hashing alone.

The built-ins are small frozen dataclasses: picklable, comparable and printable.

>>> from matchevals.json_match import comparators as cmp
>>> cmp.numeric(abs_tol=0.01)(3.141, 3.14), cmp.text()("  Ada  LOVELACE", "ada lovelace")
(True, True)
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from matchevals._conversion import to_json
from matchevals._values import freeze, json_equal

__all__ = [
    "Comparator",
    "exact",
    "numeric",
    "one_of",
    "regex",
    "similar",
    "text",
    "unordered",
]

Comparator = Callable[[Any, Any], "bool | float"]
"""``(output_value, reference_value) -> bool | float in [0, 1]``."""

UnicodeForm = Literal["NFC", "NFD", "NFKC", "NFKD"]
_UNICODE_FORMS = ("NFC", "NFD", "NFKC", "NFKD")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class exact:
    """JSON equality (``true`` is not ``1``; ``1`` equals ``1.0``), the default for every path.

    >>> exact()(1, 1.0), exact()(True, 1)
    (True, False)
    """

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        return json_equal(output_value, reference_value)


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _as_number(value: Any, parse_strings: bool) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if parse_strings and isinstance(value, str):
        text = value.strip()
        if "_" in text:  # Python accepts "1_000"; a JSON number never has underscores
            return None
        if _INTEGER.fullmatch(text):
            return int(text)
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _close_exactly(left: int | float, right: int | float, rel_tol: float, abs_tol: float) -> bool:
    """``math.isclose`` computed on the numbers' exact values (for a whole number among them)."""
    if (type(left) is float and not math.isfinite(left)) or (
        type(right) is float and not math.isfinite(right)
    ):
        return False  # NaN and the infinities are never close to a whole number
    if not rel_tol and not abs_tol:
        return left == right  # exact for int against int and int against float alike
    exact_left, exact_right = Fraction(left), Fraction(right)
    bound = Fraction(rel_tol) * max(abs(exact_left), abs(exact_right))
    return abs(exact_left - exact_right) <= max(bound, Fraction(abs_tol))


@dataclass(frozen=True)
class numeric:
    """Numbers equal within ``abs_tol`` or ``rel_tol`` (as :func:`math.isclose`).

    Two floats compare as :func:`math.isclose` compares them. When a whole number (an ``int``)
    is involved, the comparison is exact: ``2**53 + 1`` is not ``2**53`` (nor the float
    ``2.0**53``), and integers beyond the float range compare without overflow. Booleans are
    never numbers. With ``parse_strings=True`` numeric strings such as ``"3.50"`` compare as
    numbers (``"12"`` as a whole number, ``"3.50"`` as a float); other strings never match.

    >>> numeric(rel_tol=0.01)(99.5, 100), numeric(parse_strings=True)("3.50", 3.5)
    (True, True)
    >>> numeric()(2**53 + 1, 2**53), numeric(abs_tol=1)(10**400 + 1, 10**400)
    (False, True)
    """

    abs_tol: float = 0.0
    rel_tol: float = 0.0
    parse_strings: bool = False

    def __post_init__(self) -> None:
        for name in ("abs_tol", "rel_tol"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"numeric({name}=...) must be a number; got {value!r}")
            if not 0 <= value < math.inf:
                raise ValueError(f"numeric({name}=...) must be a finite number >= 0; got {value!r}")
        if not isinstance(self.parse_strings, bool):
            raise TypeError(
                f"numeric(parse_strings=...) must be a bool; got {self.parse_strings!r}"
            )

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        left = _as_number(output_value, self.parse_strings)
        right = _as_number(reference_value, self.parse_strings)
        if left is None or right is None:
            return False
        if type(left) is float and type(right) is float:
            if math.isnan(left) or math.isnan(right):
                return math.isnan(left) and math.isnan(right)
            return math.isclose(left, right, rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        return _close_exactly(left, right, self.rel_tol, self.abs_tol)


@dataclass(frozen=True)
class text:
    """Strings equal after normalization.

    - ``case``: whether letter case matters. ``False`` (default) compares case-insensitively
      (``str.casefold``).
    - ``whitespace``: whether whitespace matters. ``False`` (default) strips both ends and
      collapses every run of whitespace to one space (``"a  b"`` matches ``" a b"``, not ``"ab"``).
    - ``unicode``: the Unicode normalization applied first (``"NFKC"`` default, ``"NFC"``,
      ``"NFD"``, ``"NFKD"``), or ``None`` for none.

    Non-strings never match (JSON-equal values have already scored 1).

    >>> text()("Ｐaris ", "paris"), text(case=True)("Paris", "paris")
    (True, False)
    """

    case: bool = False
    whitespace: bool = False
    unicode: UnicodeForm | None = "NFKC"

    def __post_init__(self) -> None:
        if self.unicode is not None and self.unicode not in _UNICODE_FORMS:
            raise ValueError(
                f"text(unicode=...) must be one of {', '.join(_UNICODE_FORMS)} or None; "
                f"got {self.unicode!r}"
            )
        for name in ("case", "whitespace"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"text({name}=...) must be a bool; got {getattr(self, name)!r}")

    def normalize(self, value: str) -> str:
        """The form in which two strings are compared."""
        if self.unicode is not None:
            value = unicodedata.normalize(self.unicode, value)
        if not self.whitespace:
            value = _WHITESPACE.sub(" ", value).strip()
        if not self.case:
            value = value.casefold()
        return value

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        if not isinstance(output_value, str) or not isinstance(reference_value, str):
            return False
        return self.normalize(output_value) == self.normalize(reference_value)


@dataclass(frozen=True)
class unordered:
    """Two lists as multisets: the fraction of items in common, ``common / max(len)``.

    Items compare as JSON values. Non-lists never match.

    >>> unordered()(["b", "a"], ["a", "b"]), unordered()(["a", "c"], ["a", "b"])
    (1.0, 0.5)
    """

    def __call__(self, output_value: Any, reference_value: Any) -> float:
        if not isinstance(output_value, (list, tuple)) or not isinstance(
            reference_value, (list, tuple)
        ):
            return 0.0
        longest = max(len(output_value), len(reference_value))
        if longest == 0:
            return 1.0
        common = Counter(map(freeze, output_value)) & Counter(map(freeze, reference_value))
        return sum(common.values()) / longest


@dataclass(frozen=True)
class one_of:
    """The output matches when it equals the reference or any of ``values`` (JSON equality).

    ``values`` go through the value-conversion policy once, as the evaluator's inputs do (an
    ``Enum`` member is its value, a date its ISO text).

    >>> one_of(["US", "United States"])("United States", "USA")
    True
    """

    values: tuple[Any, ...]
    _frozen: frozenset[Hashable] = field(init=False, repr=False, compare=False)

    def __init__(self, values: Sequence[Any]) -> None:
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, set)):
            raise TypeError(f"one_of(values) must be a list of values; got {values!r}")
        converted = tuple(
            to_json(value, f"one_of(values)[{index}]") for index, value in enumerate(values)
        )
        object.__setattr__(self, "values", converted)
        object.__setattr__(self, "_frozen", frozenset(map(freeze, converted)))

    def __reduce__(self) -> tuple[type[one_of], tuple[tuple[Any, ...]]]:
        return (one_of, (self.values,))

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        try:
            return freeze(output_value) in self._frozen
        except TypeError:
            return False


@dataclass(frozen=True)
class regex:
    """The output is a string that fully matches ``pattern`` (or equals the reference).

    The reference is not consulted beyond equality: use it for IDs, dates and formats.

    >>> regex(r"INV-\\d{4}")("INV-0042", "INV-0001")
    True
    """

    pattern: str
    flags: int = 0
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise TypeError(f"regex(pattern) must be a str; got {self.pattern!r}")
        if isinstance(self.flags, bool) or not isinstance(self.flags, int):
            raise TypeError(f"regex(flags=...) must be re flags such as re.I; got {self.flags!r}")
        try:
            compiled = re.compile(self.pattern, self.flags)
        except re.error as error:
            raise ValueError(f"regex({self.pattern!r}) is not a valid pattern: {error}") from None
        object.__setattr__(self, "_compiled", compiled)

    def __reduce__(self) -> tuple[type[regex], tuple[str, int]]:
        return (regex, (self.pattern, self.flags))

    def __call__(self, output_value: Any, reference_value: Any) -> bool:
        return isinstance(output_value, str) and self._compiled.fullmatch(output_value) is not None


@dataclass(frozen=True)
class similar:
    """String similarity (``difflib.SequenceMatcher`` ratio, 0..1) as partial credit.

    Returns the ratio when it reaches ``min_ratio`` and 0 below it. Strings are compared after
    :class:`text` normalization when ``normalize`` is given (case-insensitive by default).
    Non-strings never match.

    >>> similar(min_ratio=0.8)("Pariss", "Paris") > 0.9, similar(min_ratio=0.8)("Rome", "Paris")
    (True, 0.0)
    """

    min_ratio: float = 0.8
    normalize: text | None = text()

    def __post_init__(self) -> None:
        if isinstance(self.min_ratio, bool) or not isinstance(self.min_ratio, (int, float)):
            raise TypeError(f"similar(min_ratio=...) must be a number; got {self.min_ratio!r}")
        if not 0 <= self.min_ratio <= 1:
            raise ValueError(f"similar(min_ratio=...) must be in [0, 1]; got {self.min_ratio!r}")
        if self.normalize is not None and not isinstance(self.normalize, text):
            raise TypeError(
                f"similar(normalize=...) must be a comparators.text() or None; "
                f"got {self.normalize!r}"
            )

    def __call__(self, output_value: Any, reference_value: Any) -> float:
        if not isinstance(output_value, str) or not isinstance(reference_value, str):
            return 0.0
        if self.normalize is not None:
            output_value = self.normalize.normalize(output_value)
            reference_value = self.normalize.normalize(reference_value)
        if output_value == reference_value:
            return 1.0
        ratio = difflib.SequenceMatcher(None, output_value, reference_value).ratio()
        return ratio if ratio >= self.min_ratio else 0.0
