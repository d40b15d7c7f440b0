"""The progress bar appears only when the terminal is interactive."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

from tests.cli.helpers import executable, run, write_jsonl

PEOPLE = [{"name": f"p{i}", "age": i} for i in range(50)]


def stderr_on_a_terminal(*args: str | Path) -> tuple[int, bytes, bytes]:
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "LANGSMITH_TRACING": "false"}
    process = subprocess.Popen(
        [executable(), *map(str, args)], stdout=subprocess.PIPE, stderr=terminal, env=env
    )
    os.close(terminal)
    assert process.stdout is not None
    stdout = process.stdout.read()
    status = process.wait(timeout=120)
    chunks = []
    while select.select([controller], [], [], 0.5)[0]:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return status, stdout, b"".join(chunks)


def test_progress_only_on_an_interactive_terminal(tmp_path: Path) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", PEOPLE)
    ref = write_jsonl(tmp_path / "ref.jsonl", PEOPLE)
    status, stdout, terminal = stderr_on_a_terminal("json", out, ref, "--format", "json")
    assert status == 0
    assert b"examples" in terminal and b"\x1b[" in terminal  # a live, redrawn progress line
    assert b"\x1b[" not in stdout  # the report itself stays clean
    piped = run("json", out, ref, "--format", "json")
    assert piped.returncode == 0
    assert piped.stderr == ""
    assert piped.stdout.encode() == stdout
