"""How explanations of pattern matches list things: a few names, a few alternatives, so a
comment stays one readable sentence whatever the run holds (metadata keeps them all).

>>> names(["a", "b"]), either(["x", "y", "z"])
('a, b', 'x or y or z')
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["either", "names"]

_NAME_LIMIT = 60
_NAMES_SHOWN = 20
_ALTERNATIVES_SHOWN = 5


def names(items: Sequence[str]) -> str:
    """Names for a comment: at most ``_NAMES_SHOWN``, each cut to ``_NAME_LIMIT`` chars."""
    shown = [
        name if len(name) <= _NAME_LIMIT else name[: _NAME_LIMIT - 1] + "…"
        for name in items[:_NAMES_SHOWN]
    ]
    if len(items) > _NAMES_SHOWN:
        shown.append(f"… {len(items) - _NAMES_SHOWN} more")
    return ", ".join(shown)


def either(options: Sequence[str]) -> str:
    """``a or b or c``, at most ``_ALTERNATIVES_SHOWN`` of them (a reference with thousands of
    optional steps must not make a comment of thousands of alternatives)."""
    shown = " or ".join(options[:_ALTERNATIVES_SHOWN])
    hidden = len(options) - _ALTERNATIVES_SHOWN
    return f"{shown} or {hidden} more" if hidden > 0 else shown
