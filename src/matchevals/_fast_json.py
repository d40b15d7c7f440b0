"""orjson where it reads exactly what ``json.loads`` reads (langsmith brings it on CPython;
the ``fast`` extra asks for it elsewhere).

:func:`exact_loads` is ``json.loads`` for JSON documents as bytes, read by orjson wherever
orjson gives the same value, and by ``json.loads`` everywhere else. orjson reads integers beyond
64 bits as floats, so a document holding a run of 19 or more digits goes to ``json.loads``, as
does every document orjson refuses (``NaN``, ``1e400``, a lone surrogate, a byte-order mark,
invalid JSON): for those ``json.loads`` decides, and its error says why. The parser is chosen
once, at import; ``MATCHEVALS_JSON=stdlib`` in the environment keeps ``json.loads`` alone.

Only long documents gain (a JSONL line: orjson reads a 1 KB line in a third of ``json.loads``'
time); for a short text such as a tool call's arguments, finding long digit runs costs what
orjson saves, so tool arguments are read by the standard parser.

>>> exact_loads(b'{"a": [1, 2.5, NaN], "big": 123456789012345678901}')
{'a': [1, 2.5, nan], 'big': 123456789012345678901}
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

__all__ = ["exact_loads", "orjson_used"]


def _orjson_loads() -> Callable[[bytes], Any] | None:
    if os.environ.get("MATCHEVALS_JSON") == "stdlib":
        return None
    try:
        import orjson
    except ImportError:
        return None
    orjson_loads, orjson_error, json_loads = orjson.loads, orjson.JSONDecodeError, json.loads
    digits = bytes(48 if 48 <= byte < 58 else 32 for byte in range(256))  # 0-9 kept, rest " "
    long_run = b"0" * 19  # found this way ten times faster than by a regex on a long line

    def loads(document: bytes) -> Any:
        if long_run not in document.translate(digits):
            try:
                return orjson_loads(document)
            except orjson_error:
                pass
        return json_loads(document)

    return loads


_fast = _orjson_loads()
exact_loads: Callable[[bytes], Any] = _fast or json.loads
orjson_used: bool = _fast is not None
"""Whether :func:`exact_loads` reads with orjson (installed, and not switched off)."""
