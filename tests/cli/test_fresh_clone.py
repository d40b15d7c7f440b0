"""The README's two commands work on a fresh clone, in a new virtual environment.

The repository is cloned with ``git clone`` and the working tree's uncommitted changes are
copied over it (so the test checks what is about to be committed, and stays meaningful before
and after a commit; nothing in the original checkout is written). The clone is installed into a
new venv that sees the packages of the environment running the tests (``--system-site-packages``,
plus a ``.pth`` line when that environment is itself a venv, as in CI), so no dependency has to
be downloaded; that environment's own editable install is never touched. The second command
runs the test suite: to keep this test near 30 s (and not recurse into itself)
``PYTEST_ADDOPTS`` narrows that run to ``SMOKE_TESTS``; the command itself is run exactly as
the README writes it.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE_TESTS = "tests/test_examples.py::test_json_match_options_print_their_scores"
pytestmark = pytest.mark.fresh_clone


def readme_commands(readme: str) -> list[str]:
    """The shell commands of the README's first two ``bash`` blocks."""
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.DOTALL)
    return [block.strip() for block in blocks[:2]]


def git_lines(*args: str) -> list[str]:
    completed = subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return [line for line in completed.stdout.splitlines() if line]


def copy_working_changes(clone: Path) -> None:
    """Bring the clone to the working tree's state: changed and new files, deletions."""
    for name in git_lines("ls-files", "--modified", "--others", "--exclude-standard"):
        source = ROOT / name
        if source.is_file():
            target = clone / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for name in git_lines("ls-files", "--deleted"):
        (clone / name).unlink(missing_ok=True)


def see_this_environment(venv: Path) -> None:
    """Let ``venv`` import what the running environment has installed, if that is a venv too
    (``--system-site-packages`` only reaches the base interpreter's packages)."""
    if sys.prefix == sys.base_prefix:
        return
    (target,) = (venv / "lib").glob("python*/site-packages")
    (target / "_running_environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")


def shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-ec", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=240
    )


@pytest.mark.skipif(os.environ.get("MATCHEVALS_FRESH_CLONE") == "1", reason="inside a clone")
def test_readme_commands_work_on_a_fresh_clone(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone, venv = tmp_path / "clone", tmp_path / "venv"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=60)
    copy_working_changes(clone)
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=60
    )
    see_this_environment(venv)
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "MATCHEVALS_FRESH_CLONE": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTEST_ADDOPTS": f"-q -p no:cacheprovider {SMOKE_TESTS}",
        "LANGSMITH_TRACING": "false",
        "LANGSMITH_TEST_TRACKING": "false",
    }
    env.pop("PYTHONPATH", None)
    first, second = readme_commands((clone / "README.md").read_text())
    assert "pip install" in first and "pip install" in second

    installed = shell(first, clone, env)
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    assert "json_match:average = 0.25" in installed.stdout  # the first JSON-match demo
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import matchevals; print(matchevals.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.strip().startswith(str(clone)), where.stdout

    tested = shell(second, clone, env)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert re.search(r"\d+ passed", tested.stdout)
    assert "failed" not in tested.stdout
