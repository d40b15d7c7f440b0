"""How long ``matchevals … --help`` takes, and how much of it is the command line's own
(run: ``python benchmarks/bench_cli_help.py``; target: ``matchevals json --help`` ≤ 0.5 s).

Each line is the median wall time of fresh interpreters: Python starting, importing the
json_match core (what ``json --help`` must import to read the factory's signature), and each
``--help``; then the CLI's own share, timed inside interpreters that imported the core first,
and the modules it imports beyond the core. Bytecode is cached as in an installed package (in a
temporary ``PYTHONPYCACHEPREFIX``, even where ``PYTHONDONTWRITEBYTECODE`` is set), after one
warm-up round. Under ten seconds on an idle machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = 7
TARGET = 0.5
CLI = [sys.executable, "-m", "matchevals.cli"]
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="bench-cli-help-")


def seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
    )
    return time.perf_counter() - started


def timings(commands: dict[str, list[str]]) -> dict[str, list[float]]:
    """Each command's wall times, run in turn round after round (so a busy moment of a shared
    machine falls on all of them alike)."""
    found: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm-up: fills the bytecode cache
        seconds(command)
    for _ in range(RUNS):
        for name, command in commands.items():
            found[name].append(seconds(command))
    return found


_AFTER_THE_CORE = """
import contextlib, io, sys, time
started = time.perf_counter()
import matchevals.json_match
core = time.perf_counter()
before = set(sys.modules)
with contextlib.redirect_stdout(io.StringIO()):
    from matchevals.cli import main
    try:
        main(["json", "--help"])
    except SystemExit:
        pass
done = time.perf_counter()
print(core - started, done - core, *sorted(set(sys.modules) - before))
"""


def after_the_core() -> tuple[list[float], list[str]]:
    """In fresh interpreters: the seconds ``json --help`` takes once the core is imported (the
    CLI's own share: its modules and the parser), and the modules it imports beyond the core."""
    own, modules = [], []
    for _ in range(RUNS):
        words = subprocess.run(
            [sys.executable, "-c", _AFTER_THE_CORE],
            capture_output=True, text=True, check=True, env=ENV,
        ).stdout.split()  # fmt: skip
        own.append(float(words[1]))
        modules = words[2:]
    return own, modules


def main() -> None:
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import matchevals.json_match": [sys.executable, "-c", "import matchevals.json_match"],
        **{
            " ".join(["matchevals", *words, "--help"]): [*CLI, *words, "--help"]
            for words in ([], ["json"], ["graph"], ["report"])
        },
    }
    found = timings(commands)
    print(f"median of {RUNS} fresh interpreters, run in turn")
    for name, times in found.items():
        line = f"{name:<34}{statistics.median(times):7.3f} s"
        if name == "import matchevals.json_match":
            line += "   (the core: issue 13's to speed up)"
        if name == "matchevals json --help":
            line += f"   {statistics.median(times) / TARGET:.2f}× the {TARGET} s target"
        print(line)
    own, modules = after_the_core()
    print(f"{'  of which the CLI its own':<34}{statistics.median(own):7.3f} s   (json --help after "
          "the core is imported)")  # fmt: skip
    extra = [name for name in modules if not name.split(".")[-1].startswith("_")]
    print(f"json --help imports {len(modules)} modules beyond the core, among them: "
          + ", ".join(extra or modules))  # fmt: skip


if __name__ == "__main__":
    main()
