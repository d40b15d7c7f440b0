"""Reading a ~100 MB OTLP JSON file into trajectories: time and peak memory.

Writes a synthetic OTLP JSON export (agent traces of GenAI chat and execute_tool spans, each
chat span carrying its growing conversation, as instrumentations record it), then reads it with
``matchevals.traces.read_otlp_json`` in a fresh process and reports the wall time and the peak
resident memory (``ru_maxrss``) beside the file size and the process's baseline.

    python benchmarks/bench_traces.py [--megabytes 100]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_TEXT = "The user asks about the weather and the news; the agent answers briefly. " * 4


def _attribute(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _trace(number: int) -> list[dict[str, Any]]:
    trace_id = f"{number:032x}"
    history: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"type": "text", "content": _TEXT}]}
    ]
    spans, clock = [], number * 1_000_000
    for turn in range(4):
        clock += 10
        call_id = f"c{number}-{turn}"
        parts = [
            {
                "type": "tool_call",
                "id": call_id,
                "name": "get_weather",
                "arguments": {"city": f"city {turn}"},
            }
        ]
        if turn == 3:
            parts = [{"type": "text", "content": _TEXT}]
        spans.append({
            "traceId": trace_id, "spanId": f"{number:08x}{turn:04x}0001", "name": "chat model",
            "startTimeUnixNano": str(clock), "endTimeUnixNano": str(clock + 5),
            "attributes": [
                _attribute("gen_ai.operation.name", "chat"),
                _attribute("gen_ai.input.messages", json.dumps(history)),
                _attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": parts}])),  # noqa: E501
            ],
        })  # fmt: skip
        if turn == 3:
            break
        spans.append({
            "traceId": trace_id, "spanId": f"{number:08x}{turn:04x}0002", "name": "execute_tool get_weather",  # noqa: E501
            "startTimeUnixNano": str(clock + 6), "endTimeUnixNano": str(clock + 8),
            "attributes": [
                _attribute("gen_ai.operation.name", "execute_tool"),
                _attribute("gen_ai.tool.name", "get_weather"),
                _attribute("gen_ai.tool.call.id", call_id),
                _attribute("gen_ai.tool.call.result", "sunny"),
            ],
        })  # fmt: skip
        history += [{"role": "assistant", "parts": parts},
                    {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": "sunny"}]}]  # fmt: skip # noqa: E501
    return spans


def write_file(path: Path, megabytes: float) -> int:
    """One OTLP JSON document of about ``megabytes``; returns the number of traces."""
    with path.open("w", encoding="utf-8") as file:
        file.write(
            '{"resourceSpans": [{"resource": {"attributes": []}, '
            '"scopeSpans": [{"scope": {"name": "bench"}, "spans": ['
        )
        traces, written, first = 0, 0, True
        while written < megabytes * 1_000_000:
            for span in _trace(traces):
                text = json.dumps(span)
                file.write(text if first else "," + text)
                written += len(text) + 1
                first = False
            traces += 1
        file.write('], "schemaUrl": "https://opentelemetry.io/schemas/1.37.0"}]}]}')
    return traces


_READ = """
import resource, sys, time
from matchevals.traces import read_otlp_json
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
reading = read_otlp_json(sys.argv[1])
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(reading.trajectories), len(reading.problems), elapsed, baseline, peak)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=100.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "traces.json")
        started = time.perf_counter()
        traces = write_file(path, options.megabytes)
        size = path.stat().st_size / 1e6
        print(f"wrote {size:.1f} MB, {traces} traces in {time.perf_counter() - started:.1f} s")
        out = subprocess.run(
            [sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, check=True
        )
        found, problems, elapsed, baseline, peak = out.stdout.split()
        assert int(found) == traces and int(problems) == 0, out.stdout
        kilobytes = 1 if sys.platform != "darwin" else 1 / 1024
        print(
            f"read_otlp_json: {found} trajectories in {float(elapsed):.2f} s "
            f"({size / float(elapsed):.0f} MB/s); peak RSS {int(peak) * kilobytes / 1024:.0f} MB "
            f"(baseline after import {int(baseline) * kilobytes / 1024:.0f} MB)"
        )


if __name__ == "__main__":
    main()
