"""Bad input fails early with a clear ValueError/TypeError naming the run and superstep."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    graph_trajectory_match,
    graph_trajectory_match_async,
)
from tests.graph_trajectory.helpers import ref, run

GOOD_RUN = run(["a"])
GOOD_REF = ref(["a"])


@pytest.mark.parametrize(
    ("outputs", "reference", "error", "message"),
    [
        (None, GOOD_REF, ValueError, "outputs is None"),
        (GOOD_RUN, None, ValueError, "reference_outputs is None"),
        ([], [], ValueError, "outputs is an empty list"),
        (
            [GOOD_RUN],
            [GOOD_REF, GOOD_REF],
            ValueError,
            "outputs has 1 run but reference_outputs has 2 references",
        ),
        ("steps", GOOD_REF, TypeError, "outputs is a str"),
        ([GOOD_RUN, None], [GOOD_REF] * 2, ValueError, r"outputs\[1\] is None"),
        ([GOOD_RUN, [["a"]]], [GOOD_REF] * 2, TypeError, r"outputs\[1\] is a list"),
        ({"results": None}, GOOD_REF, ValueError, 'outputs has no "steps"'),
        ({"steps": "a"}, GOOD_REF, TypeError, r"outputs\.steps is a str"),
        (
            [GOOD_RUN, run(["a"], ["b"], ["c"], "d")],  # type: ignore[arg-type]
            [GOOD_REF] * 2,
            TypeError,
            r"outputs\[1\]\.steps\[3\] is a str, expected a list of node names",
        ),
        (run(["a", 1]), GOOD_REF, TypeError, r"outputs\.steps\[0\]\[1\] is an int"),
        (run(["a", ["b"]]), GOOD_REF, TypeError, r"outputs\.steps\[0\]\[1\] is a list"),
        (run(["a"], [None]), ref(["a"], ["b"]), TypeError, r"outputs\.steps\[1\]\[0\] is None"),
        (GOOD_RUN, ref("a"), TypeError, r"reference_outputs\.steps\[0\] is a str"),
        (GOOD_RUN, ref(["a", 2]), TypeError, r"reference_outputs\.steps\[0\]\[1\] is an int"),
        (GOOD_RUN, ref(("a",)), TypeError, r"reference_outputs\.steps\[0\] is a tuple"),
        (
            [GOOD_RUN],
            [ref(["a"], ["b"], {"steps": ["c"], "match_mode": "fuzzy"})],
            ValueError,
            r"reference_outputs\[0\]\.steps\[2\]\.match_mode is 'fuzzy'",
        ),
        (
            GOOD_RUN,
            ref({"steps": ["c"], "optional": "yes"}),
            TypeError,
            r"reference_outputs\.steps\[0\]\.optional is a str",
        ),
        (
            GOOD_RUN,
            ref({"steps": "abc"}),
            TypeError,
            r"reference_outputs\.steps\[0\]\.steps is a str",
        ),
        (
            GOOD_RUN,
            ref({"repeat": [{"repeat": [["a"]]}]}),
            ValueError,
            r"reference_outputs\.steps\[0\]\.steps\[0\] is a Repeat inside a Repeat",
        ),
        (GOOD_RUN, ref({"repeat": []}), ValueError, r"steps\[0\]\.steps is empty"),
        (GOOD_RUN, ref({"repeat": [["a"]], "min": -1}), ValueError, r"steps\[0\]\.min is -1"),
        (GOOD_RUN, ref({"repeat": [["a"]], "min": 3, "max": 2}), ValueError, r"\.max is 2"),
        (GOOD_RUN, ref({"repeat": [["a"]], "min": 1.5}), TypeError, r"steps\[0\]\.min is a float"),
        (
            GOOD_RUN,
            ref({"repeat": [["a"], {"steps": ["b"], "match_mode": "nope"}]}),
            ValueError,
            r"reference_outputs\.steps\[0\]\.steps\[1\]\.match_mode is 'nope'",
        ),
        (GOOD_RUN, ref({"step": ["a"]}), ValueError, r"steps\[0\] has unknown keys \['step'\]"),
        (
            GOOD_RUN,
            {"steps": [["a"]], "match_mode": "exact"},
            ValueError,
            r"reference_outputs has 'match_mode' beside its steps: it is an option of one step "
            r"or Repeat, which would be ignored here; write each step as "
            r'\{"steps": \[\.\.\.\], "match_mode": "exact"\} in reference_outputs\.steps',
        ),
        (
            [GOOD_RUN, GOOD_RUN],
            [{"steps": [["a"]]}, {"steps": [["a"]], "optional": True, "max": 2}],
            ValueError,
            r"reference_outputs\[1\] has 'max', 'optional' beside its steps: they are options",
        ),
    ],
)
async def test_bad_input(
    outputs: Any, reference: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        graph_trajectory_match(outputs=outputs, reference_outputs=reference)
    with pytest.raises(error, match=message):
        await graph_trajectory_match_async(outputs=outputs, reference_outputs=reference)


def test_a_reference_keeps_other_evaluators_fields_beside_its_steps() -> None:
    # A LangSmith example's outputs may hold what other evaluators of the same run read.
    reference = {"steps": [["a"]], "answer": "42", "inputs": None, "results": None}
    assert graph_trajectory_match(outputs=GOOD_RUN, reference_outputs=reference)["score"] is True


def test_eval_results_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="eval_results is a str"):
        graph_trajectory_match(outputs=GOOD_RUN, reference_outputs=GOOD_REF, eval_results="yes")  # type: ignore[arg-type]


def test_deep_or_odd_values_never_raise_recursion_or_attribute_errors() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(TypeError, match=r"outputs\.steps\[0\]\[0\] is a list"):
        graph_trajectory_match(outputs=run(deep), reference_outputs=GOOD_REF)
    with pytest.raises(TypeError, match=r"outputs\.steps\[0\] is a set"):
        graph_trajectory_match(outputs={"steps": [{"a"}]}, reference_outputs=GOOD_REF)


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (
            lambda: ReferenceStep(["a"], "exactly"),
            ValueError,
            r"^ReferenceStep\.match_mode is 'exactly'",
        ),
        (lambda: ReferenceStep("abc"), TypeError, r"^ReferenceStep\.steps is a str"),
        (lambda: ReferenceStep(["a", 1]), TypeError, r"^ReferenceStep\.steps\[1\] is an int"),
        (lambda: ReferenceStep(["a"], optional="yes"), TypeError, r"^ReferenceStep\.optional is a"),
        (lambda: Repeat([Repeat([["a"]])]), ValueError, r"^Repeat\.steps\[0\] is a Repeat inside"),
        (lambda: Repeat([{"repeat": [["a"]]}]), ValueError, r"^Repeat\.steps\[0\] is a Repeat"),
        (lambda: Repeat([]), ValueError, r"^Repeat\.steps is empty"),
        (lambda: Repeat([["a"]], min=-1), ValueError, r"^Repeat\.min is -1"),
        (lambda: Repeat([["a"]], min=3, max=2), ValueError, r"^Repeat\.max is 2"),
        (lambda: Repeat([["a", 2]]), TypeError, r"^Repeat\.steps\[0\]\.steps\[1\] is an int"),
    ],
)
def test_patterns_are_checked_when_built(build: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()


def test_checked_patterns_still_pickle_and_compare_as_tuples() -> None:
    import pickle

    step = ReferenceStep(["b", "c"], "exact", optional=True)
    loop = Repeat([["a"], step], min=0, max=3)
    assert pickle.loads(pickle.dumps(loop)) == loop
    assert step == (["b", "c"], "exact", True) and step._replace(optional=False).optional is False
