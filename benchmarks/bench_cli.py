"""The ``matchevals`` command line against a bare Python loop, on the same files.

Run: python benchmarks/bench_cli.py [--examples 40000] [--repeat 3] [--no-ray] [--gigabyte]

Workload (issue 16): ``--examples`` id-keyed pairs of nested records (a customer object, a list
of three line items, a total, a status), references shuffled, about one in four outputs wrong
somewhere; scored with ``create_json_match_evaluator(aggregator="average")`` and written as
JSONL. The bare loop is what a user writes by hand: json.loads both sides, a dict of references
by id, the same evaluator, each result list written as a JSON line. A graph workload
(``matchevals graph`` on LangGraph trajectories against one reference) runs the same way.

Each command runs as the only child of a fresh measuring process, so its time, its CPU time and
its peak memory (the largest RSS of it and its worker processes, ``RUSAGE_CHILDREN``) are its
own; runs are interleaved and repeated, and the table shows the median with the range. The
outputs of 1 worker, 2 workers and Ray are checked to be byte-identical, and the CLI's results
to equal the bare loop's; two bare loops run at once show how much two busy processes slow
each other down on this machine (cores sharing caches and memory bandwidth, a VM's neighbours);
two ``--workers 1`` commands run at once, each on half of the examples, are the ceiling for
``--workers 2``: the most any split of the job over two processes could give here, each paying
the interpreter's start and the imports that ``--workers 2`` pays once; Ray's
fixed cost (starting a local Ray and its actors, then stopping it) is the row that scores a
single pair. ``--gigabyte`` also scores a ~1 GB pair of files by position with 2 workers and
prints the peak memory (several minutes).

Every command runs with byte-compiled modules, as an installed package does (pip compiles
them when it installs): the byte code goes to a temporary folder (``PYTHONPYCACHEPREFIX``)
and one warm-up run of each command writes it, even where ``PYTHONDONTWRITEBYTECODE`` is set
(as on the machine this was written on). Without it every run would compile its modules
anew, which costs the command line, with more modules to load, about 0.1 s more than the
bare loop.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
if done.returncode not in (0, 1):
    sys.stderr.write(done.stderr.decode()[-2000:])
    raise SystemExit(done.returncode)
print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss]))
"""

BARE_JSON = """
import json, math, sys
from matchevals.json_match import create_json_match_evaluator
outputs, references, target = sys.argv[1:4]
evaluator = create_json_match_evaluator(aggregator="average")
encode = json.JSONEncoder(ensure_ascii=False).encode
by_id = {}
with open(references, "rb") as handle:
    for line in handle:
        reference = json.loads(line)
        by_id[reference.pop("id")] = reference
with open(outputs, "rb") as handle, open(target, "w") as out:
    for index, line in enumerate(handle):
        output = json.loads(line)
        ident = output.pop("id")
        reference = by_id[ident]
        results = evaluator(outputs=output, reference_outputs=reference)
        results = results if isinstance(results, list) else [results]
        score = math.fsum(result["score"] for result in results) / len(results)
        out.write(encode({"type": "example", "index": index, "id": ident,
                          "where": f"{outputs}:{index + 1}", "score": score, "results": results,
                          "outputs": output, "reference_outputs": reference}) + "\\n")
"""

BARE_GRAPH = """
import json, math, sys
from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
runs, reference_path, target = sys.argv[1:4]
evaluator = create_graph_trajectory_match_evaluator(partial_credit=True)
encode = json.JSONEncoder(ensure_ascii=False).encode
with open(reference_path, "rb") as handle:
    reference = json.load(handle)
with open(runs, "rb") as handle, open(target, "w") as out:
    for index, line in enumerate(handle):
        run = json.loads(line)
        results = evaluator(outputs=run, reference_outputs=reference)
        results = results if isinstance(results, list) else [results]
        score = math.fsum(float(result["score"]) for result in results) / len(results)
        out.write(encode({"type": "example", "index": index, "id": index,
                          "where": f"{runs}:{index + 1}", "score": score, "results": results,
                          "outputs": run, "reference_outputs": reference}) + "\\n")
"""

