"""Every evaluator is called with keywords; a positional call, or one without its arguments, is
a TypeError that says how to call it. LangSmith still reads the keyword signature."""

from __future__ import annotations

import asyncio
import inspect
import pickle
from collections.abc import Callable
from typing import Any

import pytest

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_async_graph_trajectory_rules_evaluator,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)

WITH_REFERENCE: dict[str, tuple[Callable[[], Any], str]] = {
    "json_match": (create_json_match_evaluator, "json_match_evaluator"),
    "json_match async": (create_async_json_match_evaluator, "json_match_evaluator"),
    "trajectory": (create_trajectory_match_evaluator, "trajectory_strict_match"),
    "trajectory async": (create_async_trajectory_match_evaluator, "trajectory_strict_match"),
    "graph": (create_graph_trajectory_match_evaluator, "graph_trajectory_match"),
    "graph async": (create_async_graph_trajectory_match_evaluator, "graph_trajectory_match"),
}
WITHOUT_REFERENCE = {
    "graph rules": create_graph_trajectory_rules_evaluator,
    "graph rules async": create_async_graph_trajectory_rules_evaluator,
}


def _call(evaluator: Any, *args: Any, **kwargs: Any) -> Any:
    result = evaluator(*args, **kwargs)
    return asyncio.run(result) if inspect.isawaitable(result) else result


@pytest.mark.parametrize("name", list(WITH_REFERENCE))
def test_a_positional_call_says_how_to_call(name: str) -> None:
    factory, shown = WITH_REFERENCE[name]
    evaluator = factory()
    expected = (
        f"{shown} takes keyword arguments: call it as {shown}(outputs=..., reference_outputs=...), "
        "not with 2 positional arguments"
    )
    with pytest.raises(TypeError) as caught:
        _call(evaluator, {"a": 1}, {"a": 1})
    assert str(caught.value) == expected
    with pytest.raises(TypeError, match=rf"^{shown} needs reference_outputs=\.\.\."):
        _call(evaluator, outputs={"a": 1})
    assert str(inspect.signature(evaluator)) == "(*, outputs, reference_outputs, **kwargs)"
    assert pickle.loads(pickle.dumps(evaluator)).__name__ == evaluator.__name__


@pytest.mark.parametrize("name", list(WITHOUT_REFERENCE))
def test_a_rules_evaluator_takes_outputs_only(name: str) -> None:
    evaluator = WITHOUT_REFERENCE[name](forbidden=["x"])
    with pytest.raises(
        TypeError, match=r"call it as graph_trajectory_rules\(outputs=\.\.\.\), not"
    ):
        _call(evaluator, {"steps": [["a"]]})
    with pytest.raises(TypeError, match=r"^graph_trajectory_rules needs outputs=\.\.\."):
        _call(evaluator)
    assert str(inspect.signature(evaluator)) == "(*, outputs, **kwargs)"
    assert _call(evaluator, outputs={"steps": [["a"]]})[0]["score"] is True
