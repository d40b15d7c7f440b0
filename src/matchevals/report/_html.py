"""The HTML page: one self-contained file (inline CSS, inline JS, the data as inline JSON).

It loads nothing from anywhere: a Content-Security-Policy allows only its own inline style and
script, so it works offline, from a CI artifact or an e-mail attachment alike.
"""

from __future__ import annotations

import html
import json
import math
from importlib.resources import files
from typing import Any

__all__ = ["render_page"]

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="matchevals">
<title>{title}</title>
<link rel="icon" href="data:,">
<style>
{css}
</style>
</head>
<body>
<noscript>This report draws its charts and tables with JavaScript; please enable it.</noscript>
<div id="app"></div>
<script type="application/json" id="matchevals-data">{data}</script>
<script>
{js}
</script>
</body>
</html>
"""


def _asset(name: str) -> str:
    return files("matchevals.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _finite(value: Any) -> Any:
    """The value with NaN and infinities as strings (JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _json(document: Any) -> str:
    try:
        text = json.dumps(document, ensure_ascii=False, allow_nan=False, default=repr)
    except ValueError:  # NaN or an infinity somewhere in the values
        text = json.dumps(_finite(document), ensure_ascii=False, allow_nan=False, default=repr)
    # Inside <script> only "</" could end it early; "<" as an escape is the same JSON string.
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_page(document: dict[str, Any], script: str = "report.js") -> str:
    """The page for a document built by :class:`~matchevals.report._model.ReportBuilder`
    (drawn by ``report.js``), or for another page's document drawn by its own ``script``
    (``compare.js``); the styles and the helpers every page draws with (``page.js``) are
    shared."""
    title = document["summary"].get("title") or "matchevals report"
    return _PAGE.format(
        title=html.escape(str(title)),
        css=_asset("report.css"),
        js=_asset("page.js") + "\n" + _asset(script),
        data=_json(document),
    )
