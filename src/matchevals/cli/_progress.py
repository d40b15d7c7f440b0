"""The progress line on stderr: done/total, percent, rate and ETA when the input size is known.

The size is the byte size of the outputs file when it is a ``.jsonl`` regular file; progress is
how far its :class:`~matchevals.cli._read.Reader` has read (the reading process only moves
bytes, so it knows without parsing anything), so the bar, the percentage and the ETA follow the
input, while the count and rate are of examples scored. Otherwise (a ``.json`` file, loaded at
once) there is no total: a spinner, the count, the rate and the time elapsed. Nothing is drawn
when stderr is not a terminal (the caller decides); rich is imported only when it is.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from matchevals.cli._read import JSONL_SUFFIXES, Reader

__all__ = ["InputMeter", "progress_display", "with_progress"]

_T = TypeVar("_T")


class InputMeter:
    """How far reading the outputs file has got, in bytes (``total`` None when unknown)."""

    def __init__(self, path: Path, reader: Reader | None = None) -> None:
        self.total: int | None = None
        self._reader = reader
        if path.suffix.lower() in JSONL_SUFFIXES:
            try:
                info = os.stat(path)
            except OSError:
                return
            if stat.S_ISREG(info.st_mode) and info.st_size > 0:
                self.total = info.st_size

    @property
    def done(self) -> int:
        return self._reader.bytes_read if self._reader is not None else 0


def progress_display(
    console: Any, total: int | None, *, get_time: Callable[[], float] | None = None
) -> Any:
    """The rich ``Progress`` drawn while scoring (one task: bytes, with an ``examples`` field)."""
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Examples(ProgressColumn):
        def render(self, task: Any) -> Text:
            count = int(task.fields.get("examples", 0))
            return Text(f"{count:,} example{'' if count == 1 else 's'}")

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            elapsed = task.elapsed or 0.0
            count = int(task.fields.get("examples", 0))
            if elapsed <= 0 or not count:
                return Text("–/s", style="progress.data.speed")
            return Text(f"{count / elapsed:,.1f}/s", style="progress.data.speed")

    class Eta(TimeRemainingColumn):
        def render(self, task: Any) -> Text:
            return Text.assemble("ETA ", super().render(task))

    if total is None:
        columns: tuple[Any, ...] = (
            SpinnerColumn(),
            TextColumn("scoring"),
            Examples(),
            Rate(),
            TimeElapsedColumn(),
        )
    else:
        columns = (
            TextColumn("scoring"),
            BarColumn(bar_width=None),
            TaskProgressColumn(),
            DownloadColumn(),
            Examples(),
            Rate(),
            Eta(),
        )
    options: dict[str, Any] = {"console": console, "transient": True, "expand": False}
    if get_time is not None:
        options["get_time"] = get_time
    return Progress(*columns, **options)


def with_progress(
    items: Iterable[_T],
    meter: InputMeter,
    *,
    count: Callable[[_T], int] = lambda item: 1,
    console: Any = None,
) -> Iterator[_T]:
    """Yield the items while a progress line on ``console`` (stderr by default) follows them;
    ``count(item)`` is how many examples an item holds (a batch of a chunk holds many)."""
    from rich.console import Console

    console = console or Console(file=sys.stderr)
    with progress_display(console, meter.total) as progress:
        task = progress.add_task("scoring", total=meter.total, examples=0)
        done = 0
        for item in items:
            yield item
            done += count(item)
            progress.update(task, completed=meter.done, examples=done)
        if meter.total is not None:
            progress.update(task, completed=meter.total)
