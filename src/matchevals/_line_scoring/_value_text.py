"""The id key in a JSONL line's own text: the id read without parsing the line, and the JSON
text of the line's value without its id, for a report line.

Re-encoding the two values of every example costs more than scoring them, so a report line
carries the input line's own text wherever cutting it out is exact: the line as read (without
its line end), and for pairing by id, the line without its id key when that key comes first or
last in the object and appears nowhere else (not even escaped). Anything else (a byte-order
mark, a carriage return, text that is not UTF-8, an id key elsewhere) is encoded again from the
value. Either way the text decodes to the value that was scored, and every engine cuts the same
way, so reports stay byte-identical across ``--workers`` and ``--engine``.

Pairing by id, the reading process reads most reference ids the same way
(:meth:`ValueText.read_id`), so it need not parse the references to index them.

>>> cut = ValueText("id")
>>> cut(b'{"id": "a-1", "x": [1, 2]}\\n', "a-1"), cut(b'{"x":1,"id":7}\\n', 7)
('{"x": [1, 2]}', '{"x":1}')
>>> cut(b'{"x": 1, "id": 7, "y": 2}\\n', 7) is None
True
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["UNREAD", "ValueText", "encode_value"]

from matchevals.report._lines import encode_value

UNREAD: Any = object()
"""What :meth:`ValueText.read_id` gives for a line whose id it cannot read from the text."""

_PLAIN_KEY = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _no_match(text: str) -> None:
    return None


class ValueText:
    """The id ``key`` (or none) in the text of lines.

    ``cutter(line, ident)``: ``line``'s JSON text without ``key`` (whose value is ``ident``), or
    None when it cannot be cut out exactly; ``cutter.read_id(line)``: the id, or UNREAD.

    Text is searched as ``str``, with operators: on this interpreter ``b"x" in line`` and
    ``text.find(x, start)`` cost ten times what ``"x" in text`` does.
    """

    def __init__(self, key: str | None = None) -> None:
        self.key = key
        self._usable = key is None or (bool(key) and _PLAIN_KEY.issuperset(key))
        self._field = f'"{key}":'
        self._quoted = f'"{key}"'
        self._escapes = tuple({f"\\u{ord(char):04x}" for char in key or ""})
        # the key first; its value a string without escapes or an integer of up to 18 digits
        head = re.compile(
            '\\{"'
            + (key or "")
            + '": ?(?:"([^"\\\\\\x00-\\x1f]*)"|(-?(?:0|[1-9][0-9]{0,17})))(?:, ?|\\})'
        )
        self._match = head.match if key is not None and self._usable else _no_match

    def __call__(self, line: bytes, ident: Any = None) -> str | None:
        try:
            text = line.decode()
        except UnicodeDecodeError:  # lone surrogates (read with surrogatepass)
            return None
        if "\r" in text or text[:1] == "\ufeff" or not self._usable:
            return None
        match = self._match(text)
        if match is not None:  # the key first: the rest of the line is the rest of the value
            end = match.end()
            rest = text[end:]
            read = self._read(match, rest)
            if read is UNREAD or read != ident or type(read) is not type(ident):
                return None
            rest = rest.rstrip(" \t\n")
            if text[end - 1] == "}":  # the id was all the object held
                return None if rest else "{}"
            return "{" + rest
        text = text.strip(" \t\n")
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

    def read_id(self, line: bytes) -> Any:
        """The id ``line`` holds, read from its text alone, or :data:`UNREAD`.

        Read only where that is exact whatever the rest of the line holds: the key comes first,
        its value is a string without escapes or an integer of up to 18 digits, and the key
        appears nowhere else (so no later copy of it can win). The rest of the line is not
        read, so the line may still turn out not to be JSON: whoever uses it decodes it.

        >>> ValueText("id").read_id(b'{"id": "a-1", "x": [1, 2]}\\n')
        'a-1'
        >>> ValueText("id").read_id(b'{"x": 1, "id": 7}\\n') is UNREAD
        True
        """
        try:
            text = line.decode()
        except UnicodeDecodeError:
            return UNREAD
        match = self._match(text)
        return UNREAD if match is None else self._read(match, text[match.end() :])

    def _read(self, match: re.Match[str], rest: str) -> Any:
        """The id the key-first ``match`` read, unless the key appears in ``rest`` again."""
        if self._quoted in rest or ("\\u" in rest and not self._nowhere(rest)):
            return UNREAD
        return int(match[2]) if match.lastindex == 2 else match[1]

    def _nowhere(self, text: str) -> bool:
        """Whether the key cannot be a key in ``text``: not quoted there, none of its
        characters written as an escape (``\\u0069`` for ``i``)."""
        if self._quoted in text:
            return False
        if "\\u00" not in text:
            return True
        lowered = text.lower()
        return not any(escape in lowered for escape in self._escapes)
