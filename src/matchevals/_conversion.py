"""The value-conversion policy: every Python value an evaluator is given becomes JSON data first.

matchevals compares JSON values. Whatever a user passes (outputs, references, tool arguments,
graph results) goes through :func:`to_json` once, at the edge, so a value reads the same at
every depth and in every evaluator:

- ``dict`` with ``str`` keys, ``list``, ``str``, ``int``, ``float`` (NaN and the infinities
  included), ``bool``, ``None``: themselves. The same object comes back when nothing inside needs
  converting; a container with something to convert is rebuilt, never mutated.
- ``tuple`` and subclasses of ``list`` or ``tuple`` (named tuples too): a list.
- ``set``, ``frozenset``: a list sorted by each item's JSON text, so a set always gives the same
  list (compare it with an order-free list mode, or against a sorted reference).
- other mappings: a dict. Keys that are not strings become their JSON text: ``1`` -> ``"1"``,
  ``1.5`` -> ``"1.5"``, ``True`` -> ``"true"``, ``None`` -> ``"null"``; other keys are converted
  and kept when they become a string (an ``Enum`` with a string value, a date, a UUID). Two keys
  that become the same string are a ``ValueError``.
- a pydantic model: its fields (``model.model_dump()``), each converted as everything else.
- a dataclass instance: a dict of its fields, each converted.
- an ``Enum`` member: its ``value``, converted. ``str``, ``int``, ``float`` subclasses: the plain
  ``str``, ``int``, ``float``.
- numpy scalars and arrays: ``.item()`` and ``.tolist()``, converted (``numpy.bool_`` is a bool).
- any other value pydantic can write as JSON: what pydantic's JSON mode writes. Dates and times
  as ISO 8601 (``"2024-05-01"``, ``"2024-05-01T12:00:00Z"``, ``"P1DT3S"``), ``Decimal`` as its
  text (``"1.50"``), ``UUID``, paths, IP addresses and URLs as strings, ``bytes`` as UTF-8 text
  (a ``ValueError`` when they are not).
- anything else (``complex``, classes, iterators, objects pydantic does not know): a
  ``TypeError``. A value that contains itself, or one nested too deeply for Python's recursion
  limit (several hundred levels): a ``ValueError``.

Every error names the argument and the path (``outputs.items[2].price: a value of type ...``).

Strings are never parsed here (the json_match edge parses a top-level string as JSON text).

>>> import dataclasses, datetime
>>> @dataclasses.dataclass
... class Visit:
...     day: datetime.date
...     tags: frozenset[str]
>>> to_json({"visit": Visit(datetime.date(2024, 5, 1), frozenset({"b", "a"}))}, "outputs")
{'visit': {'day': '2024-05-01', 'tags': ['a', 'b']}}
"""

from __future__ import annotations

import dataclasses
import enum
import ipaddress
import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from matchevals._path_text import child_path

__all__ = ["to_json"]

_SCALARS = frozenset({str, int, float, bool, type(None)})
_IP_TYPES = (
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
    ipaddress.IPv4Interface,
    ipaddress.IPv6Interface,
)


def to_json(value: Any, name: str) -> Any:
    """``value`` as JSON data under the policy above; ``name`` (``"outputs"``) starts the path
    that errors name (``outputs.visit.day``).

    >>> to_json({"n": (1, 2), 3: None}, "outputs")
    {'n': [1, 2], '3': None}
    """
    try:
        return value if _is_json(value) else _convert(value)
    except _Refused as refused:
        raise refused.error(name) from refused.__cause__
    except RecursionError:
        where = _cycle(value, name)
        if where is None:
            raise ValueError(f"{name}: nested too deeply to compare") from None
        raise ValueError(f"{where}: the value contains itself, which JSON cannot") from None


def _is_json(value: Any) -> bool:
    """Whether ``value`` is JSON data already (the common case, checked without copying)."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind not in _SCALARS and not ((kind is dict or kind is list) and _is_json(item)):
                return False
        return True
    if kind is list:
        for item in value:
            kind = type(item)
            if kind not in _SCALARS and not ((kind is dict or kind is list) and _is_json(item)):
                return False
        return True
    return kind in _SCALARS


class _Refused(Exception):
    """A value the policy refuses; its path is collected on the way out of the walk."""

    def __init__(self, kind: type[Exception], message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.segments: list[Any] = []

    def error(self, name: str) -> Exception:
        path = name
        for segment in reversed(self.segments):
            path = f"{path}[{segment}]" if type(segment) is int else child_path(path, segment)
        return self.kind(f"{path}: {self.message}")


def _convert(value: Any) -> Any:
    """``value`` converted; its containers are new ones, whatever they hold."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return _object(value)
    if isinstance(value, (list, tuple)):
        return _array(value)
    return _convert_other(value)


