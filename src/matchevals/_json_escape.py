"""The codec error handler that writes what an encoding cannot as JSON escapes.

Registered when this module is imported. Inside a JSON string, an escape is exactly the
character it replaces (``\\u00e9``; beyond the BMP a surrogate pair; a lone surrogate as
``\\ud800``), so report lines stay valid JSON in any report encoding.

>>> '"café"'.encode("ascii", JSON_ESCAPE)
b'"caf\\\\u00e9"'
"""

from __future__ import annotations

import codecs

__all__ = ["JSON_ESCAPE"]

JSON_ESCAPE = "matchevals.json_escape"


def _json_escapes(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escapes = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:  # beyond the BMP: a UTF-16 surrogate pair, as JSON writes it
            code -= 0x10000
            escapes.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escapes.append(f"\\u{code:04x}")
    return "".join(escapes), error.end


codecs.register_error(JSON_ESCAPE, _json_escapes)
