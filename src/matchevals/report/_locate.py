"""Where each difference of a json_match result lies in the two values, as concrete paths.

A result's ``metadata["mismatches"]`` names a difference by its *path as results are keyed*
(``items[*].price``, ``[]``) and, inside lists, by the *items* that were paired
(``outputs.items[2]`` vs ``reference_outputs.items[0]``). The report highlights nodes of the
two values, so each difference is turned into a concrete path on each side: a list of keys and
indexes (``["items", 2, "price"]``). A whole object or list that differs is opened up into the
leaves that differ (:func:`matchevals._differences.walk`), as the pytest plugin's table does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from matchevals._differences import (
    CALL_KINDS,
    UNPAIRED_KINDS,
    Kind,
    actual_is_absent,
    expected_is_absent,
    shown_pair,
    walk,
)
from matchevals._path_text import ANY_ITEM, Token, parse_path, path_text
from matchevals._values import render

__all__ = ["Located", "locate_differences", "locate_divergences"]

_VALUE_WIDTH = 120
_OPENED_LIMIT = 200


@dataclass(frozen=True)
class Located:
    """One difference: its key, kind, readable path, short values and where it is on each side
    (None where that side has no such node: a missing key, an unpaired item)."""

    key: str
    kind: str
    path: str
    expected: str
    actual: str
    at_expected: tuple[Token, ...] | None
    at_actual: tuple[Token, ...] | None


def _path_shown(tokens: Sequence[Token]) -> str:
    """A concrete path as the page shows it.

    >>> _path_shown(["items", 2, "price"]), _path_shown([0, "a.b"]), _path_shown([])
    ('items[2].price', '[0]["a.b"]', '(the whole value)')
    """
    return path_text(tokens) or "(the whole value)"


def _locator(text: Any) -> list[Token] | None:
    """``outputs.items[2]`` → ``["items", 2]`` (the root name dropped)."""
    if not isinstance(text, str) or not text:
        return None
    tokens = parse_path(text)
    if tokens and tokens[0] in ("outputs", "reference_outputs"):
        return tokens[1:]
    return tokens


def _fits(pattern: Sequence[Token], concrete: Sequence[Token]) -> bool:
    return all(
        p == c or (p is ANY_ITEM and isinstance(c, int))
        for p, c in zip(pattern, concrete, strict=False)
    )


def _join(locator: list[Token] | None, path: list[Token]) -> list[Token]:
    """The concrete path of ``path`` (keyed as results are, maybe with ``*``) given the item it
    was found in: ``items[*].q`` in ``items[2]`` is ``items[2].q``; ``x`` in ``x[1]`` (a list of
    plain values) is ``x[1]``; ``b`` in ``[1]`` (an item of a top-level list) is ``[1].b``."""
    if locator is None:
        return [token for token in path if token is not ANY_ITEM]
    for start in range(len(locator) + 1):
        rest = locator[start:]
        if len(path) >= len(rest) and _fits(path, rest):
            return [*locator, *(t for t in path[len(rest) :] if t is not ANY_ITEM)]
        if len(path) < len(rest) and _fits(path, rest):
            return list(locator)
    return list(locator)  # not reached: an empty rest always fits


def _exists(value: Any, tokens: Sequence[Token]) -> bool:
    node = value
    for token in tokens:
        in_list = isinstance(token, int) and isinstance(node, list) and 0 <= token < len(node)
        in_object = isinstance(token, str) and isinstance(node, Mapping) and token in node
        if not (in_list or in_object):
            return False
        node = node[token]
    return True


def _value_at(value: Any, tokens: Sequence[Token]) -> Any:
    node = value
    for token in tokens:
        node = node[token]
    return node


def _short(value: Any) -> str:
    return render(value, _VALUE_WIDTH)


def _shown(expected: Any, actual: Any, kind: str) -> tuple[str, str]:
    """Both values as the page shows them: ``—`` for a side the kind says is absent."""
    if expected_is_absent(kind) or actual_is_absent(kind):
        return (
            "—" if expected_is_absent(kind) else _short(expected),
            "—" if actual_is_absent(kind) else _short(actual),
        )
    return shown_pair(expected, actual, _VALUE_WIDTH)


def locate_differences(
    results: Sequence[Mapping[str, Any]], outputs: Any, reference_outputs: Any
) -> list[Located]:
    """Every difference the results' mismatches name, with its concrete path on each side.

    >>> found = locate_differences(
    ...     [{"key": "json_match:b", "score": 0, "metadata": {"mismatches": [
    ...         {"path": "b", "expected": 5, "actual": 4, "score": 0,
    ...          "outputs": "outputs[1]", "reference_outputs": "reference_outputs[0]"}]}}],
    ...     [{"b": 2}, {"b": 4}], [{"b": 5}, {"b": 2}])
    >>> [(d.path, d.at_expected, d.at_actual) for d in found]
    [('[1].b', (0, 'b'), (1, 'b'))]
    """
    found: dict[tuple[Any, ...], Located] = {}
    for result in results:
        metadata = result.get("metadata")
        mismatches = metadata.get("mismatches") if isinstance(metadata, Mapping) else None
        for mismatch in mismatches or ():
            if not isinstance(mismatch, Mapping):
                continue
            for located in _locate(str(result.get("key")), mismatch, outputs, reference_outputs):
                identity = (located.path, located.at_expected, located.at_actual, located.kind)
                first = found.get(identity)
                if first is None:
                    found[identity] = located
                elif located.key not in first.key.split(", "):  # one difference, several keys
                    found[identity] = replace(first, key=f"{first.key}, {located.key}")
    return list(found.values())


def _locate(
    key: str, mismatch: Mapping[str, Any], outputs: Any, reference_outputs: Any
) -> Iterator[Located]:
    kind = str(mismatch.get("kind") or Kind.VALUE)
    if kind in CALL_KINDS and "name" in mismatch:
        yield _locate_call(key, kind, mismatch, outputs, reference_outputs)
        return
    raw_path = mismatch.get("path")
    path = parse_path(raw_path) if isinstance(raw_path, str) else []
    out_at = _locator(mismatch.get("outputs"))
    ref_at = _locator(mismatch.get("reference_outputs"))
    paired = out_at is not None or ref_at is not None
    actual_path = _join(out_at, path) if out_at is not None or not paired else None
    expected_path = _join(ref_at, path) if ref_at is not None or not paired else None
    whole: list[Token] = [raw_path] if isinstance(raw_path, str) else []
    if (  # a top-level key may hold dots: try it whole
        whole
        and not paired
        and not (_exists(outputs, path) or _exists(reference_outputs, path))
        and (_exists(outputs, whole) or _exists(reference_outputs, whole))
    ):
        actual_path = expected_path = whole
    if kind in UNPAIRED_KINDS:
        actual_path = out_at
        expected_path = ref_at
    if actual_is_absent(kind):
        actual_path = None
    if expected_is_absent(kind):
        expected_path = None
    expected, actual = mismatch.get("expected"), mismatch.get("actual")
    if (
        kind == Kind.VALUE
        and expected_path is not None
        and actual_path is not None
        and not isinstance(mismatch.get("score"), float)
        and _exists(reference_outputs, expected_path)
        and _exists(outputs, actual_path)
    ):
        leaves = [list(at) for at, _, _ in walk(expected, actual)][:_OPENED_LIMIT]
        if leaves and leaves != [[]]:
            for leaf in leaves:
                yield _leaf(key, kind, leaf, expected_path, actual_path, outputs, reference_outputs)
            return
    has_expected = expected_path is not None and _exists(reference_outputs, expected_path)
    has_actual = actual_path is not None and _exists(outputs, actual_path)
    shown = actual_path if actual_path is not None else expected_path
    shown_expected, shown_actual = _shown(expected, actual, kind)
    if kind in UNPAIRED_KINDS:  # the item of the side it is on
        shown_expected = "—" if ref_at is None else _short(expected)
        shown_actual = "—" if out_at is None else _short(actual)
    yield Located(
        key,
        kind,
        _path_shown(shown or []),
        shown_expected,
        shown_actual,
        tuple(expected_path) if has_expected and expected_path is not None else None,
        tuple(actual_path) if has_actual and actual_path is not None else None,
    )


# where a tool call keeps its arguments: LangChain's args, OpenAI's function.arguments (an
# object, or JSON text), Anthropic's input
_ARGUMENTS: tuple[tuple[Token, ...], ...] = (("args",), ("function", "arguments"), ("input",))


def _locate_call(
    key: str, kind: str, mismatch: Mapping[str, Any], outputs: Any, reference_outputs: Any
) -> Located:
    """A trajectory's tool-call difference, on both sides: the argument that differs (its
    arguments' node where they are JSON text, or where one side lacks it), or a whole call
    without its partner, named with its tool."""
    name = str(mismatch.get("name"))
    raw = mismatch.get("path")
    whole_call = kind == Kind.EXTRA_CALL or kind == Kind.MISSING_CALL
    argument = None if whole_call else parse_path(raw) if isinstance(raw, str) and raw else []
    at_expected, at_actual = (
        _argument_at(value, _locator(mismatch.get(side)), argument)
        for value, side in ((reference_outputs, "reference_outputs"), (outputs, "outputs"))
    )
    expected, actual = mismatch.get("expected"), mismatch.get("actual")
    if whole_call:
        return Located(
            key,
            kind,
            _path_shown(list(at_actual or at_expected or ())),
            f"{name}({_short(expected)})" if kind == Kind.MISSING_CALL else "—",
            f"{name}({_short(actual)})" if kind == Kind.EXTRA_CALL else "—",
            at_expected,
            at_actual,
        )
    path = f"{name} {path_text(argument or (), 'args')}"
    return Located(key, kind, path, *_shown(expected, actual, kind), at_expected, at_actual)


def _argument_at(
    value: Any, call: list[Token] | None, argument: list[Token] | None
) -> tuple[Token, ...] | None:
    """Where a call's ``argument`` is in ``value`` (the call itself where ``argument`` is None;
    its arguments' node where they hold no such node); None where the call is not there."""
    if call is None or not _exists(value, call):
        return None
    node = _value_at(value, call)
    if argument is None:
        return tuple(call)
    for base in _ARGUMENTS:
        if _exists(node, base):
            whole = [*call, *base, *argument]
            return tuple(whole) if _exists(value, whole) else (*call, *base)
    return tuple(call)


