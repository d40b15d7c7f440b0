"""Determinism: the same inputs give the same results across runs, across ``PYTHONHASHSEED``
values and whatever the dict insertion order; inputs are never mutated."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import (
    ReferenceStep,
    Repeat,
    create_graph_trajectory_match_evaluator,
    create_graph_trajectory_rules_evaluator,
)
from matchevals.json_match import create_json_match_evaluator
from tests.robustness._support import (
    OBJECTS,
    VALID_REFERENCE,
    VALID_RUN,
    check_json_results,
    json_match_options,
    outcome,
    python_env,
    run_python,
)
from tests.robustness.determinism_battery import battery

SEEDS = ["0", "1", "4242"]


def test_results_are_identical_across_hash_seeds_and_runs() -> None:
    printed = []
    for seed in SEEDS:
        completed = run_python(
            "from tests.robustness.determinism_battery import battery; import json; "
            "print(json.dumps(battery(), ensure_ascii=False))",
            timeout=180,
            env=python_env(PYTHONHASHSEED=seed),
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
        printed.append(completed.stdout)
    assert printed[0] == printed[1] == printed[2]
    # and this process (another random hash seed), twice
    here = json.dumps(battery(), ensure_ascii=False) + "\n"
    assert here == printed[0]
    assert json.dumps(battery(), ensure_ascii=False) + "\n" == here
    decoded = json.loads(printed[0])
    assert len(decoded) > 300  # the battery really ran


def reorder(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every object's keys inserted in a shuffled order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: reorder(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [reorder(item, rng) for item in value]
    return value


def same(left: Any, right: Any) -> bool:
    return repr(left) == repr(right) or left == right


@settings(max_examples=150, deadline=None)
@given(
    options=json_match_options(),
    outputs=st.one_of(OBJECTS, st.lists(OBJECTS, max_size=4)),
    references=st.one_of(OBJECTS, st.lists(OBJECTS, max_size=4)),
    seed=st.integers(0, 2**16),
)
def test_json_match_ignores_dict_insertion_order_and_mutates_nothing(
    options: dict[str, Any], outputs: Any, references: Any, seed: int
) -> None:
    kind, evaluator = outcome(lambda: create_json_match_evaluator(**options))
    if kind == "error":
        return
    before = copy.deepcopy((outputs, references))
    kind, results = outcome(lambda: evaluator(outputs=outputs, reference_outputs=references))
    assert repr((outputs, references)) == repr(before), "inputs were mutated"
    rng = random.Random(seed)
    shuffled = (reorder(outputs, rng), reorder(references, rng))
    kind_again, results_again = outcome(
        lambda: evaluator(outputs=shuffled[0], reference_outputs=shuffled[1])
    )
    assert kind_again == kind
    if kind == "error":
        assert str(results_again) == str(results)
        return
    check_json_results(results)
    assert [r["key"] for r in results_again] == [r["key"] for r in results]
    assert [r["score"] for r in results_again] == [r["score"] for r in results]
    assert [r["comment"] for r in results_again] == [r["comment"] for r in results]
    assert same(results_again, results)
    # and the same evaluator again on the same objects
    assert same(evaluator(outputs=outputs, reference_outputs=references), results)


def test_nested_mode_keeps_leaves_with_dotted_or_empty_keys_apart() -> None:
    evaluator = create_json_match_evaluator(nested=True)
    results = evaluator(
        outputs={"a": {".": 1, "": {"": 2}}}, reference_outputs={"a": {".": 1, "": {"": 3}}}
    )
    assert sorted(r["score"] for r in results) == [0, 1]


def test_nested_mode_comments_do_not_follow_insertion_order() -> None:
    evaluator = create_json_match_evaluator(nested=True, aggregator="average")
    first = evaluator(outputs={}, reference_outputs={"a": {"a": None, ".": None, "": {"": False}}})
    again = evaluator(outputs={}, reference_outputs={"a": {"": {"": False}, ".": None, "a": None}})
    assert first == again


def test_json_match_options_are_not_mutated() -> None:
    exclude = ["b", "c.d"]
    rubric: dict[str, str] = {}
    options = {"exclude_keys": exclude, "rubric": rubric, "aggregator": "average"}
    before = copy.deepcopy(options)
    evaluator = create_json_match_evaluator(**options)  # type: ignore[arg-type]
    result = evaluator(outputs={"a": 1, "b": 2}, reference_outputs={"a": 1, "b": 3})
    assert result[0]["score"] == 1.0
    assert options == before
    exclude.append("a")  # changing the caller's list later changes nothing
    assert evaluator(outputs={"a": 1}, reference_outputs={"a": 2})[0]["score"] == 0.0


@settings(max_examples=150, deadline=None)
@given(run=VALID_RUN, reference=VALID_REFERENCE, partial=st.booleans())
def test_graph_trajectory_mutates_nothing_and_repeats_itself(
    run: dict[str, Any], reference: dict[str, Any], partial: bool
) -> None:
    evaluator = create_graph_trajectory_match_evaluator(partial_credit=partial)
    before = copy.deepcopy((run, reference))
    first = evaluator(outputs=run, reference_outputs=reference)
    assert (run, reference) == before
    assert evaluator(outputs=copy.deepcopy(run), reference_outputs=reference) == first
    # a reordered superstep changes nothing for a bare-list (unordered) reference
    shuffled = {**run, "steps": [list(reversed(step)) for step in run["steps"]]}
    plain = {**reference, "steps": [s for s in reference["steps"] if type(s) is list]}
    assert (
        evaluator(outputs=shuffled, reference_outputs=plain)["score"]
        == evaluator(outputs=run, reference_outputs=plain)["score"]
    )


def test_graph_options_are_not_mutated() -> None:
    forbidden = ["x"]
    max_visits = {"a": 1}
    pairs = [("a", "b")]
    evaluator = create_graph_trajectory_rules_evaluator(
        forbidden=forbidden, max_visits=max_visits, before=pairs
    )
    forbidden.append("a")
    max_visits["a"] = 0
    pairs.append(("b", "a"))
    results = evaluator(outputs={"steps": [["a"], ["b"], ["c"]]})
    assert [r["score"] for r in results] == [True, True, True]
    reference_steps = [ReferenceStep(["a", "b"]), Repeat([["c"]], min=0)]
    reference = {"steps": reference_steps}
    snapshot = copy.deepcopy(reference)
    create_graph_trajectory_match_evaluator(partial_credit=True)(
        outputs={"steps": [["b"], ["c"], ["c"]]}, reference_outputs=reference
    )
    assert reference == snapshot
