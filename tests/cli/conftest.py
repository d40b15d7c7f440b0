"""Markers for the command-line tests."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fresh_clone: clones the repository and installs it in a new virtual environment "
        "(~30 s; part of the normal suite, deselect with -m 'not fresh_clone')",
    )