def _leaf(
    key: str,
    kind: str,
    leaf: list[Token],
    expected_path: list[Token],
    actual_path: list[Token],
    outputs: Any,
    reference_outputs: Any,
) -> Located:
    """One leaf of two differing containers, where each side has it (or does not)."""
    at_expected = [*expected_path, *leaf]
    at_actual = [*actual_path, *leaf]
    leaf_expected = _exists(reference_outputs, at_expected)
    leaf_actual = _exists(outputs, at_actual)
    return Located(
        key,
        kind if leaf_expected and leaf_actual else "missing" if leaf_expected else "extra",
        _path_shown(at_actual if leaf_actual else at_expected),
        _short(_value_at(reference_outputs, at_expected)) if leaf_expected else "—",
        _short(_value_at(outputs, at_actual)) if leaf_actual else "—",
        tuple(at_expected) if leaf_expected else None,
        tuple(at_actual) if leaf_actual else None,
    )


def _in_reference(reference: Any, tokens: Sequence[Token]) -> list[Token] | None:
    """A matcher's reference path in the JSON it came from: a ``Repeat``'s body is named
    ``.steps`` by the matcher and written ``"repeat"`` in JSON."""
    node, found = reference, []
    for token in tokens:
        if token == "steps" and isinstance(node, Mapping) and "steps" not in node:
            token = "repeat"
        in_list = isinstance(token, int) and isinstance(node, list) and 0 <= token < len(node)
        in_object = isinstance(token, str) and isinstance(node, Mapping) and token in node
        if not (in_list or in_object):
            return None
        node = node[token]
        found.append(token)
    return found


