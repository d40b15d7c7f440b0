"""Shared test setup: no network, no LangSmith tracking, a scripted LLM judge."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("LANGSMITH_TEST_TRACKING", "false")
os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)
os.environ.setdefault("LANGSMITH_API_KEY", "offline")
os.environ.setdefault("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")

from tests.browser import open_browser
from tests.scripted_judge import ScriptedJudge

__all__ = ["ScriptedJudge"]

SLOW = (
    "tests/ray/",  # a local Ray, seconds to start
    "tests/docs/test_examples_in_docs.py::test_the_examples_of_the_page_run[docs/guides/at-scale",
    "tests/cli/test_fresh_clone.py",  # a clone installed into a new virtual environment
    "tests/report/test_report_in_browser.py",  # headless Chromium
    "tests/compare/test_compare_in_browser.py",
    "tests/docs/test_site_in_browser.py",
    "tests/testing/test_pytest_plugin",  # pytest run again in a fresh interpreter
    "tests/testing/test_plugin_comparisons.py",
    "tests/test_examples.py::test_pytest_example_passes_with_the_plugin",
    "tests/robustness/test_hostile_shapes.py::test_json_match_10000_levels",
)
"""Tests that take seconds each: ``python -m pytest -m "not slow"`` leaves them out (CI runs
everything)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "slow: takes seconds (Ray, a browser, a fresh clone, pytest in a subprocess); "
        "part of the normal suite, deselect with -m 'not slow' for the fast suite",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium, one per test module (see ``tests/browser.py``)."""
    yield from open_browser(tmp_path_factory.mktemp("chromium-profile"))
