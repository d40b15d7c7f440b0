"""What the pytest plugin shows for a failing result, reached through its hook."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals import pytest_plugin


def plugin_lines(left: Any, right: Any = None) -> list[str]:
    """The lines the pytest plugin adds to a failed ``left == right`` (its hook, called as
    pytest calls it when no other explanation exists), after pytest's summary line."""
    hook = pytest_plugin.pytest_assertrepr_compare(None, "==", left, right)  # type: ignore[arg-type]
    next(hook)
    with pytest.raises(StopIteration) as stopped:
        hook.send([])
    [lines] = stopped.value.value
    return list(lines)[1:]