CITIES = ["Lyon", "Paris", "Oslo", "Rome", "Porto", "Ghent"]


def write_json_workload(folder: Path, count: int, seed: int = 16) -> tuple[Path, Path]:
    folder.mkdir(exist_ok=True)
    rng = random.Random(seed)
    outputs, references = [], []
    for i in range(count):
        reference = {
            "id": f"ex-{i:08d}",
            "customer": {"name": f"Customer {i}", "city": rng.choice(CITIES), "zip": f"{i:05d}"},
            "items": [
                {"sku": f"S{rng.randrange(1000)}", "qty": rng.randrange(1, 5), "price": i % 97}
                for _ in range(3)
            ],
            "total": round(rng.uniform(10, 500), 2),
            "status": rng.choice(["paid", "open"]),
        }
        output = json.loads(json.dumps(reference))
        if rng.random() < 0.15:
            output["customer"]["city"] = "Berlin"
        if rng.random() < 0.1:
            output["items"][0]["qty"] += 1
        if rng.random() < 0.05:
            output["total"] = None
        outputs.append(json.dumps(output))
        references.append(json.dumps(reference))
    rng.shuffle(references)
    out, ref = folder / "outputs.jsonl", folder / "references.jsonl"
    out.write_text("\n".join(outputs) + "\n")
    ref.write_text("\n".join(references) + "\n")
    return out, ref


def write_graph_workload(folder: Path, count: int, seed: int = 17) -> tuple[Path, Path]:
    rng = random.Random(seed)
    steps = [["plan"], ["search", "fetch"], ["read"], ["write"], ["review"]]
    with (folder / "runs.jsonl").open("w") as handle:
        for _ in range(count):
            run = [list(step) for step in steps]
            if rng.random() < 0.3:
                run[1] = ["search"]
            if rng.random() < 0.2:
                run.insert(3, ["read"])
            handle.write(json.dumps({"inputs": None, "results": None, "steps": run}) + "\n")
    (folder / "reference.json").write_text(json.dumps({"steps": steps}))
    return folder / "runs.jsonl", folder / "reference.json"


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr}")
    wall, cpu, peak = json.loads(done.stdout)
    return wall, cpu, peak


READER = """
import resource, sys
import matchevals.cli._engine, matchevals.graph_trajectory, matchevals.json_match, rich.progress
from matchevals.cli import main
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
started = cpu()
main(sys.argv[1:])
print(cpu() - started, file=sys.stderr)
"""


def reading_cpu(command: list[str]) -> float:
    """The CPU time of the reading process of ``command`` (a ``cli(...)`` list), workers apart,
    imports apart."""
    done = subprocess.run(
        [sys.executable, "-c", READER, *command[3:]], capture_output=True, text=True, check=False
    )
    return float(done.stderr.split()[-1])


TOGETHER = """
import json, subprocess, sys
commands = json.loads(sys.argv[1])
copies = [subprocess.Popen(command, stdout=subprocess.DEVNULL) for command in commands]
sys.exit(max(copy.wait() for copy in copies))
"""


def two_at_once(bare: list[str], folder: Path, name: str) -> tuple[list[str], dict[str, str]]:
    """Two copies of the bare loop started together (each writing its own file): on a machine
    whose cores share caches and memory bandwidth (or a VM's), two processes do not run at one's
    speed, and this says how far two workers could scale at best. Run with the others, in
    turn, so that it meets the same neighbours."""
    copies = [[*bare[:-1], str(folder / f"{name}{n}.jsonl")] for n in (2, 3)]
    return [sys.executable, "-c", TOGETHER, json.dumps(copies)], {}


