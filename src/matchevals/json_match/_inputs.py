"""Outputs and references as they come: JSON strings, pydantic models, dataclasses, messages.

:func:`to_json_value` turns one ``outputs`` / ``reference_outputs`` argument into plain JSON data
before scoring (dicts and lists pass through untouched, and inputs are never mutated):

- a ``str`` is parsed as JSON (a surrounding Markdown code fence such as ```` ```json ```` is
  dropped); text that does not parse is a ``ValueError`` quoting where parsing failed;
- a LangChain message (anything with ``content`` and ``additional_kwargs``) is its content, parsed
  as JSON (text blocks of a list content are joined first);
- anything else goes through the value-conversion policy, :func:`matchevals._conversion.to_json`
  (pydantic models, dataclasses, enums, dates, tuples, sets, non-string keys, ... at any depth).

:func:`input_kind` then tells what the two arguments are: two objects (``object``), two lists
of objects (``records``) or two lists of plain ``values``, and refuses anything else with a
TypeError naming the fault.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal

from matchevals._conversion import to_json
from matchevals._values import describe_type

__all__ = ["InputKind", "input_kind", "to_json_value"]

_FENCE = re.compile(r"\A\s*```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)\r?\n?```\s*\Z", re.DOTALL)
_CONTEXT = 24


def to_json_value(value: Any, name: str) -> Any:
    """Plain JSON data for one argument; ``name`` (``"outputs"``) goes into error messages.

    >>> to_json_value('{"a": [1, 2]}', "outputs")
    {'a': [1, 2]}
    """
    kind = type(value)
    if kind is str:
        return _parse(value, name, "a string")
    if kind is not dict and kind is not list and _is_message(value):
        return _parse(_message_text(value, name), name, "a message whose content")
    return to_json(value, name)


def _is_message(value: Any) -> bool:
    return hasattr(value, "content") and hasattr(value, "additional_kwargs")


def _message_text(message: Any, name: str) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        return "".join(texts)
    raise TypeError(
        f"{name} is a {type(message).__name__} whose content is a {describe_type(content)}, "
        "expected JSON text"
    )


def _parse(text: str, name: str, what: str) -> Any:
    fenced = _FENCE.match(text)
    source = fenced.group(1) if fenced else text
    try:
        parsed = json.loads(source)
    except json.JSONDecodeError as error:
        start = max(0, error.pos - _CONTEXT)
        before = source[start : error.pos]
        after = source[error.pos : error.pos + _CONTEXT]
        snippet = ("…" if start else "") + before + "⟨here⟩" + after
        if error.pos + _CONTEXT < len(source):
            snippet += "…"
        raise ValueError(
            f"{name} is {what} that is not valid JSON: {error.msg} at line {error.lineno} "
            f"column {error.colno} (char {error.pos}): {snippet!r}"
        ) from None
    except RecursionError:
        raise ValueError(f"{name} is {what} holding JSON nested too deeply") from None
    if type(parsed) is not dict and type(parsed) is not list:
        raise TypeError(
            f"{name} is {what} holding a JSON {describe_type(parsed)}, expected an object or a list"
        )
    return parsed


InputKind = Literal["object", "records", "values"]


def input_kind(outputs: Any, reference_outputs: Any) -> InputKind:
    """``object``, ``records`` or ``values`` (lists of plain values); TypeError naming the fault.

    >>> input_kind([1, "a"], [])
    'values'
    """
    if type(outputs) is dict and type(reference_outputs) is dict:
        return "object"
    for name, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        if not isinstance(value, (Mapping, list)):
            raise TypeError(
                f"{name} is a {describe_type(value)}, expected an object or a list of objects"
            )
    if isinstance(outputs, list) != isinstance(reference_outputs, list):
        kinds = [
            "a list" if isinstance(v, list) else "an object" for v in (outputs, reference_outputs)
        ]
        raise TypeError(
            f"outputs is {kinds[0]} but reference_outputs is {kinds[1]}; "
            "pass two objects or two lists of objects"
        )
    if not isinstance(outputs, list):
        return "object"
    first: Any = next(iter(outputs), next(iter(reference_outputs), {}))
    want_objects = isinstance(first, Mapping)
    for name, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        for index, item in enumerate(value):
            if isinstance(item, Mapping) != want_objects:
                if want_objects:
                    raise TypeError(
                        f"{name}[{index}] is a {describe_type(item)}, expected an object"
                    )
                raise TypeError(
                    f"{name}[{index}] is an object, expected a plain value: a list holds either "
                    "objects or plain values (strings, numbers, booleans, null, lists)"
                )
    return "records" if want_objects else "values"
