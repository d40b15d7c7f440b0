"""Values that are not JSON (sets, bytes, dates, Decimals, objects whose ``__eq__`` or ``__hash__``
raise), keys that are not strings, and path patterns that invite catastrophic regex backtracking:
the value's JSON form under the value-conversion policy, or a clear ValueError/TypeError, never
another exception or a hang."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from matchevals.graph_trajectory import graph_trajectory_match
from matchevals.json_match import create_json_match_evaluator
from tests.robustness._support import check_json_results, outcome, run_python


class RaisingEq:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__ failed")

    __hash__ = None  # type: ignore[assignment]


class RaisingHash:
    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        raise RuntimeError("__hash__ failed")


CONVERTED: dict[str, tuple[Any, Any]] = {  # value -> what the value-conversion policy makes of it
    "set": ({2, 1}, [1, 2]),
    "frozenset": (frozenset({1}), [1]),
    "bytes": (b"x", "x"),
    "datetime": (datetime.datetime(2020, 1, 1), "2020-01-01T00:00:00"),
    "decimal": (decimal.Decimal("1.5"), "1.5"),
}
REFUSED: dict[str, Any] = {
    "complex": 1j,
    "object with a raising __eq__": RaisingEq(),
    "object with a raising __hash__": RaisingHash(),
}


@pytest.mark.parametrize("name", list(CONVERTED))
@pytest.mark.parametrize("nested", [False, True])
def test_a_non_json_value_is_compared_as_its_json_form(name: str, nested: bool) -> None:
    value, converted = CONVERTED[name]
    evaluator = create_json_match_evaluator(nested=nested)
    results = evaluator(outputs={"a": value, "b": 1}, reference_outputs={"a": 1, "b": 1})
    check_json_results(results)
    assert [(r["key"], r["score"]) for r in results] == [("json_match:a", 0), ("json_match:b", 1)]
    assert results[0]["comment"].startswith("a: expected 1, got ")
    same = evaluator(outputs={"a": value, "b": 1}, reference_outputs={"a": converted, "b": 1})
    assert [r["score"] for r in same] == [1, 1]


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.parametrize("nested", [False, True])
def test_a_value_without_a_json_form_is_a_type_error_naming_its_path(
    name: str, nested: bool
) -> None:
    evaluator = create_json_match_evaluator(
        aggregator="average", list_aggregator="average", nested=nested
    )
    kind, value = outcome(
        lambda: evaluator(
            outputs=[{"a": REFUSED[name]}, {"a": 2}], reference_outputs=[{"a": 2}, {"a": 1}]
        )
    )
    assert kind == "error" and isinstance(value, TypeError)
    assert str(value).startswith("outputs[0].a: a value of type ")


def test_non_string_keys_become_their_json_text() -> None:
    evaluator = create_json_match_evaluator()
    results = evaluator(outputs={1: "a", "b": 2}, reference_outputs={"1": "a", "b": 2})
    assert [(r["key"], r["score"]) for r in results] == [("json_match:1", 1), ("json_match:b", 1)]
    with pytest.raises(ValueError, match=r"^outputs: the keys 1 and '1' are both '1' in JSON"):
        evaluator(outputs={1: "a", "1": "b"}, reference_outputs={"1": "a"})


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([[b"a"]], "outputs.steps[0][0] is a bytes, expected a node name (str)"),
        ([["a", None]], "outputs.steps[0][1] is None, expected a node name (str)"),
        ([{"a"}], "outputs.steps[0] is a set, expected a list of node names"),
        ("ab", "outputs.steps is a str; expected a list of supersteps"),
    ],
)
def test_graph_non_string_nodes_are_type_errors(steps: Any, message: str) -> None:
    with pytest.raises(TypeError) as caught:
        graph_trajectory_match(outputs={"steps": steps}, reference_outputs={"steps": [["a"]]})
    assert str(caught.value) == message


def test_graph_tuples_are_accepted_as_lists() -> None:
    result = graph_trajectory_match(
        outputs={"steps": (("a",), ("c", "b"))}, reference_outputs={"steps": [["a"], ["b", "c"]]}
    )
    assert result["score"] is True


def test_a_path_pattern_cannot_make_matching_hang() -> None:
    completed = run_python(
        "from matchevals.json_match import create_json_match_evaluator\n"
        "value, other = 1, 2\n"
        "for _ in range(60):\n"
        "    value, other = {'a': value}, {'a': other}\n"
        "evaluator = create_json_match_evaluator(\n"
        "    nested=True, exclude_keys=['**.**.**.**.**.**.**.**.x'], aggregator='average')\n"
        "print(evaluator(outputs=value, reference_outputs=other)[0]['score'])\n",
        timeout=15,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip() == "0.0"
