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


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Headless Chromium, one per test module (see ``tests/browser.py``)."""
    yield from open_browser(tmp_path_factory.mktemp("chromium-profile"))
