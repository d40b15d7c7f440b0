"""Reading a run saved with ``--format jsonl`` back into a report.

Each line is ``{"type": "example", ...}`` (with the example's values since this version),
``{"type": "invalid", "where", "message"}`` or, last, ``{"type": "summary", ...}``. A run cut
short has no summary line: the report is still made from the lines there are, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from matchevals.report._examples import example_from
from matchevals.report._model import ReportBuilder

__all__ = ["SavedRunError", "read_saved_run"]

SUMMARY_FACTS = (
    "kind",
    "title",
    "warnings",
    "passed",
    "failed_because",
    "fail_under",
    "threshold",
    "id_key",
    "invalid",
    "examples_scored",
    "mean_score",
    "below_threshold",
)


class SavedRunError(ValueError):
    """The file is not a saved run (said with file and line)."""


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        handle = path.open("rb")
    except OSError as error:
        raise SavedRunError(f"{path}: {error.strerror or error}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw)
            except UnicodeDecodeError:
                raise SavedRunError(f"{path}:{number}: not valid UTF-8") from None
            except ValueError as error:
                raise SavedRunError(f"{path}:{number}: not valid JSON: {error}") from None


def read_saved_run(path: Path, builder: ReportBuilder) -> dict[str, Any]:
    """Feed every line of a saved run to ``builder``; return the summary facts it saved."""
    facts: dict[str, Any] = {}
    position = 0
    seen_any = False
    for number, line in _lines(path):
        kind = line.get("type") if isinstance(line, dict) else None
        if kind == "example":
            try:
                builder.add(example_from(line, position, subject="the example line"))
            except (TypeError, ValueError) as error:
                raise SavedRunError(f"{path}:{number}: {error}") from None
            position += 1
        elif kind == "invalid":
            builder.add_problem(
                str(line.get("where")), str(line.get("message")), counted=line.get("counted", True)
            )
        elif kind == "summary":
            facts = {key: line[key] for key in SUMMARY_FACTS if key in line}
            per_file = line.get("examples_per_file")
            if isinstance(line.get("files"), list):
                facts["files"] = [str(name) for name in line["files"]]
            elif isinstance(per_file, dict):  # a run saved before "files" was written
                facts["files"] = list(per_file)
        else:
            raise SavedRunError(
                f'{path}:{number}: not a line of a --format jsonl run (no "type" of example, '
                "invalid or summary)"
            )
        seen_any = True
    if not seen_any:
        raise SavedRunError(f"{path}: holds no lines of a --format jsonl run")
    if not facts:
        facts["warnings"] = [f"{path} has no summary line: the run may have been cut short"]
    return facts