def _object(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in mapping.items():
        text = _key_text(key)
        if text in result:
            original = next(k for k in mapping if k is not key and _key_text(k) == text)
            raise _Refused(
                ValueError, f"the keys {original!r} and {key!r} are both {text!r} in JSON"
            )
        try:
            result[text] = _convert(item)
        except _Refused as refused:
            refused.segments.append(text)
            raise
    return result


def _key_text(key: Any) -> str:
    """A key as JSON writes it: strings as they are, numbers, booleans and null as their JSON
    text; other keys converted, and kept when they become one of those."""
    converted = _convert(key)
    if type(converted) is str:
        return converted
    if type(converted) in _SCALARS:
        return json.dumps(converted)
    raise _Refused(TypeError, f"the key {key!r} has no JSON form (object keys are strings)")


def _array(items: Iterable[Any]) -> list[Any]:
    converted = []
    for position, item in enumerate(items):
        try:
            converted.append(_convert(item))
        except _Refused as refused:
            refused.segments.append(position)
            raise
    return converted


def _convert_other(value: Any) -> Any:
    """Everything that is not a mapping, a list, a tuple or a JSON scalar."""
    if isinstance(value, enum.Enum):
        return _convert(value.value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, (set, frozenset)):
        return sorted(_array(value), key=_sort_key)
    if isinstance(value, (type, complex, Iterator)):
        raise _Refused(TypeError, _NO_JSON_FORM.format(type(value).__name__))
    numpy = sys.modules.get("numpy")  # a numpy value exists only once numpy is imported
    if numpy is not None and isinstance(value, (numpy.generic, numpy.ndarray)):
        return _convert(value.item() if isinstance(value, numpy.generic) else value.tolist())
    if callable(getattr(value, "model_dump", None)):  # a pydantic model
        return _model_fields(value)
    if isinstance(value, _IP_TYPES):  # as pydantic writes them (its older versions refuse them)
        return str(value)
    if dataclasses.is_dataclass(value):
        return _object(
            {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
        )
    return _as_pydantic_does(value)


_NO_JSON_FORM = (
    "a value of type {} has no JSON form; convert it to JSON data (objects, lists, strings, "
    "numbers, booleans, null) before comparing"
)


def _model_fields(model: Any) -> dict[str, Any]:
    """A pydantic model's fields as pydantic dumps them, then converted like any other value."""
    try:
        fields = model.model_dump()
    except Exception as error:
        raise _Refused(
            TypeError, f"pydantic cannot dump this {type(model).__name__} model: {error}"
        ) from error
    return _object(fields)


def _as_pydantic_does(value: Any) -> Any:
    """The JSON form pydantic's JSON mode gives a value it knows (dates and times, Decimal,
    UUID, paths, IP addresses, URLs, bytes as UTF-8 text, ...), or a refusal."""
    from pydantic_core import PydanticSerializationError, to_jsonable_python

    try:
        converted = to_jsonable_python(value)
    except UnicodeDecodeError:
        raise _Refused(ValueError, "bytes that are not UTF-8 text have no JSON form") from None
    except PydanticSerializationError:
        raise _Refused(TypeError, _NO_JSON_FORM.format(type(value).__name__)) from None
    return _convert(converted)


def _sort_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False)


def _cycle(value: Any, name: str) -> str | None:
    """The path of the first container found inside itself, or None (then it is just deep)."""
    inside: set[int] = set()  # the containers on the path from the root to the current one
    stack: list[tuple[Any, str, bool]] = [(value, name, False)]
    while stack:
        current, path, leaving = stack.pop()
        if leaving:
            inside.discard(id(current))
            continue
        children = _children(current, path)
        if children is None:
            continue
        if id(current) in inside:
            return path
        inside.add(id(current))
        stack.append((current, path, True))
        stack.extend((child, where, False) for child, where in reversed(children))
    return None


def _children(value: Any, path: str) -> list[tuple[Any, str]] | None:
    if isinstance(value, Mapping):
        return [(item, child_path(path, str(key))) for key, item in value.items()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            (getattr(value, f.name), child_path(path, f.name)) for f in dataclasses.fields(value)
        ]
    return None
