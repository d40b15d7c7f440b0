"""Comparing two runs of 1,000,000 examples: time and peak memory of ``matchevals compare``.

Writes two runs as ``--format jsonl`` saves them (the command line's own line writer; small
json_match results, ids paired by ``--id-key``, the new run's examples shuffled and 10% of them
changed), then times ``matchevals compare BASE NEW --id-key id`` in a fresh process and reports
its wall time and peak resident memory (``ru_maxrss``), beside the same for a tenth of the
examples, so memory per example shows. The files go to a temporary folder, removed afterwards.

    python benchmarks/bench_compare.py [--examples 1000000] [--format table]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from matchevals._scoring import Scored
from matchevals.report._lines import jsonl_line

KEYS = ("name", "age", "city")


def _results(wrong: frozenset[str]) -> list[dict[str, object]]:
    return [
        {
            "key": f"json_match:{key}",
            "score": 0 if key in wrong else 1,
            "comment": f"{key}: expected 1, got 2" if key in wrong else None,
            "metadata": {"mismatches": [{"path": key, "expected": 1, "actual": 2, "score": 0}],
                         "alignment": None} if key in wrong else None,
        }
        for key in KEYS
    ]  # fmt: skip


def write_run(path: Path, examples: int, seed: int, changed: float, by_id: bool = True) -> None:
    """One saved run: example ``i`` fails keys at random, ``changed`` of them differently from
    seed 0's run; by id (``ex-i``, in an order shuffled by ``seed``) or by position (``i``)."""
    base, this = random.Random(0), random.Random(seed)
    order = list(range(examples))
    if seed and by_id:
        this.shuffle(order)
    failing = [frozenset(k for k in KEYS if base.random() < 0.1) for _ in range(examples)]
    variants = [
        _results(frozenset(c)) for c in ((), ("age",), ("city",), ("age", "city"), ("name",))
    ]
    cache = {frozenset(): variants[0], frozenset({"age"}): variants[1],
             frozenset({"city"}): variants[2], frozenset({"age", "city"}): variants[3],
             frozenset({"name"}): variants[4]}  # fmt: skip
    with path.open("w", encoding="utf-8") as file:
        for index, example in enumerate(order):
            wrong = failing[example]
            if seed and this.random() < changed:
                wrong = frozenset({this.choice(KEYS)}) if wrong else frozenset()
                if not wrong and this.random() < 0.5:
                    wrong = frozenset({"age"})
            results = cache.get(wrong) or _results(wrong)
            score = sum(r["score"] for r in results) / len(results)  # type: ignore[misc]
            ident = f"ex-{example}" if by_id else example
            item = Scored(index, ident, f"outputs.jsonl:{index + 1}", score, results)
            file.write(jsonl_line(item) + "\n")
        id_key = '"id"' if by_id else "null"
        file.write(f'{{"type": "summary", "kind": "json", "id_key": {id_key}}}\n')


# The peak is VmHWM where Linux has it: ru_maxrss carries over from the process that started
# this one (this script, with its runs' data in memory) on Linux.
_RUN = """
import resource, sys, time
from matchevals.cli import main
started = time.perf_counter()
status = main(sys.argv[1:])
elapsed = time.perf_counter() - started
try:
    with open("/proc/self/status") as status_file:
        peak = next(int(line.split()[1]) for line in status_file if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(status, elapsed, peak, file=sys.stderr)
"""


def compare(base: Path, new: Path, output_format: str, by_id: bool) -> tuple[float, float]:
    """Wall seconds (the command's whole run, start-up included) and peak RSS (MB) of
    ``matchevals compare`` in a fresh process."""
    flags = ["--id-key", "id"] if by_id else []
    command = [sys.executable, "-c", _RUN, "compare", str(base), str(new), *flags,
               "--format", output_format]  # fmt: skip
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    status, _, peak = completed.stderr.split()[-3:]
    if status not in ("0", "1"):
        raise SystemExit(completed.stderr)
    kilobytes = 1 if sys.platform != "darwin" else 1 / 1024
    return elapsed, int(peak) * kilobytes / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1_000_000)
    parser.add_argument("--format", default="table", choices=("table", "json", "markdown"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for by_id in (True, False):
            peaks = []
            for examples in (options.examples // 10, options.examples):
                base, new = Path(folder, "base.jsonl"), Path(folder, "new.jsonl")
                started = time.perf_counter()
                write_run(base, examples, 0, 0.0, by_id)
                write_run(new, examples, 1, 0.1, by_id)
                size = (base.stat().st_size + new.stat().st_size) / 1e6
                print(f"wrote two runs of {examples:,} examples ({size:.0f} MB) in "
                      f"{time.perf_counter() - started:.1f} s")  # fmt: skip
                seconds, peak = compare(base, new, options.format, by_id)
                peaks.append((examples, peak))
                pairing = "--id-key id" if by_id else "by position"
                rate = examples / seconds
                print(f"  matchevals compare {pairing}: {examples:,} examples in {seconds:.1f} "
                      f"s ({rate:,.0f} a second); peak RSS {peak:.0f} MB")  # fmt: skip
            (few, low), (many, high) = peaks
            print(f"  memory per example beyond the first {few:,}: "
                  f"{(high - low) * 1e6 / (many - few):.0f} bytes")  # fmt: skip


if __name__ == "__main__":
    main()
