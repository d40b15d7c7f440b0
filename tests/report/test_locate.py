"""Each difference a json_match result names is located on both sides of the values, so the
HTML report highlights real nodes: a property test over random records and options."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals._values import json_equal
from matchevals.json_match import create_json_match_evaluator
from matchevals.report._locate import locate_differences, parse_path, path_text
from tests.json_match.strategies import OPTIONS, pairs_of_inputs


def node(value: Any, tokens: tuple[Any, ...]) -> Any:
    for token in tokens:
        value = value[token]
    return value


@settings(max_examples=300, deadline=None)
@given(pairs_of_inputs(), OPTIONS, st.booleans())
def test_every_difference_is_located_where_the_values_differ(
    pair: tuple[Any, Any], options: dict[str, Any], nested: bool
) -> None:
    outputs, references = pair
    results = create_json_match_evaluator(**options, nested=nested)(
        outputs=outputs, reference_outputs=references
    )
    found = locate_differences(results, outputs, references)
    for located in found:
        if located.at_expected is not None:
            node(references, located.at_expected)  # exists
        if located.at_actual is not None:
            node(outputs, located.at_actual)
        if located.kind == "value" and located.at_expected and located.at_actual:
            assert not json_equal(
                node(references, located.at_expected), node(outputs, located.at_actual)
            ), located
    with_mismatches = [
        r for r in results if r["score"] < 1 and (r.get("metadata") or {}).get("mismatches")
    ]
    for result in with_mismatches:
        mine = [d for d in found if result["key"] in d.key.split(", ")]
        assert any(d.at_expected is not None or d.at_actual is not None for d in mine), result


def test_paths_read_and_write_back() -> None:
    for text in ("items[2].price", 'a["x.y"][0]', '[0][""]', "a.b.c"):
        assert path_text(parse_path(text)) == text
