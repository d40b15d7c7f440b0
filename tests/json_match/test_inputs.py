"""Inputs as they come: JSON strings, pydantic models, dataclasses, messages, plain lists."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from matchevals.json_match import create_json_match_evaluator
from tests.json_match.helpers import both, scores


class Address(BaseModel):
    city: str
    zip: str


class Person(BaseModel):
    name: str
    age: int
    address: Address


@dataclass
class Point:
    x: int
    y: int


REFERENCE = {"name": "Ada", "age": 36, "address": {"city": "London", "zip": "W1"}}


@pytest.mark.parametrize(
    "outputs",
    [
        '{"name": "Ada", "age": 36, "address": {"city": "London", "zip": "W1"}}',
        '```json\n{"name": "Ada", "age": 36, "address": {"city": "London", "zip": "W1"}}\n```',
        Person(name="Ada", age=36, address=Address(city="London", zip="W1")),
        AIMessage(content='{"name": "Ada", "age": 36, "address": {"city": "London", "zip": "W1"}}'),
        AIMessage(
            content=[
                {"type": "text", "text": '{"name": "Ada", "age": 36, '},
                '"address": {"city": "London", "zip": "W1"}}',
            ]
        ),
    ],
    ids=["json", "fenced", "pydantic", "message", "message-blocks"],
)
async def test_outputs_as_they_come_score_like_the_dict(outputs: Any) -> None:
    assert scores(await both(outputs, REFERENCE)) == {"address": 1, "age": 1, "name": 1}
    assert scores(await both(outputs, REFERENCE, nested=True)) == {
        "address.city": 1,
        "address.zip": 1,
        "age": 1,
        "name": 1,
    }
    assert scores(await both(REFERENCE, outputs)) == {"address": 1, "age": 1, "name": 1}


async def test_dataclasses_and_lists_of_models() -> None:
    assert scores(await both(Point(1, 2), {"x": 1, "y": 3})) == {"x": 1, "y": 0}
    people = [
        Person(name="Bob", age=5, address=Address(city="Rome", zip="1")),
        Person(name="Ada", age=36, address=Address(city="London", zip="W1")),
    ]
    references = [REFERENCE, {"name": "Bob", "age": 5, "address": {"city": "Rome", "zip": "1"}}]
    (result,) = await both(people, references, aggregator="all")
    assert result["score"] == 1
    assert result["metadata"] == {"alignment": [[0, 1], [1, 0]]}
    assert (await both("[1, 2]", [2, 1], aggregator="all"))[0]["score"] == 1


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ('{"name": "Ada" "age": 36}', r"Expecting ',' delimiter at line 1 column 16"),
        ('{"name": "Ada", "age": }', r'"age": ⟨here⟩}'),
        ("Sure! Here is the JSON: {}", r"Expecting value at line 1 column 1"),
        ("", "Expecting value"),
    ],
)
def test_unparseable_json_is_a_value_error_quoting_where_parsing_failed(
    text: str, quoted: str
) -> None:
    evaluator = create_json_match_evaluator()
    with pytest.raises(ValueError, match="outputs is a string that is not valid JSON: .*" + quoted):
        evaluator(outputs=text, reference_outputs={"a": 1})
    with pytest.raises(ValueError, match="reference_outputs is a string that is not valid JSON"):
        evaluator(outputs={"a": 1}, reference_outputs=text)
    with pytest.raises(ValueError, match="outputs is a message whose content that is not valid"):
        evaluator(outputs=AIMessage(content=text), reference_outputs={"a": 1})


def test_json_holding_something_else_is_a_type_error() -> None:
    evaluator = create_json_match_evaluator()
    with pytest.raises(
        TypeError, match="outputs is a string holding a JSON number, expected an object"
    ):
        evaluator(outputs="5", reference_outputs={"a": 1})
    with pytest.raises(TypeError, match=r"reference_outputs is a list but|outputs is an object"):
        evaluator(outputs='{"a": 1}', reference_outputs="[1]")


async def test_lists_of_strings_are_multisets_in_set_modes() -> None:
    outputs, references = ["b", "a", "a", "c"], ["a", "b", "a"]
    results = await both(outputs, references, list_aggregator="average")
    assert scores(results) == {"[]": 0.75}  # same_elements: "c" has no partner
    assert results[0]["comment"] == 'outputs[3] ("c") has no partner in reference_outputs'
    assert scores(await both(outputs, references, list_match_mode="superset")) == {"[]": 1}
    assert scores(await both(outputs, references, list_match_mode="subset")) == {"[]": 0}
    ordered = await both(outputs, references, list_match_mode="ordered", list_aggregator="average")
    assert scores(ordered) == {"[]": 0.25}  # only index 2 ("a") agrees
    assert ordered[0]["comment"].startswith(
        '[] (outputs[0] vs reference_outputs[0]): expected "a", got "b"'
    )
    (average,) = await both(outputs, references, aggregator="average", list_aggregator="average")
    assert average["score"] == 0.75
    assert scores(await both([], [])) == {}
    assert scores(await both([1, True, None], [None, 1.0, True], aggregator="all")) == {"all": 1}
    assert scores(await both([1], [True], aggregator="all")) == {"all": 0}
    assert scores(await both([[1, 2]], [[2, 1]], aggregator="all")) == {"all": 0}


async def test_value_lists_inside_documents_use_their_path() -> None:
    outputs = {"tags": ["x", "y", "z"], "meta": {"labels": ["a"]}}
    references = {"tags": ["y", "x"], "meta": {"labels": ["a", "b"]}}
    assert scores(await both(outputs, references, nested=True, list_aggregator="average")) == {
        "meta.labels": 0.5,
        "tags": 2 / 3,
    }


def test_mixed_lists_are_a_type_error_naming_the_item() -> None:
    evaluator = create_json_match_evaluator()
    with pytest.raises(TypeError, match=r"reference_outputs\[1\] is an object, expected a plain"):
        evaluator(outputs=["a"], reference_outputs=["a", {"b": 1}])
    with pytest.raises(TypeError, match=r"outputs\[0\] is a string, expected an object"):
        evaluator(outputs=[{"b": 1}], reference_outputs=["a"])
    with pytest.raises(TypeError, match=r"^reference_outputs\[0\] is an object, expected a plain"):
        evaluator(outputs=["a"], reference_outputs=[{"b": 1}])


async def test_extra_keys_ignore_and_none_is_missing() -> None:
    outputs = {"a": 1, "debug": "x", "b": None}
    references = {"a": 1, "c": None}
    assert scores(await both(outputs, references)) == {"a": 1, "b": 0, "c": 0, "debug": 0}
    assert scores(await both(outputs, references, extra_keys="ignore")) == {"a": 1, "c": 0}
    assert scores(await both(outputs, references, none_is_missing=True)) == {"a": 1, "debug": 0}
    assert scores(await both(outputs, references, none_is_missing=True, extra_keys="ignore")) == {
        "a": 1
    }
    # The same rules pair list items: the extra key does not stop a perfect pairing.
    (result,) = await both(
        [{"id": 1, "debug": 1}, {"id": 2, "note": None}],
        [{"id": 2}, {"id": 1}],
        extra_keys="ignore",
        none_is_missing=True,
        aggregator="all",
    )
    assert result["score"] == 1
    assert result["metadata"]["alignment"] == [[0, 1], [1, 0]]
    with pytest.raises(ValueError, match="extra_keys"):
        create_json_match_evaluator(extra_keys="drop")
    with pytest.raises(TypeError, match="none_is_missing"):
        create_json_match_evaluator(none_is_missing=1)


def test_converted_inputs_are_never_mutated() -> None:
    people = [Person(name="Ada", age=36, address=Address(city="London", zip="W1")), {"x": 1}]
    before = copy.deepcopy(people)
    create_json_match_evaluator(nested=True)(outputs=people, reference_outputs=[{"x": 2}])
    assert people == before