def _nodes_text(nodes: Any) -> str:
    return "[" + ", ".join(map(str, nodes)) + "]" if isinstance(nodes, list) else "—"


def locate_divergences(
    results: Sequence[Mapping[str, Any]], outputs: Any, reference_outputs: Any
) -> list[Located]:
    """Where each graph run first diverged, on both sides: the run's superstep and the
    reference step (or steps) expected there.

    >>> run, reference = {"steps": [["a"], ["c"]]}, {"steps": [["a"], ["b"]]}
    >>> meta = {"runs": [{"run": 0, "divergence": {"superstep": 1, "actual": ["c"],
    ...     "expected": [{"steps": ["b"], "match_mode": "unordered",
    ...                   "reference": "reference_outputs.steps[1]"}]}}]}
    >>> [(d.at_expected, d.at_actual) for d in locate_divergences(
    ...     [{"key": "graph", "score": False, "metadata": meta}], run, reference)]
    [(('steps', 1), ('steps', 1))]
    """
    found: list[Located] = []
    for result in results:
        metadata = result.get("metadata")
        runs = metadata.get("runs") if isinstance(metadata, Mapping) else None
        for run in runs or ():
            divergence = run.get("divergence") if isinstance(run, Mapping) else None
            if not isinstance(divergence, Mapping):
                continue
            superstep = divergence.get("superstep")
            position = run.get("run", 0)
            prefix: list[Token] = [position] if isinstance(outputs, list) else []
            at_actual: list[Token] = (
                [*prefix, "steps", superstep] if isinstance(superstep, int) else []
            )
            expected = [e for e in divergence.get("expected") or () if isinstance(e, Mapping)]
            places = [
                _in_reference(reference_outputs, (_locator(e.get("reference")) or []))
                for e in expected
            ]
            text = " or ".join(_nodes_text(e.get("steps")) for e in expected) or "(nothing more)"
            for place in places or [None]:
                found.append(
                    Located(
                        str(result.get("key")),
                        str(Kind.DIVERGENCE),
                        path_text(at_actual) if at_actual else f"superstep {superstep}",
                        text,
                        _nodes_text(divergence.get("actual")),
                        tuple(place) if place else None,
                        tuple(at_actual) if at_actual and _exists(outputs, at_actual) else None,
                    )
                )
    return found
