"""Running the real ``matchevals`` entry point in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any


def executable() -> str:
    beside = Path(sys.executable).parent / "matchevals"
    found = str(beside) if beside.exists() else shutil.which("matchevals")
    assert found, "the matchevals console script is not installed: pip install -e ."
    return found


def run(
    *args: str | Path, cwd: Path | None = None, columns: int = 200
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LANGSMITH_TRACING": "false", "COLUMNS": str(columns)}
    return subprocess.run(
        [executable(), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def write_jsonl(path: Path, values: list[Any], *, raw: dict[int, str] | None = None) -> Path:
    """One value per line; ``raw`` puts literal text at some 0-based line numbers instead."""
    lines = [json.dumps(value) for value in values]
    for index, text in sorted((raw or {}).items()):
        lines.insert(index, text)
    path.write_text("\n".join(lines) + "\n")
    return path


def no_traceback(completed: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in completed.stderr, completed.stderr
    assert "Traceback" not in completed.stdout, completed.stdout


def as_json(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The summary of a ``--format json`` run."""
    summary: dict[str, Any] = json.loads(completed.stdout)["summary"]
    return summary
