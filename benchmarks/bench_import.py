"""Benchmark: what importing matchevals and running ``matchevals --help`` cost, beside the peers.

Run with ``python benchmarks/bench_import.py`` (``--runs N``, default 9). Every measurement is a
fresh interpreter: ``python -c "import ..."`` for imports, the installed ``matchevals`` console
script (the one next to this Python, not a pyenv shim) for ``--help``. Bytecode is cached as an
installed package has it (into a temporary ``PYTHONPYCACHEPREFIX``, warmed once first, even when
``PYTHONDONTWRITEBYTECODE`` is set). Each row shows the minimum over the runs of the child's CPU
time (user + system, what the target is judged on: other load on the machine skews it less) and
of its wall time, and the bare interpreter's start-up (``python -c pass``) for scale.

Targets (issue 13): ``import matchevals.json_match`` ≤ 0.4 s, ``matchevals --help`` ≤ 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PEERS = {
    "import openevals.json (peer)": "import openevals.json",
    "import agentevals.graph_trajectory.strict (peer)": "import agentevals.graph_trajectory.strict",
}
OURS = {
    "import matchevals.json_match": "import matchevals.json_match",
    "import matchevals.graph_trajectory": "import matchevals.graph_trajectory",
    "import matchevals.testing": "import matchevals.testing",
}
TARGETS = {"import matchevals.json_match": 0.4, "matchevals --help": 0.5}


def _environment(cache: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment["PYTHONPYCACHEPREFIX"] = cache
    environment["LANGSMITH_TRACING"] = "false"
    return environment


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("matchevals")
    if script.exists():
        return [str(script), "--help"]
    found = shutil.which("matchevals")
    return [found, "--help"] if found else [sys.executable, "-m", "matchevals.cli", "--help"]


def _run_once(command: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=environment, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(
    commands: dict[str, list[str]], environment: dict[str, str], runs: int
) -> dict[str, tuple[float, float]]:
    """Minimum (CPU, wall) per command; runs are interleaved so load changes hit all alike."""
    for command in commands.values():
        _run_once(command, environment)  # warm the bytecode cache
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            samples[name].append(_run_once(command, environment))
    return {
        name: (min(cpu for cpu, _ in found), min(wall for _, wall in found))
        for name, found in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    python = sys.executable
    commands = {"python -c pass (interpreter start-up)": [python, "-c", "pass"]}
    for name, code in {**PEERS, **OURS}.items():
        commands[name] = [python, "-c", code]
    commands["matchevals --help"] = _console_script()
    with tempfile.TemporaryDirectory(prefix="matchevals-bench-pyc-") as cache:
        found = measure(commands, _environment(cache), runs)
    print(f"fresh interpreters, minimum of {runs} runs, bytecode cached")
    print(f"{'command':52} {'CPU s':>7} {'wall s':>7}  target  met")
    print("-" * 82)
    for name, (cpu, wall) in found.items():
        target = TARGETS.get(name)
        verdict = "" if target is None else ("yes" if cpu <= target else "NO")
        shown = "" if target is None else f"≤ {target:.1f}"
        print(f"{name:52} {cpu:7.3f} {wall:7.3f}  {shown:>6}  {verdict}")
    print("matchevals --help runs:", " ".join(commands["matchevals --help"]))


if __name__ == "__main__":
    main()
