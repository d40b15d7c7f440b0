"""The pytest plugin under the installed pytest, driven through ``pytester``: every supported
assertion form about failing results shows the evaluator's explanation and no plugin error."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SOURCE = """
from matchevals.json_match import create_json_match_evaluator

evaluate = create_json_match_evaluator(aggregator="average")
PASSING = {"key": "json_match:average", "score": 1, "comment": None, "metadata": None}


def failing():
    outputs = {"city": "Paris", "zip": 1}
    return evaluate(outputs=outputs, reference_outputs={"city": "Rome", "zip": 1})


def test_equal_result():
    result = failing()[0]
    assert result == PASSING


def test_equal_list_of_results():
    results = failing()
    assert results == [PASSING]


def test_at_least():
    result = failing()[0]
    assert result["score"] >= 0.9


def test_result_in_list():
    results = failing()
    assert PASSING in results


def test_not():
    results = failing()
    assert not [r for r in results if r["score"] < 1]
"""

FORMS = {  # each test, a piece of pytest's own account of its assertion, the name explained
    "test_equal_result": ("} == {'", "left"),
    "test_equal_list_of_results": ("}] == [{'", "left[0]"),
    "test_at_least": ("assert 0.5 >= 0.9", "result"),
    "test_result_in_list": ("} in [{'", "right[0]"),
    "test_not": ("assert not [{'", "results[0]"),
}


def section(output: str, test: str) -> str:
    """The test's own failure report: up to the next test's header or the next ``===`` section
    (the short summary, whose width-dependent messages may repeat every explanation)."""
    start = output.index(f"_ {test} _")
    ends = [output.find(separator, start + 1) for separator in ("\n____", "\n====")]
    return output[start : min((end for end in ends if end > 0), default=None)]


def test_each_assertion_form_is_explained_without_plugin_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_forms=SOURCE)
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    run.assert_outcomes(failed=len(FORMS))
    output = run.stdout.str()
    for error in ("TypeError", "INTERNALERROR", "Traceback (most recent call last)"):
        assert error not in output + run.stderr.str()
    for test, (assertion, name) in FORMS.items():
        text = section(output, test)
        assert assertion in text, test  # pytest's own account of the assertion is kept
        assert text.count("matchevals explains:") == 1, test
        assert f"{name}: json_match:average = 0.5" in text, test
        assert ["E", "city", '"Rome"', '"Paris"'] in [line.split() for line in text.splitlines()]
    # pytest's own diff still follows the explanation in == comparisons
    assert "Omitting 1 identical items" in section(output, "test_equal_result")
    assert "At index 0 diff:" in section(output, "test_equal_list_of_results")
