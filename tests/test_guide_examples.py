"""Every Python example of the user guide (``docs/guide/*.md``) runs as written.

Each fenced ``python`` block is one self-contained program: it is executed alone, in a fresh
namespace, offline (judges are ``ScriptedJudge``).
"""

from __future__ import annotations

import re
import sys
import types
import warnings
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    found = []
    for page in sorted(GUIDE.glob("*.md")):
        for index, match in enumerate(BLOCK.finditer(page.read_text())):
            found.append((f"{page.name}#{index}", match.group(1)))
    return found


def test_the_guide_has_examples() -> None:
    names = {name.split("#")[0] for name, _ in blocks()}
    assert {"migration.md", "llm-judges.md", "feedback-keys.md"} <= names


@pytest.mark.parametrize(("name", "code"), blocks(), ids=[name for name, _ in blocks()])
def test_the_example_runs(name: str, code: str) -> None:
    module = types.ModuleType("guide_example_" + re.sub(r"\W", "_", name))
    sys.modules[module.__name__] = module  # dataclasses and pickling look classes up there
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(code, name, "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
