"""The documentation's pages as test material: which pages there are, and how their examples run.

Sybil reads each page and gives its examples in order, sharing one namespace per page:

* a ```` ```python ```` block runs as a script; one holding ``>>>`` prompts runs as a doctest,
  so the output it shows is checked (``...`` matches anything, whitespace is normalized);
* a fence with a title, ```` ```json title="outputs.jsonl" ````, is a file the reader is asked to
  make: its text is written under that name in the page's working folder;
* a ```` ```console ```` block holds shell commands after ``$ ``; each runs with ``bash`` in the
  page's folder and must exit 0, and the lines after it are its expected output, checked as a
  doctest's;
* ``<!-- skip: next -->`` before a block keeps it from running (for the few that need a real
  model or a network); ``tests/docs/test_examples_in_docs.py`` counts them.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
TITLED_FENCE = re.compile(
    r'^```(?P<language>[\w+-]+) title="(?P<name>[^"]+)"\n(?P<text>.*?)^```$', re.M | re.S
)
CONSOLE_FENCE = re.compile(r"^```console\n(?P<text>.*?)^```$", re.M | re.S)
FENCE_LANGUAGE = re.compile(r"^```(\S*)", re.M)
SKIP = re.compile(r"<!--\s*skip:\s*next")


def pages() -> list[Path]:
    """README.md and every Markdown page of the site, in a stable order."""
    return [README, *sorted(path for path in DOCS.rglob("*.md") if "hooks" not in path.parts)]


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _write_file(example: Example) -> None:
    name, text = example.parsed
    Path(name).parent.mkdir(parents=True, exist_ok=True)
    Path(name).write_text(text, encoding="utf-8")


def titled_files(document: Document) -> Iterator[Region]:
    for match in TITLED_FENCE.finditer(document.text):
        yield Region(match.start(), match.end(), (match["name"], match["text"]), _write_file)


def _commands(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block."""
    commands: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    return [(command, "\n".join(lines).strip()) for command, lines in commands]


def run_command(command: str) -> subprocess.CompletedProcess[str]:
    """One shell command as a reader would type it, with this interpreter's scripts first on
    ``PATH`` and a fixed terminal width."""
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "COLUMNS": "100",
        "NO_COLOR": "1",
    }
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, env=env, timeout=300
    )


def _run_console(example: Example) -> str | None:
    checker = doctest.OutputChecker()
    for command, expected in example.parsed:
        completed = run_command(command)
        if completed.returncode != 0:
            return f"$ {command}\nexited {completed.returncode}:\n{completed.stderr[-3000:]}"
        got = completed.stdout.strip()
        if expected and not checker.check_output(expected + "\n", got + "\n", OPTIONS):
            return f"$ {command}\nexpected:\n{expected}\ngot:\n{got}"
    return None


def console_blocks(document: Document) -> Iterator[Region]:
    for match in CONSOLE_FENCE.finditer(document.text):
        yield Region(match.start(), match.end(), _commands(match["text"]), _run_console)


SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=OPTIONS),
        titled_files,
        console_blocks,
        SkipParser(),
    ]
)


def examples(path: Path) -> list[Example]:
    """The page's examples, in the order they appear."""
    return list(SYBIL.parse(path))  # a Document iterates over its examples, in order


def fence_languages(path: Path) -> list[str]:
    """The info word of every opening fence of the page (closing fences give ``""``)."""
    return FENCE_LANGUAGE.findall(path.read_text(encoding="utf-8"))[0::2]


def skips(path: Path) -> int:
    return len(SKIP.findall(path.read_text(encoding="utf-8")))
