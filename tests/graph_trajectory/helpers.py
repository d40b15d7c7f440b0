"""Small builders shared by the graph trajectory tests."""

from __future__ import annotations

from typing import Any


def run(*steps: list[str], results: Any = None) -> dict[str, Any]:
    """A GraphRunTrajectory with the given supersteps."""
    return {"inputs": None, "results": results, "steps": list(steps)}


def ref(*steps: Any, results: Any = None) -> dict[str, Any]:
    """A GraphRunReferenceTrajectory with the given reference steps."""
    return {"inputs": None, "results": results, "steps": list(steps)}
