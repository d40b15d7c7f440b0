"""The JSON text of an example's values in a JSONL report line, cut from its input line.

Re-encoding the two values of every example costs more than scoring them, so a report line
carries the input line's own text wherever cutting it out is exact: the line as read (without
its line end), and for pairing by id, the line without its id key when that key comes first or
last in the object and appears nowhere else (not even escaped). Anything else (a byte-order
mark, a carriage return, text that is not UTF-8, an id key elsewhere) is encoded again from the
value. Either way the text decodes to the value that was scored, and every engine cuts the same
way, so reports stay byte-identical across ``--workers`` and ``--engine``.

>>> cut = ValueText("id")
>>> cut(b'{"id": "a-1", "x": [1, 2]}\\n', "a-1"), cut(b'{"x":1,"id":7}\\n', 7)
('{"x": [1, 2]}', '{"x":1}')
>>> cut(b'{"x": 1, "id": 7, "y": 2}\\n', 7) is None
True
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ValueText", "encode_value"]

# json.dumps(value, ensure_ascii=False, default=repr), without building an encoder per value
encode_value = json.JSONEncoder(ensure_ascii=False, default=repr).encode

_PLAIN_KEY = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


class ValueText:
    """Cuts the JSON text of values out of their lines, for one id ``key`` (or none).

    ``cutter(line, ident)``: ``line``'s JSON text without ``key`` (whose value is ``ident``), or
    None when it cannot be cut out exactly.
    """

    def __init__(self, key: str | None = None) -> None:
        self.key = key
        self._usable = key is None or (bool(key) and _PLAIN_KEY.issuperset(key))
        self._field = f'"{key}":'
        self._quoted = f'"{key}"'
        self._escapes = tuple({f"\\u{ord(char):04x}" for char in key or ""})

    def __call__(self, line: bytes, ident: Any = None) -> str | None:
        if b"\r" in line or line.startswith(b"\xef\xbb\xbf") or not self._usable:
            return None
        try:
            text = line.decode().strip(" \t\n")
        except UnicodeDecodeError:  # lone surrogates (read with surrogatepass)
            return None
        if self.key is None:
            return text
        field, value = self._field, encode_value(ident)
        for head in (f"{{{field} {value}, ", f"{{{field}{value},"):
            if text.startswith(head):
                rest = text[len(head) :]
                return "{" + rest if self._nowhere(rest) else None
        for tail in (f", {field} {value}}}", f",{field}{value}}}"):
            if text.endswith(tail):
                rest = text[: -len(tail)]
                return rest + "}" if self._nowhere(rest) else None
        return None

    def _nowhere(self, text: str) -> bool:
        """Whether the key cannot be a key in ``text``: not quoted there, none of its
        characters written as an escape (``\\u0069`` for ``i``)."""
        if self._quoted in text:
            return False
        if "\\u00" not in text:
            return True
        lowered = text.lower()
        return not any(escape in lowered for escape in self._escapes)
