"""How a place inside a JSON value is written in results, comments and error messages.

Keys join with dots (``address.city``) unless a key is empty or holds one of ``. [ ] * "``,
which is then JSON-quoted in brackets (``a["x.y"]``), so distinct keys keep distinct paths;
list items are ``[index]`` (``outputs[2].address.city``).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["child_path"]

_SPECIAL = re.compile(r'[.\[\]*"]')
_SEGMENTS: dict[str, str] = {}


def child_path(parent: str, key: Any) -> str:
    """The path of ``key`` inside ``parent``: ``parent.key``, or ``parent["a.b"]`` when the key is
    empty or holds one of ``. [ ] * "`` (JSON-quoted, so distinct keys keep distinct paths).

    >>> child_path("address", "city"), child_path("a", "x.y"), child_path("", "")
    ('address.city', 'a["x.y"]', '[""]')
    """
    segment = _SEGMENTS.get(key) if type(key) is str else None
    if segment is None:
        text = key if isinstance(key, str) else str(key)
        if text and not _SPECIAL.search(text):
            segment = "." + text
        else:
            segment = "[" + json.dumps(text, ensure_ascii=False) + "]"
        if type(key) is str and len(_SEGMENTS) < 65_536:
            _SEGMENTS[key] = segment
    if parent:
        return parent + segment
    return segment[1:] if segment[0] == "." else segment
