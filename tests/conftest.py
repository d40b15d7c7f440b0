"""Shared test setup: no network, no LangSmith tracking, a scripted LLM judge."""

from __future__ import annotations

import os

os.environ.setdefault("LANGSMITH_TEST_TRACKING", "false")
os.environ["LANGSMITH_TRACING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)
os.environ.setdefault("LANGSMITH_API_KEY", "offline")
os.environ.setdefault("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")

from tests.scripted_judge import ScriptedJudge

__all__ = ["ScriptedJudge"]