def two_halves(
    halves: list[tuple[Path, ...]],
    command: Callable[[tuple[Path, ...], Path], list[str]],
    folder: Path,
    name: str,
) -> tuple[list[str], dict[str, str]]:
    """Two ``--workers 1`` commands started together, each on one half of the examples
    (``command(inputs, target)`` builds one): what ``--workers 2`` would take if splitting
    the job cost nothing but the second process's start."""
    copies = [command(half, folder / f"{name}_report{n}.jsonl") for n, half in enumerate(halves)]
    return [sys.executable, "-c", TOGETHER, json.dumps(copies)], {}


def halve_pairs(out: Path, ref: Path, folder: Path) -> list[tuple[Path, ...]]:
    """The id-keyed pairs in two halves: the first and second half of the outputs, each with
    its own references."""
    lines = out.read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    parts = [lines[:middle], lines[middle:]]
    ids = [{json.loads(line)["id"] for line in part} for part in parts]
    references = ref.read_bytes().splitlines(keepends=True)
    owner = {json.loads(line)["id"]: line for line in references}
    halves: list[tuple[Path, ...]] = []
    for n, (part, wanted) in enumerate(zip(parts, ids, strict=True)):
        half_out, half_ref = folder / f"half{n}_out.jsonl", folder / f"half{n}_ref.jsonl"
        half_out.write_bytes(b"".join(part))
        half_ref.write_bytes(b"".join(line for key, line in owner.items() if key in wanted))
        halves.append((half_out, half_ref))
    return halves


def halve_runs(runs: Path, reference: Path, folder: Path) -> list[tuple[Path, ...]]:
    """The trajectories in two halves, each scored against the one reference."""
    lines = runs.read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    halves: list[tuple[Path, ...]] = []
    for n, part in enumerate((lines[:middle], lines[middle:])):
        half = folder / f"graph_half{n}.jsonl"
        half.write_bytes(b"".join(part))
        halves.append((half, reference))
    return halves


def print_ceiling(runs: dict[str, list[tuple[float, float, int]]]) -> None:
    bare = statistics.median(wall for wall, _, _ in runs["bare loop"])
    both = statistics.median(wall for wall, _, _ in runs[TWO_BARE])
    halves = statistics.median(wall for wall, _, _ in runs[TWO_HALVES])
    one = statistics.median(wall for wall, _, _ in runs["cli --workers 1"])
    two = statistics.median(wall for wall, _, _ in runs["cli --workers 2"])
    print(
        f"two bare loops at once: {both:.2f} s, so two busy processes here run at "
        f"{2 * bare / both:.2f}x one (2.00x if they did not slow each other down)"
    )
    print(
        f"two halves at once (--workers 1 on half the examples each): {halves:.2f} s, "
        f"{one / halves:.2f}x --workers 1, the ceiling for two processes on this job here; "
        f"--workers 2 reached {one / two:.2f}x --workers 1 ({halves / two:.0%} of the ceiling)"
    )
    cpu = {name: statistics.median(c for _, c, _ in runs[name]) for name in runs}
    print(
        f"CPU time: two bare loops at once {cpu[TWO_BARE]:.2f} s against twice one "
        f"{2 * cpu['bare loop']:.2f} s ({cpu[TWO_BARE] / (2 * cpu['bare loop']) - 1:+.0%}, the "
        f"machine's tax on two busy processes); --workers 2 {cpu['cli --workers 2']:.2f} s "
        f"against --workers 1 {cpu['cli --workers 1']:.2f} s "
        f"({cpu['cli --workers 2'] / cpu['cli --workers 1'] - 1:+.0%}, the reading process's "
        "share and the workers' messages included)"
    )


