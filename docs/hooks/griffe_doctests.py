"""A griffe extension for the API reference: docstrings written for ``doctest`` and ``help()``
become Markdown.

matchevals' docstrings are plain text with doctest examples (``tests/test_doctests.py`` runs
them) and reStructuredText inline markup. Markdown reads ``>>>`` as nested block quotes and
``x[0]["score"]`` as a link, so before mkdocstrings renders a docstring:

* each doctest block (``>>>`` lines with their continuations and output) becomes a ``pycon``
  fence, its ``# doctest:`` directives removed;
* a literal block introduced by ``::`` becomes a fence;
* roles such as ``:func:`record_graph_run``` become inline code.

Loaded by ``mkdocs.yml`` (``extensions:`` of the python handler); nothing else imports it.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`~?([^`]+)`")
DIRECTIVE = re.compile(r"\s*# doctest:.*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _doctest_block(lines: list[str], start: int, out: list[str]) -> int:
    """Fence the doctest block starting at ``lines[start]``; return the index after it."""
    margin = " " * _indent(lines[start])
    out.extend(["", f"{margin}```pycon"])
    end = start
    while end < len(lines) and lines[end].strip():
        out.append(DIRECTIVE.sub("", lines[end]))
        end += 1
    out.extend([f"{margin}```", ""])
    return end


def _literal_block(lines: list[str], start: int, margin: str, out: list[str]) -> int:
    """Fence the indented block after a ``::`` line (indented by ``margin``); return the index
    after it."""
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or _indent(lines[start]) <= len(margin):
        return start
    depth = _indent(lines[start])
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= depth):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    body = [margin + line[depth:] if line.strip() else "" for line in lines[start:end]]
    out.extend(["", f"{margin}```text", *body, f"{margin}```", ""])
    return end


def _content_margin(line: str) -> str:
    """Where the text of ``line`` starts: past its indentation, and past a bullet."""
    margin = _indent(line) + (2 if line.lstrip()[:2] in ("* ", "- ") else 0)
    return " " * margin


def to_markdown(text: str) -> str:
    """A docstring's text as Markdown (``tests/docs/test_site.py`` shows what it makes)."""
    lines = ROLE.sub(r"``\1``", text).splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.lstrip().startswith(">>>"):
            index = _doctest_block(lines, index, out)
        elif line.rstrip().endswith("::"):
            out.append(line.rstrip()[:-1])
            index = _literal_block(lines, index + 1, _content_margin(line), out)
        else:
            out.append(line)
            index += 1
    return "\n".join(out)


class DoctestsAsMarkdown(griffe.Extension):
    """Rewrites every docstring of the loaded package with :func:`to_markdown`."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
