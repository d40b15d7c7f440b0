"""``--help`` teaches: each option says what it does with an example, comparators and globs are
explained, exit codes listed; and asking for help imports nothing heavy of the CLI's own."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys

import pytest

from matchevals.cli import _help, main
from matchevals.graph_trajectory import create_graph_trajectory_match_evaluator
from matchevals.json_match import comparators, create_json_match_evaluator
from matchevals.trajectory import create_trajectory_match_evaluator


def help_of(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


def option_blocks(text: str) -> dict[str, str]:
    """Each option's help, keyed by its first flag (``--aggregator``)."""
    blocks: dict[str, str] = {}
    current = None
    sections = [text.find(f"\n{name}:") for name in ("comparators", "examples")]
    options = text[: min(i for i in (*sections, len(text)) if i >= 0)]
    for line in options.splitlines():
        found = re.match(r"^  (-\w, )?(--[\w-]+)", line)
        if found:
            current = found.group(2)
            blocks[current] = line
        elif current and line.startswith("      "):
            blocks[current] += " " + line.strip()
        else:
            current = None
    return blocks


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


def test_every_json_option_says_what_it_does_with_an_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    blocks = option_blocks(help_of(capsys, "json"))
    for name in inspect.signature(create_json_match_evaluator).parameters:
        assert "--" + name.replace("_", "-") in blocks, name
    for flag, text in blocks.items():
        if flag in ("--help", "--skip-invalid"):
            continue
        assert "e.g. " in text, flag
        assert "(default: None)" not in text and "(default: True)" not in text, flag
    assert "(default: none)" in blocks["--aggregator"]  # the choice, as typed
    assert "(default: on)" in blocks["--use-reasoning"]
    assert "(default: off)" in blocks["--nested"]
    assert "--judge MODULE:ATTRIBUTE" in blocks["--judge"]
    assert "with_structured_output" in blocks["--judge"]


def test_every_factory_parameter_has_its_own_text() -> None:
    """A parameter added to a factory gets a flag at once; this fails until it gets a text."""
    for factory, texts in (
        (create_json_match_evaluator, _help.JSON_OPTION_HELP),
        (create_graph_trajectory_match_evaluator, _help.GRAPH_OPTION_HELP),
        (create_trajectory_match_evaluator, _help.TRAJECTORY_OPTION_HELP),
    ):
        flagless = {"results_evaluator"}  # a callable: no flag
        wanted = set(inspect.signature(factory).parameters) - flagless
        assert wanted == set(texts), factory.__name__


def test_json_help_teaches_comparators_globs_and_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = help_of(capsys, "json")
    section = text[text.index("comparators:\n") : text.index("paths and globs:")]
    assert "PATH=COMPARATOR" in section and "literal arguments" in section
    builtins = [name for name in comparators.__all__ if name[:1].islower()]
    assert len(builtins) == 7
    for name in builtins:
        assert re.search(rf"^    {name}\(", section, flags=re.MULTILINE), name
    assert "numeric(abs_tol=0.0, rel_tol=0.0, parse_strings=False)" in section
    globs = text[text.index("paths and globs:") : text.index("examples:")]
    for taught in ("**.internal_*", "*.internal_*", "[*]", "address.city", "exact pattern wins"):
        assert taught in globs, taught
    codes = text[text.index("exit status:") :]
    assert re.search(r"^  0 ", codes, re.M) and re.search(r"^  1 ", codes, re.M)
    assert re.search(r"^  2 ", codes, re.M) and "--fail-under" in codes
    assert "matchevals json out.jsonl ref.jsonl --format html -o report.html" in text


def test_graph_and_report_help(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = option_blocks(help_of(capsys, "graph"))
    assert "fails the run (exit 1)" in blocks["--threshold"]
    assert "e.g. --partial-credit --threshold 0.8" in blocks["--threshold"]
    report = help_of(capsys, "report")
    assert "--format jsonl" in report and "RESULTS" in report
    top = help_of(capsys)
    for command in ("json", "graph", "report", "demo"):
        assert re.search(rf"^    {command}\s", top, re.M), command


def test_help_fits_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for columns in (60, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        text = help_of(capsys, "json")
        body = text[text.index("\n\n") :]  # argparse keeps each [--flag VALUE] of usage whole
        assert max(len(line) for line in body.splitlines()) <= columns


def test_help_imports_only_the_command_it_shows() -> None:
    """``--help`` imports nothing of the CLI's that running a command needs: json --help builds
    no graph flags, and past the core it needs for the factory's signature, loads no reading,
    scoring, reporting, rich, multiprocessing or HTML module; ``matchevals --help`` and
    ``report --help`` load no evaluator at all (``benchmarks/bench_cli_help.py`` times it)."""
    code = (
        "import sys\n"
        "core = sys.argv[2]\n"
        "if core != '-':\n    __import__(core)\n"
        "before = set(sys.modules)\n"
        "from matchevals.cli import main\n"
        "try:\n    main([*sys.argv[1:2], '--help'] if sys.argv[1] != '-' else ['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    running = (
        "rich",
        "multiprocessing",
        "concurrent.futures",
        "matchevals.report",
        "matchevals.cli._command",
        "matchevals.cli._read",
        "matchevals._line_scoring",
        "matchevals.report._text",
        "matchevals.cli._progress",
        "matchevals.report._page",
    )
    for command, core, absent in (
        ("json", "matchevals.json_match", ("matchevals.graph_trajectory", *running)),
        ("graph", "matchevals.graph_trajectory", running),
        ("report", "-", ("matchevals.json_match", "matchevals.graph_trajectory", *running)),
        ("-", "-", ("matchevals.json_match", "matchevals.graph_trajectory", *running)),
    ):
        completed = subprocess.run(
            [sys.executable, "-c", code, command, core],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert completed.returncode == 0, completed.stderr
        loaded = completed.stdout.split()
        assert "matchevals.cli" in loaded, completed.stdout
        unwanted = [n for n in loaded if any(n == a or n.startswith(a + ".") for a in absent)]
        assert unwanted == [], (command, unwanted)


def test_the_html_details_default_is_the_reports() -> None:
    from matchevals.cli import HTML_DETAILS
    from matchevals.report import DEFAULT_DETAILS

    assert HTML_DETAILS == DEFAULT_DETAILS