def steal() -> tuple[int, int] | None:
    """(stolen, total) CPU ticks of this machine so far (Linux ``/proc/stat``), else None."""
    try:
        fields = [int(field) for field in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return (fields[7], sum(fields[:8])) if len(fields) >= 8 else None


TWO_BARE = "two bare loops at once"
TWO_HALVES = "two halves at once"


def cli(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "matchevals.cli", *map(str, args)]


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def run_suite(
    title: str, configs: dict[str, tuple[list[str], dict[str, str]]], repeat: int
) -> dict[str, list[tuple[float, float, int]]]:
    print(f"\n{title} (load average before: {load_average()})", flush=True)
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in configs}
    before = steal()
    for _ in range(repeat):
        for name, (command, env) in configs.items():
            runs[name].append(measure(command, env))
    after = steal()
    bare = statistics.median(wall for wall, _, _ in runs["bare loop"])
    one = statistics.median(wall for wall, _, _ in runs.get("cli --workers 1", runs["bare loop"]))
    header = (
        f"{'':36} {'median s':>9} {'range s':>13} {'x bare':>7} {'x w1':>6} {'CPU s':>7}"
        f" {'peak MiB':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, measured in runs.items():
        walls = [wall for wall, _, _ in measured]
        median = statistics.median(walls)
        cpu = statistics.median(c for _, c, _ in measured)
        peak = max(p for _, _, p in measured) / 1024
        spread = f"{min(walls):.2f}-{max(walls):.2f}"
        print(
            f"{name:36} {median:9.2f} {spread:>13} {median / bare:7.2f} {one / median:6.2f}"
            f" {cpu:7.2f} {peak:9.0f}"
        )
    print(f"load average after: {load_average()}")
    if before is not None and after is not None and after[1] > before[1]:
        share = 100 * (after[0] - before[0]) / (after[1] - before[1])
        print(f"CPU time the hypervisor gave to others during these runs (steal): {share:.0f}%")
    return runs


def check_identical(paths: dict[str, Path], bare: Path) -> None:
    texts = {name: path.read_bytes() for name, path in paths.items() if path.exists()}
    first = next(iter(texts.values()))
    assert all(text == first for text in texts.values()), "outputs differ between engines"
    examples = [line for line in first.splitlines() if line.startswith(b'{"type": "example"')]
    assert examples == bare.read_bytes().splitlines(), "the CLI's lines differ from the bare loop's"
    print(
        f"outputs byte-identical across {', '.join(texts)}; "
        "their example lines byte-identical to the bare loop's"
    )


def check_halves(folder: Path, name: str, whole: Path) -> None:
    """The two halves' results, one after the other, are the whole run's."""
    results = []
    for n in (0, 1):
        text = (folder / f"{name}_report{n}.jsonl").read_text()
        lines = [json.loads(line) for line in text.splitlines()]
        results += [line["results"] for line in lines if line["type"] == "example"]
    expected = [json.loads(line) for line in whole.read_text().splitlines()]
    expected = [line["results"] for line in expected if line["type"] == "example"]
    assert results == expected, "the two halves' results differ from the whole run's"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=40_000)
    parser.add_argument("--graph-examples", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-ray", action="store_true", help="skip --engine ray")
    parser.add_argument("--gigabyte", action="store_true", help="also score ~1 GB (slow)")
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also run every command with the matchevals of SRC (another checkout's src "
        "folder), interleaved, each row beside its twin marked (before)",
    )
    options = parser.parse_args()
    os.environ["LANGSMITH_TRACING"] = "false"
    try:
        import ray  # noqa: F401

        has_ray = not options.no_ray
    except ImportError:
        has_ray = False
    try:
        import orjson  # noqa: F401

        has_orjson = True
    except ImportError:
        has_orjson = False
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, orjson: {has_orjson}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(folder / "bytecode")
        warm_up(folder, options.before)
        out, ref = write_json_workload(folder, options.examples)
        size = (out.stat().st_size + ref.stat().st_size) / 2**20
        common = ["--id-key", "id", "--aggregator", "average", "--format", "jsonl"]
        target = {n: folder / f"{n}.jsonl" for n in ("w1", "w2", "ray", "stdlib")}
        configs: dict[str, tuple[list[str], dict[str, str]]] = {
            "bare loop": ([sys.executable, "-c", BARE_JSON, str(out), str(ref),
                           str(folder / "bare.jsonl")], {}),
            "cli --workers 1": (cli("json", out, ref, *common, "-o", target["w1"]), {}),
            "cli --workers 2": (
                cli("json", out, ref, *common, "--workers", "2", "-o", target["w2"]), {}
            ),
        }  # fmt: skip
        if has_orjson:
            configs["cli --workers 1, json only"] = (
                cli("json", out, ref, *common, "-o", target["stdlib"]),
                {"MATCHEVALS_JSON": "stdlib"},
            )
        if has_ray:
            configs["cli --engine ray (2 actors)"] = (
                cli("json", out, ref, *common, "--engine", "ray", "--workers", "2",
                    "-o", target["ray"]),
                {},
            )  # fmt: skip
            tiny_out, tiny_ref = write_json_workload(folder / "tiny", 1)
            configs["cli --engine ray, 1 pair"] = (
                cli("json", tiny_out, tiny_ref, *common, "--engine", "ray", "--workers", "2",
                    "-o", folder / "tiny" / "ray.jsonl"),
                {},
            )  # fmt: skip
        configs[TWO_BARE] = two_at_once(configs["bare loop"][0], folder, "bare")
        configs[TWO_HALVES] = two_halves(
            halve_pairs(out, ref, folder),
            lambda half, to: cli("json", *half, *common, "-o", to),
            folder,
            "half",
        )
        title = f"matchevals json: {options.examples:,} id-keyed pairs, {size:.0f} MiB of JSONL"
        configs = with_before(configs, options.before, target)
        runs = run_suite(title, configs, options.repeat)
        check_identical(target, folder / "bare.jsonl")
        check_halves(folder, "half", target["w1"])
        print_ceiling(runs)
        one_cpu = statistics.median(c for _, c, _ in runs["cli --workers 1"])
        print(f"one worker: {options.examples / one_cpu:,.0f} examples per CPU-second")
        reader = reading_cpu(cli("json", out, ref, *common, "--workers", "2", "-o", target["w2"]))
        print(
            f"the reading process of --workers 2 alone: {reader:.2f} CPU s, so one reader feeds "
            f"up to {options.examples / reader:,.0f} examples per second"
        )

        runs_path, reference = write_graph_workload(folder, options.graph_examples)
        gtarget = {n: folder / f"g{n}.jsonl" for n in ("w1", "w2")}
        graph_common = ["--partial-credit", "--format", "jsonl"]
        gconfigs: dict[str, tuple[list[str], dict[str, str]]] = {
            "bare loop": ([sys.executable, "-c", BARE_GRAPH, str(runs_path), str(reference),
                           str(folder / "gbare.jsonl")], {}),
            "cli --workers 1": (
                cli("graph", runs_path, reference, *graph_common, "-o", gtarget["w1"]), {}
            ),
            "cli --workers 2": (
                cli("graph", runs_path, reference, *graph_common, "--workers", "2",
                    "-o", gtarget["w2"]),
                {},
            ),
        }  # fmt: skip
        gconfigs[TWO_BARE] = two_at_once(gconfigs["bare loop"][0], folder, "gbare")
        gconfigs[TWO_HALVES] = two_halves(
            halve_runs(runs_path, reference, folder),
            lambda half, to: cli("graph", *half, *graph_common, "-o", to),
            folder,
            "ghalf",
        )
        title = f"matchevals graph: {options.graph_examples:,} trajectories, one reference"
        gconfigs = with_before(gconfigs, options.before, gtarget)
        grun = run_suite(title, gconfigs, options.repeat)
        check_identical(gtarget, folder / "gbare.jsonl")
        check_halves(folder, "ghalf", gtarget["w1"])
        print_ceiling(grun)

        if options.gigabyte:
            gigabyte(folder, options.repeat, options.before)


def with_before(
    configs: dict[str, tuple[list[str], dict[str, str]]],
    before: str | None,
    targets: dict[str, Path],
) -> dict[str, tuple[list[str], dict[str, str]]]:
    """``configs`` with, after each command line's, its twin run with the matchevals of
    ``before`` (writing beside it, so that both outputs are checked byte-identical)."""
    if before is None:
        return configs
    twins: dict[str, tuple[list[str], dict[str, str]]] = {}
    for name, (command, env) in configs.items():
        twins[name] = (command, env)
        if not name.startswith("cli ") or "-o" not in command:
            continue
        at = command.index("-o") + 1
        target = Path(command[at])
        twin = target.with_name(target.stem + "_before" + target.suffix)
        for key, path in list(targets.items()):
            if path == target:
                targets[key + " (before)"] = twin
        twins[f"{name} (before)"] = (
            [*command[:at], str(twin), *command[at + 1 :]],
            {**env, "PYTHONPATH": before},
        )
    return twins


def warm_up(folder: Path, before: str | None = None) -> None:
    """Run each kind of command once on one example, so its modules are byte-compiled (those
    of ``before`` too)."""
    out, ref = write_json_workload(folder / "warm", 1)
    runs, reference = write_graph_workload(folder / "warm", 1)
    for command in (
        [sys.executable, "-c", BARE_JSON, str(out), str(ref), str(folder / "warm" / "b.jsonl")],
        [sys.executable, "-c", BARE_GRAPH, str(runs), str(reference), str(folder / "warm" / "g")],
        cli("json", out, ref, "--id-key", "id", "--format", "jsonl", "--workers", "2", "-o",
            folder / "warm" / "c.jsonl"),
        cli("graph", runs, reference, "--format", "jsonl", "-o", folder / "warm" / "d.jsonl"),
    ):  # fmt: skip
        measure(command)
        if before is not None and "matchevals.cli" in command:
            measure(command, {"PYTHONPATH": before})


def gigabyte(folder: Path, repeat: int, before: str | None) -> None:
    """~1 GB of outputs and references by position (blank padding keys), 2 workers; with
    ``before``, each run beside one with that matchevals, in turn."""
    out, ref = folder / "big_out.jsonl", folder / "big_ref.jsonl"
    padding = "x" * 900
    count = 0
    with out.open("w") as outputs, ref.open("w") as references:
        while outputs.tell() < 512 * 2**20:
            record: dict[str, Any] = {"id": count, "name": f"n{count}", "age": count % 90}
            record["pad"] = padding
            references.write(json.dumps(record) + "\n")
            record["age"] += count % 10 == 0
            outputs.write(json.dumps(record) + "\n")
            count += 1
    report = folder / "big.json"
    command = cli("json", out, ref, "--aggregator", "average", "--workers", "2",
                  "--format", "json", "-o", report)  # fmt: skip
    total = (out.stat().st_size + ref.stat().st_size) / 2**30
    trees = {"": {}, " (before)": {"PYTHONPATH": before}} if before else {"": {}}
    measured: dict[str, list[tuple[float, float, int]]] = {name: [] for name in trees}
    for _ in range(repeat):
        for name, env in trees.items():
            measured[name].append(measure(command, env))
            summary: dict[str, Any] = json.loads(report.read_text())["summary"]
            assert summary["examples_scored"] == count
    print(f"\n{total:.2f} GiB ({count:,} pairs) by position, --workers 2, median of {repeat}:")
    for name, runs in measured.items():
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        peak = max(run[2] for run in runs) / 1024
        spread = f"{min(r[0] for r in runs):.1f}-{max(r[0] for r in runs):.1f}"
        print(f"  cli{name}: {wall:.1f} s ({spread}), {cpu:.1f} CPU s, peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
