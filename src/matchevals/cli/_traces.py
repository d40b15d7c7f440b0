"""``matchevals trajectory --from otel|adk``: trace files read into trajectory examples.

The trace file is read by :mod:`matchevals.traces` into a temporary JSON Lines file, one
``{"id": ..., "messages": [...]}`` line per trajectory (``id``: the trace id for ``otel``,
``<eval_id>/<invocation_id>`` for ``adk``), which the command then scores as any JSONL input:
pair by ``--id-key id``, or by order. A trace that cannot be read exactly is listed on stderr
and makes the run invalid (exit status 2, unless ``--skip-invalid``).

``otel``: OUTPUTS is an OTLP JSON file (one trajectory per trace); REFERENCES is a usual
trajectory file. ``adk``: both are ADK eval files; OUTPUTS gives each invocation's actual
trajectory (an eval result), REFERENCES its expected one (an eval set or the same eval result).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from matchevals.cli._output import EXIT_INVALID, EXIT_OK
from matchevals.cli._read import InputError

__all__ = ["SOURCES", "run_from_traces"]

SOURCES = ("otel", "adk")


def _write(records: Iterable[dict[str, Any]], folder: str, name: str) -> str:
    path = Path(folder, name)
    with path.open("w", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
    return str(path)


def _otel(path: str) -> tuple[list[dict[str, Any]], list[str]]:
    from matchevals.traces import read_otlp_json

    reading = read_otlp_json(path)
    records = [{"id": t["trace_id"], "messages": t["messages"]} for t in reading.trajectories]
    return records, [f"{path}: {problem}" for problem in reading.problems]


def _adk(path: str, side: str) -> list[dict[str, Any]]:
    from matchevals.traces import read_adk_eval

    records = []
    for invocation in read_adk_eval(path):
        messages = invocation["outputs"] if side == "outputs" else invocation["reference_outputs"]
        if messages is None:
            raise InputError(f"{path} is an eval set: it holds expected invocations only; pass an eval result as OUTPUTS")  # fmt: skip # noqa: E501
        key = f"{invocation['eval_id']}/{invocation['invocation_id']}"
        records.append({"id": key, "messages": messages})
    return records


def _convert(args: argparse.Namespace, folder: str) -> list[str]:
    try:
        if args.from_source == "otel":
            records, problems = _otel(args.outputs)
            args.outputs = _write(records, folder, "outputs.jsonl")
            return problems
        args.outputs = _write(_adk(args.outputs, "outputs"), folder, "outputs.jsonl")
        args.references = _write(_adk(args.references, "references"), folder, "references.jsonl")
    except (OSError, ValueError, TypeError) as error:
        raise InputError(f"--from {args.from_source}: {error}") from error
    return []


def run_from_traces(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """Convert the trace files, ``run`` the command on the result, account for problems."""
    shown = args.outputs
    args.shown_files = (args.outputs, args.references)
    with tempfile.TemporaryDirectory(prefix="matchevals-traces-") as folder:
        problems = _convert(args, folder)
        for problem in problems:
            print(f"matchevals: {problem}", file=sys.stderr)
        status = run(args)
    if problems:
        print(f"matchevals: {len(problems)} trace problems in {shown}", file=sys.stderr)
        if status == EXIT_OK and not args.skip_invalid:
            return EXIT_INVALID
    return status
