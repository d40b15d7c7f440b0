"""The value-conversion policy: every Python value becomes the same JSON data wherever it sits.

A value and its JSON form score 1 against each other in json_match (flat, records, ``nested``),
tool-call arguments and graph results, sync and async; a value without a JSON form is the same
error, naming its path, everywhere. Each row of the policy is checked for the exact JSON it
gives, and a property test disguises random JSON (dataclasses, pydantic models, enums, tuples,
sets, numpy scalars, non-string keys, dates, Decimals, UUIDs) at random depths.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import enum
import ipaddress
import json
import keyword
import pathlib
import types
import uuid
from collections import OrderedDict
from typing import Any, NamedTuple

import numpy as np
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    create_async_graph_trajectory_match_evaluator,
    create_graph_trajectory_match_evaluator,
)
from matchevals.json_match import (
    comparators,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from matchevals.trajectory import (
    TurnStep,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)


class Color(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Point(NamedTuple):
    x: int
    y: int


@dataclasses.dataclass
class Visit:
    day: datetime.date
    cost: decimal.Decimal
    color: Color


class VisitModel(pydantic.BaseModel):
    day: datetime.date
    cost: decimal.Decimal
    color: Color


class Text(str):
    pass


UTC = datetime.timezone.utc

# (Python value, the JSON data it becomes)
POLICY: list[tuple[str, Any, Any]] = [
    ("tuple", (1, "a"), [1, "a"]),
    ("named tuple", Point(1, 2), [1, 2]),
    ("set", {"b", "a", "c"}, ["a", "b", "c"]),
    ("frozenset of numbers", frozenset({10, 9}), [10, 9]),  # sorted by JSON text
    ("int keys", {2: "x", 10: "y"}, {"2": "x", "10": "y"}),
    ("bool, null and float keys", {True: 1, None: 2, 1.5: 3}, {"true": 1, "null": 2, "1.5": 3}),
    ("enum keys", {Color.RED: 1}, {"red": 1}),
    ("mapping proxy", types.MappingProxyType({"a": 1}), {"a": 1}),
    ("ordered dict", OrderedDict(a=1), {"a": 1}),
    (
        "dataclass",
        Visit(datetime.date(2024, 5, 1), decimal.Decimal("1.50"), Color.RED),
        {"day": "2024-05-01", "cost": "1.50", "color": "red"},
    ),
    (
        "pydantic model",
        VisitModel(day="2024-05-01", cost="1.50", color="red"),
        {"day": "2024-05-01", "cost": "1.50", "color": "red"},
    ),
    ("enum", Color.RED, "red"),
    ("int enum", Level.HIGH, 3),
    ("str subclass", Text("hi"), "hi"),
    ("date", datetime.date(2024, 5, 1), "2024-05-01"),
    ("datetime", datetime.datetime(2024, 5, 1, 12, 30), "2024-05-01T12:30:00"),
    ("utc datetime", datetime.datetime(2024, 5, 1, tzinfo=UTC), "2024-05-01T00:00:00Z"),
    ("time", datetime.time(12, 30), "12:30:00"),
    ("timedelta", datetime.timedelta(days=1, seconds=3), "P1DT3S"),
    ("decimal", decimal.Decimal("1.50"), "1.50"),
    ("uuid", uuid.UUID(int=5), "00000000-0000-0000-0000-000000000005"),
    ("path", pathlib.Path("/tmp/x"), "/tmp/x"),
    ("ip address", ipaddress.ip_address("10.0.0.1"), "10.0.0.1"),
    ("bytes", b"caf\xc3\xa9", "café"),
    ("numpy bool", np.bool_(True), True),
    ("numpy int", np.int64(7), 7),
    ("numpy float", np.float32(0.5), 0.5),
    ("numpy array", np.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]]),
]


@pytest.mark.parametrize(("name", "value", "expected"), POLICY, ids=[row[0] for row in POLICY])
def test_each_kind_of_value_becomes_this_json(name: str, value: Any, expected: Any) -> None:
    evaluator = create_json_match_evaluator(aggregator="all")
    assert evaluator(outputs={"v": value}, reference_outputs={"v": expected})[0]["score"] == 1
    other = evaluator(outputs={"v": value}, reference_outputs={"v": "other"})[0]
    rendered = json.dumps(expected, ensure_ascii=False, sort_keys=True)
    assert other["comment"] == f'v: expected "other", got {rendered}'
    assert other["metadata"]["mismatches"][0]["actual"] == expected


def test_true_is_not_one_even_as_a_numpy_bool() -> None:
    evaluator = create_json_match_evaluator(aggregator="all")
    assert evaluator(outputs={"a": np.bool_(True)}, reference_outputs={"a": True})[0]["score"] == 1
    assert evaluator(outputs={"a": np.bool_(True)}, reference_outputs={"a": 1})[0]["score"] == 0


def test_a_pydantic_model_scores_the_same_at_every_depth() -> None:
    class M(pydantic.BaseModel):
        a: int

    evaluator = create_json_match_evaluator(aggregator="all")
    nested = create_json_match_evaluator(aggregator="all", nested=True)
    assert evaluator(outputs=M(a=1), reference_outputs={"a": 1})[0]["score"] == 1
    assert evaluator(outputs={"m": M(a=1)}, reference_outputs={"m": {"a": 1}})[0]["score"] == 1
    assert nested(outputs=[{"m": [M(a=1)]}], reference_outputs=[{"m": [{"a": 1}]}])[0]["score"] == 1


def test_a_tuple_of_objects_is_a_list_of_objects() -> None:
    evaluator = create_json_match_evaluator(aggregator="all")
    assert evaluator(outputs=({"a": 1},), reference_outputs=[{"a": 1}])[0]["score"] == 1


def test_integer_keys_equal_their_text_without_a_contradicting_comment() -> None:
    evaluator = create_json_match_evaluator(aggregator="all")
    result = evaluator(outputs={"m": {1: "x"}}, reference_outputs={"m": {"1": "x"}})[0]
    assert (result["score"], result["comment"]) == (1, None)


# --- refusals: the same error, naming the path, wherever the value sits -------------------------


class Opaque:
    pass


def _cycle() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["again"] = value
    return value


REFUSED: list[tuple[str, Any, type[Exception], str]] = [
    ("complex", 1j, TypeError, ".v: a value of type complex has no JSON form"),
    ("object", Opaque(), TypeError, ".v: a value of type Opaque has no JSON form"),
    ("class", Opaque, TypeError, ".v: a value of type type has no JSON form"),
    ("generator", (i for i in range(2)), TypeError, ".v: a value of type generator has no"),
    ("non-UTF-8 bytes", b"\xff", ValueError, ".v: bytes that are not UTF-8 text have no JSON"),
    ("colliding keys", {1: "a", "1": "b"}, ValueError, ".v: the keys 1 and '1' are both '1'"),
    ("tuple key", {(1, 2): "a"}, TypeError, ".v: the key (1, 2) has no JSON form"),
    ("cycle", _cycle(), ValueError, ".v.again: the value contains itself"),
]
REFUSED_IDS = [row[0] for row in REFUSED]


def _json_match(value: Any, asynchronous: bool) -> None:
    factory = create_async_json_match_evaluator if asynchronous else create_json_match_evaluator
    call = factory()(outputs={"v": value}, reference_outputs={"v": 1})
    if asynchronous:
        asyncio.run(call)


def _trajectory(value: Any, asynchronous: bool) -> None:
    factory = (
        create_async_trajectory_match_evaluator
        if asynchronous
        else create_trajectory_match_evaluator
    )
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": "f", "args": {"v": value}}],
    }
    call = factory()(outputs=[message], reference_outputs=[message])
    if asynchronous:
        asyncio.run(call)


def _turn_pattern(value: Any, asynchronous: bool) -> None:
    factory = (
        create_async_trajectory_match_evaluator
        if asynchronous
        else create_trajectory_match_evaluator
    )
    outputs = [{"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": {}}]}]
    pattern = {"turns": [{"calls": [{"name": "f", "args": {"v": value}}]}]}
    call = factory(trajectory_match_mode="pattern")(outputs=outputs, reference_outputs=pattern)
    if asynchronous:
        asyncio.run(call)


def _graph(value: Any, asynchronous: bool) -> None:
    factory = (
        create_async_graph_trajectory_match_evaluator
        if asynchronous
        else create_graph_trajectory_match_evaluator
    )
    run = {"steps": [["a"]], "results": {"v": value}}
    call = factory(eval_results=True)(outputs=run, reference_outputs=run)
    if asynchronous:
        asyncio.run(call)


WHERE = {
    "json_match": (_json_match, "outputs"),
    "tool arguments": (_trajectory, "outputs[0].tool_calls[0].args"),
    "turn pattern arguments": (_turn_pattern, "reference_outputs.turns[0].calls[0].args"),
    "graph results": (_graph, "outputs.results"),
}


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("where", list(WHERE))
@pytest.mark.parametrize(("name", "value", "error", "message"), REFUSED, ids=REFUSED_IDS)
def test_a_value_without_a_json_form_is_the_same_error_everywhere(
    name: str, value: Any, error: type[Exception], message: str, where: str, asynchronous: bool
) -> None:
    evaluate, path = WHERE[where]
    with pytest.raises(error) as caught:
        evaluate(value, asynchronous)
    assert str(caught.value).startswith(path + message)


# --- the property: a value and its disguises score 1 against each other, everywhere ------------

_IDENTIFIER = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and not name.startswith("model_")
)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
)


def _sort_key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False)


@st.composite
def _disguised_scalar(draw: st.DrawFn, value: Any) -> Any:
    """A Python value whose JSON form is ``value`` (a JSON scalar)."""
    if isinstance(value, bool):
        return draw(st.sampled_from([value, np.bool_(value)]))
    if isinstance(value, int):
        choices: list[Any] = [value, enum.IntEnum("E", {"V": value}).V]
        if -(2**63) <= value < 2**63:
            choices.append(np.int64(value))
        return draw(st.sampled_from(choices))
    if isinstance(value, float):
        return draw(st.sampled_from([value, np.float64(value)]))
    if isinstance(value, str):
        return draw(st.sampled_from([value, Text(value), enum.Enum("E", {"V": value}).V]))
    return value


@st.composite
def _disguised_list(draw: st.DrawFn, items: list[tuple[Any, Any]]) -> tuple[Any, Any]:
    plain = [pair[0] for pair in items]
    disguised = [pair[1] for pair in items]
    return plain, draw(st.sampled_from([disguised, tuple(disguised)]))


@st.composite
def _disguised_object(draw: st.DrawFn, fields: dict[str, tuple[Any, Any]]) -> tuple[Any, Any]:
    plain = {key: pair[0] for key, pair in fields.items()}
    disguised = {key: pair[1] for key, pair in fields.items()}
    kinds = ["dict", "proxy"]
    if all(key.isidentifier() for key in disguised):
        kinds += ["dataclass", "model"]
    kind = draw(st.sampled_from(kinds))
    if kind == "proxy":
        return plain, types.MappingProxyType(disguised)
    if kind == "dataclass":
        cls = dataclasses.make_dataclass("D", [(key, Any) for key in disguised])
        return plain, cls(**disguised)
    if kind == "model":
        model = pydantic.create_model(  # type: ignore[call-overload]
            "M", __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
            **{key: (Any, ...) for key in disguised},
        )  # fmt: skip
        return plain, model(**disguised)
    return plain, disguised


_LEAF = st.one_of(
    _SCALAR.flatmap(lambda value: st.tuples(st.just(value), _disguised_scalar(value))),
    st.dates().map(lambda day: (day.isoformat(), day)),
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(lambda d: (str(d), d)),
    st.uuids().map(lambda u: (str(u), u)),
    st.lists(st.text(max_size=3), unique=True, max_size=4).map(
        lambda items: (sorted(items, key=_sort_key), set(items))
    ),
    st.integers(0, 99).map(lambda n: ({str(n): n}, {n: n})),
)
PAIRS = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).flatmap(_disguised_list),
        st.dictionaries(_IDENTIFIER, inner, max_size=3).flatmap(_disguised_object),
    ),
    max_leaves=8,
)
OBJECTS = st.dictionaries(_IDENTIFIER, PAIRS, min_size=1, max_size=3).flatmap(_disguised_object)


def _scores(results: Any) -> list[Any]:
    return [result["score"] for result in (results if isinstance(results, list) else [results])]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OBJECTS)
def test_a_value_and_its_json_form_score_1_wherever_they_sit(pair: tuple[Any, Any]) -> None:
    plain, disguised = pair
    before = repr(disguised)
    json_match = create_json_match_evaluator(aggregator="all")
    nested = create_json_match_evaluator(aggregator="all", nested=True)
    cases = [
        (json_match, disguised, plain),
        (json_match, {"x": disguised}, {"x": plain}),
        (json_match, [{"x": disguised}, {"y": 1}], [{"y": 1}, {"x": plain}]),
        (nested, {"x": [disguised]}, {"x": [plain]}),
        (json_match, plain, disguised),
    ]
    for evaluator, outputs, references in cases:
        assert _scores(evaluator(outputs=outputs, reference_outputs=references)) == [1]
    async_json = create_async_json_match_evaluator(aggregator="all", nested=True)
    result = asyncio.run(async_json(outputs={"x": [disguised]}, reference_outputs={"x": [plain]}))
    assert _scores(result) == [1]

    calls = [{"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": disguised}]}]
    reference = [{"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": plain}]}]
    trajectory = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert trajectory(outputs=calls, reference_outputs=reference)["score"] is True

    pattern = create_trajectory_match_evaluator(trajectory_match_mode="pattern")
    turns = [TurnStep([{"name": "f", "args": disguised}])]
    assert pattern(outputs=reference, reference_outputs=turns)["score"] is True

    graph = create_graph_trajectory_match_evaluator(eval_results=True)
    run = {"steps": [["a"]], "results": {"r": disguised}}
    assert (
        graph(outputs=run, reference_outputs={"steps": [["a"]], "results": {"r": plain}})["score"]
        is True
    )
    assert repr(disguised) == before  # nothing the user passed is mutated


def test_one_of_values_follow_the_policy() -> None:
    evaluator = create_json_match_evaluator(
        aggregator="all", comparators={"c": comparators.one_of([Color.RED, "crimson"])}
    )
    assert evaluator(outputs={"c": "red"}, reference_outputs={"c": "scarlet"})[0]["score"] == 1
    with pytest.raises(TypeError, match=r"^one_of\(values\)\[0\]: a value of type Opaque"):
        comparators.one_of([Opaque()])
