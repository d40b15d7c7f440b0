"""How a place inside a value is written, everywhere a person reads one: result keys of
``nested=True``, comments, ``metadata["mismatches"]``, error messages, pytest output, the
command line and the HTML report.

Keys join with dots (``address.city``) and list items are ``[index]``
(``outputs[2].address.city``). A key is written JSON-quoted in brackets instead (``a["x.y"]``,
``a[""]``, ``a[" name"]``, ``a["line\\n2"]``) when it is empty, holds one of ``. [ ] * "`` or a
character that is not printable (a tab, a newline), or starts or ends with a space; a key with
spaces inside (``first name``) stays bare. So distinct places keep distinct paths, and
:func:`parse_path` reads every path back into the keys and indexes it was written from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["ANY_ITEM", "Token", "child_path", "join_path", "key_path", "parse_path", "path_text"]


class _AnyItem:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ANY_ITEM"


ANY_ITEM: Any = _AnyItem()
"""The step ``[*]`` of a path as results key it: any item of a list (never a key: a key ``*`` is
written ``["*"]``)."""
Token = str | int
"""One step of a place: a key, or an index in a list (or :data:`ANY_ITEM`)."""

_SPECIAL = re.compile(r'[.\[\]*"]')
_SEGMENTS: dict[str, str] = {}
_TOKEN = re.compile(
    r'\[(?P<index>\d+)\]|(?P<star>\[\*\])|(?P<root>\[\])|\[(?P<quoted>"(?:[^"\\]|\\.)*")\]'
    r"|\.?(?P<name>[^.\[\]]+)"
)


def _segment(text: str) -> str:
    """``.key``, or ``["key"]`` for a key that would read ambiguously bare."""
    if (
        text
        and text.isprintable()
        and text[0] != " "
        and text[-1] != " "
        and not _SPECIAL.search(text)
    ):
        return "." + text
    return "[" + json.dumps(text, ensure_ascii=not text.isprintable()) + "]"


def child_path(parent: str, key: Any) -> str:
    """The path of ``key`` inside ``parent`` (the module docstring says when it is quoted).

    >>> child_path("address", "city"), child_path("a", "x.y"), child_path("", "")
    ('address.city', 'a["x.y"]', '[""]')
    >>> child_path("user", "first name"), child_path("user", "name "), child_path("", "a\\tb")
    ('user.first name', 'user["name "]', '["a\\\\tb"]')
    """
    segment = _SEGMENTS.get(key) if type(key) is str else None
    if segment is None:
        segment = _segment(key if isinstance(key, str) else str(key))
        if type(key) is str and len(_SEGMENTS) < 65_536:
            _SEGMENTS[key] = segment
    if parent:
        return parent + segment
    return segment[1:] if segment[0] == "." else segment


class _KeyPaths(dict[str, str]):
    """Top-level keys' paths, made on first use (a bounded number kept)."""

    __slots__ = ()

    def __missing__(self, key: str) -> str:
        path = child_path("", key)
        if len(self) < 65_536:
            self[key] = path
        return path


key_path: Callable[[str], str] = _KeyPaths().__getitem__
"""The path of a top-level key, ``child_path("", key)``, remembered: comments write it for
every key that differs (a dictionary lookup once seen).

>>> key_path("age"), key_path("x.y")
('age', '["x.y"]')
"""


def path_text(tokens: Iterable[Token], parent: str = "") -> str:
    """The path of keys and indexes ``tokens`` below ``parent`` (``""`` for the value itself).

    >>> path_text(["items", 2, "price"]), path_text([0, "a.b"], "outputs"), path_text([])
    ('items[2].price', 'outputs[0]["a.b"]', '')
    """
    text = parent
    for token in tokens:
        if token is ANY_ITEM:
            text += "[*]"
        else:
            text = f"{text}[{token}]" if isinstance(token, int) else child_path(text, token)
    return text


def join_path(parent: str, relative: str) -> str:
    """A path already written (``price``, ``.price``, ``[2].price``, ``["x.y"]``) placed below
    ``parent``.

    >>> join_path("outputs[0]", "lines[*].price"), join_path("outputs[0]", '["x.y"]')
    ('outputs[0].lines[*].price', 'outputs[0]["x.y"]')
    """
    if not relative or relative.startswith((".", "[")) or not parent:
        return parent + relative
    return f"{parent}.{relative}"


def parse_path(text: str) -> list[Token]:
    """The keys and indexes a path was written from; :data:`ANY_ITEM` stands for ``[*]``, and
    ``[]`` (a top-level list of plain values) for the list itself.

    >>> parse_path('outputs.items[2].price'), parse_path('a["x.y"][*]'), parse_path("[]")
    (['outputs', 'items', 2, 'price'], ['a', 'x.y', ANY_ITEM], [])
    """
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        if match["index"] is not None:
            tokens.append(int(match["index"]))
        elif match["star"]:
            tokens.append(ANY_ITEM)
        elif match["quoted"]:
            tokens.append(str(json.loads(match["quoted"])))
        elif match["name"]:
            tokens.append(match["name"])
    return tokens
