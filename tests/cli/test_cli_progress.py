"""The progress line: only on an interactive terminal; done/total, percent, rate and ETA when
the input's size is known, a count otherwise (rich's own console with a fake clock, and the real
command on a pseudo-terminal)."""

from __future__ import annotations

import io
import json
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


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def drawn(total: int | None, steps: list[tuple[float, int, int]]) -> str:
    """The progress line after ``(time, bytes done, examples)`` updates, as rich draws it."""
    from rich.console import Console

    from matchevals.cli._progress import progress_display

    console = Console(file=io.StringIO(), force_terminal=True, width=120, color_system=None)
    clock = Clock()
    progress = progress_display(console, total, get_time=clock)
    task = progress.add_task("scoring", total=total, examples=0)
    for now, done, examples in steps:
        clock.now = now
        progress.update(task, completed=done, examples=examples)
    console.print(progress.get_renderable())
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_a_known_size_shows_done_total_percent_rate_and_eta() -> None:
    line = drawn(2_000_000, [(0.0, 0, 0), (1.0, 500_000, 100), (2.0, 1_000_000, 200)])
    assert "50%" in line
    assert "1.0/2.0 MB" in line
    assert "200 examples" in line
    assert "100.0/s" in line  # examples per second
    assert "ETA 0:00:02" in line  # the other half of the bytes at the same speed


def test_an_unknown_size_shows_a_count_and_no_eta() -> None:
    line = drawn(None, [(0.0, 0, 0), (4.0, 0, 3)])
    assert "3 examples" in line and "0.8/s" in line
    assert "%" not in line and "ETA" not in line


def test_the_real_command_draws_percent_and_eta_for_jsonl(tmp_path: Path) -> None:
    out = write_jsonl(tmp_path / "out.jsonl", PEOPLE)
    ref = write_jsonl(tmp_path / "ref.jsonl", PEOPLE)
    status, _, terminal = stderr_on_a_terminal("json", out, ref, "--format", "json")
    assert status == 0
    assert b"%" in terminal and b"ETA" in terminal and b"50 examples" in terminal
    listed = tmp_path / "out.json"
    listed.write_text(json.dumps(PEOPLE))
    status, _, terminal = stderr_on_a_terminal("json", listed, ref, "--format", "json")
    assert status == 0
    assert b"50 examples" in terminal
    assert b"ETA" not in terminal and b"%" not in terminal  # a .json has no size to follow


def test_the_meter_follows_the_bytes_the_reader_has_read(tmp_path: Path) -> None:
    """The reading process only moves bytes, so progress is how far its Reader has read."""
    from matchevals.cli._progress import InputMeter
    from matchevals.cli._read import Reader

    out = write_jsonl(tmp_path / "out.jsonl", PEOPLE)
    size = out.stat().st_size
    with Reader(out) as reader:
        meter = InputMeter(out, reader)
        assert (meter.total, meter.done) == (size, 0)
        chunk = reader.read(10)
        assert meter.done == sum(map(len, chunk.lines)) == chunk.offsets[-1] + len(chunk.lines[-1])
        reader.read(1000)
        assert meter.done == size
    listed = tmp_path / "out.json"
    listed.write_text(json.dumps(PEOPLE))
    with Reader(listed) as reader:
        assert InputMeter(listed, reader).total is None  # loaded at once: a count, no bar
