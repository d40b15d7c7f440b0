"""One local Ray instance (2 CPUs) for every test of this folder, started once (~10 s)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest


def _log_to_the_real_stderr() -> None:
    """Ray's log handlers keep the stream they were made with; under pytest that is a capture
    stream, closed after the test that imported Ray, and every later log line would fail."""
    for name in ("ray", "ray.data", *logging.root.manager.loggerDict):
        if not name.startswith("ray"):
            continue
        for handler in logging.getLogger(name).handlers:
            if type(handler).__module__.startswith("ray") and isinstance(
                handler, logging.StreamHandler
            ):
                handler.setStream(sys.__stderr__)


@pytest.fixture(scope="package")
def ray_address() -> Iterator[str]:
    """The address of a local Ray (``ray.init(num_cpus=2)``), shut down after this folder."""
    ray: Any = pytest.importorskip("ray")
    pytest.importorskip("ray.data")  # its loggers are made on import

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no progress lines per dataset
    _log_to_the_real_stderr()
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
