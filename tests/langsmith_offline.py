"""Running LangSmith fully offline in tests: a client that never connects, a local trace, and a
stand-in for a tracked ``@pytest.mark.langsmith`` test that captures what ``langsmith.testing``
receives."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import langsmith
import pytest
from langsmith import Client, traceable
from langsmith import testing as ls_testing
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


offline_aevaluate = pytest.mark.skipif(
    _version(langsmith.__version__) < (0, 15, 1),
    reason="before langsmith 0.15.1, aevaluate(upload_results=False) loses the target's run "
    "when no LangSmith service answers (measured on 0.3.45 to 0.15.0; evaluate() works)",
)
"""For tests running the real ``langsmith.aevaluate`` offline."""


def offline_client() -> Client:
    """A LangSmith client pointed at a closed local port, with no background batching."""
    return Client(api_key="offline", api_url="http://127.0.0.1:9", auto_batch_tracing=False)


def tracing_client() -> Client:
    """An offline client under which LangChain and LangGraph runs are traced into the run tree
    an evaluator receives, with nothing sent (sampled out: no upload is tried, no retries)."""
    return Client(
        api_key="offline",
        api_url="http://127.0.0.1:9",
        auto_batch_tracing=False,
        tracing_sampling_rate=0,
    )


def run_traced(call: Callable[[], Any]) -> RunTree:
    """Run ``call`` inside a locally traced parent run and return that run (children included)."""
    finished: list[RunTree] = []

    @traceable(name="parent")
    def parent() -> Any:
        return call()

    with tracing_context(enabled="local", client=offline_client()):
        parent(langsmith_extra={"on_end": finished.append})
    return finished[0]


@contextlib.contextmanager
def langsmith_test_case(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """Act as if inside a tracked ``@pytest.mark.langsmith`` test, through public names only:
    tracing is on (locally, offline), ``trace_feedback`` accepts the call and ``log_feedback``
    records what it receives. (A real tracked test needs the LangSmith service.)"""
    received: list[dict[str, Any]] = []
    monkeypatch.setattr(ls_testing, "log_feedback", lambda **kwargs: received.append(kwargs))
    monkeypatch.setattr(ls_testing, "trace_feedback", lambda **_: contextlib.nullcontext())
    with tracing_context(enabled="local", client=offline_client()):
        yield received
