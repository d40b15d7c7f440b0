"""The documentation's tests (marked ``docs``) and the site, built once for all of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.pages import ROOT


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "docs: runs the documentation's examples, builds the site and opens it in a browser "
        "(part of the normal suite; deselect with -m 'not docs')",
    )


def build_site(site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the repository's ``mkdocs.yml`` into ``site``."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per session; the build passes ``--strict`` (no warning at all)."""
    site = tmp_path_factory.mktemp("site")
    built = build_site(site)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    return site
