"""Argument comparison per tool: openevals' modes and override forms, json_match options and
evaluators, LangSmith-style evaluators, and how failing matchers and bad overrides are named."""

from __future__ import annotations

import math
from typing import Any

import pytest
from openevals.json import create_json_match_evaluator as openevals_json_match
from openevals.trajectory.match import create_trajectory_match_evaluator as openevals_match

from matchevals.json_match import (
    comparators,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.trajectory.helpers import assistant, langchain_call, openai_call


def run(name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    return [assistant(openai_call(name, args))]


def score(outputs: Any, references: Any, **options: Any) -> Any:
    return create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )


def test_json_match_options_compare_a_tool_s_arguments_on_purpose() -> None:
    """A city that differs in case and spaces matches when asked."""
    outputs, references = (
        run("weather", {"city": "san francisco "}),
        run("weather", {"city": "San Francisco"}),
    )
    assert score(outputs, references)["score"] is False
    lenient = {"weather": {"comparators": {"city": comparators.text()}}}
    assert score(outputs, references, tool_args_match_overrides=lenient)["score"] is True
    wrong = run("weather", {"city": "Oakland"})
    result = score(wrong, references, tool_args_match_overrides=lenient)
    assert result["comment"] == (
        "weather args (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): "
        'city: expected "San Francisco", got "Oakland"'
    )
    assert result["metadata"]["mismatches"][0]["kind"] == "matcher"


def test_json_match_options_with_nested_paths_tolerances_and_globbed_excludes() -> None:
    options = {
        "nested": True,
        "comparators": {"trip.budget": comparators.numeric(abs_tol=5)},
        "exclude_keys": ["**.request_id"],
    }
    outputs = run("book", {"trip": {"budget": 1003, "to": "Rome", "request_id": "a1"}})
    references = run("book", {"trip": {"budget": 1000, "to": "Rome", "request_id": "zz"}})
    overrides = {"book": options}
    assert score(outputs, references, tool_args_match_overrides=overrides)["score"] is True
    far = run("book", {"trip": {"budget": 1100, "to": "Rome"}})
    result = score(far, references, tool_args_match_overrides=overrides)
    assert result["comment"] == (
        "book args (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): "
        "trip.budget: expected 1000, got 1100"
    )


def test_a_json_match_evaluator_per_tool_ours_or_openevals() -> None:
    outputs, references = run("search", {"q": "x", "n": 1}), run("search", {"q": "x", "n": 2})
    for evaluator in (
        create_json_match_evaluator(exclude_keys=["n"]),
        openevals_json_match(exclude_keys=["n"]),
    ):
        overrides = {"search": evaluator}
        assert score(outputs, references, tool_args_match_overrides=overrides)["score"] is True
    strict = {"search": create_json_match_evaluator(aggregator="all")}
    result = score(outputs, references, tool_args_match_overrides=strict)
    assert result["comment"].endswith("n: expected 2, got 1")


def test_a_langsmith_style_evaluator_returning_a_bool_or_a_result() -> None:
    def same_query(*, outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> Any:
        return {"key": "q", "score": outputs["q"].lower() == reference_outputs["q"].lower()}

    def as_bool(outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> bool:
        return bool(outputs["q"].lower() == reference_outputs["q"].lower())

    for matcher in (same_query, as_bool):
        overrides = {"search": matcher}
        assert score(run("search", {"q": "X"}), run("search", {"q": "x"}),
                     tool_args_match_overrides=overrides)["score"] is True  # fmt: skip
        assert score(run("search", {"q": "y"}), run("search", {"q": "x"}),
                     tool_args_match_overrides=overrides)["score"] is False  # fmt: skip


def test_matchers_receive_the_output_arguments_first_in_every_mode() -> None:
    seen: list[tuple[Any, Any]] = []

    def matcher(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        seen.append((output_args["side"], reference_args["side"]))
        return True

    outputs, references = run("t", {"side": "out"}), run("t", {"side": "ref"})
    for mode in ("strict", "unordered", "subset", "superset"):
        for alignment in ("optimal", "greedy"):
            score(outputs, references, trajectory_match_mode=mode, alignment=alignment,
                  tool_args_match_overrides={"t": matcher})  # fmt: skip
    assert set(seen) == {("out", "ref")}


def test_key_lists_need_every_key_on_both_sides_as_openevals_does() -> None:
    overrides = {"t": ["a", "b.c"]}
    cases = [
        ({"a": 1, "b": {"c": 2}, "x": 1}, {"a": 1, "b": {"c": 2}}, True),
        ({"a": 1}, {"a": 1}, False),  # "b.c" absent from both: no match, in openevals too
        ({"a": 1, "b": {"c": 3}}, {"a": 1, "b": {"c": 2}}, False),
        ({"a": 1, "b": [1]}, {"a": 1, "b": [1]}, False),  # keys go through objects only
    ]
    for output_args, reference_args, expected in cases:
        ours = score(run("t", output_args), run("t", reference_args),
                     tool_args_match_overrides=overrides)  # fmt: skip
        theirs = openevals_match(tool_args_match_overrides=overrides)(
            outputs=run("t", output_args), reference_outputs=run("t", reference_args)
        )
        assert ours["score"] is theirs["score"] is expected


def test_a_listed_key_absent_from_both_sides_is_explained() -> None:
    result = score(run("t", {"a": 1}), run("t", {"a": 1}), tool_args_match_overrides={"t": ["b"]})
    assert result["comment"] == (
        "t args.b (outputs[0].tool_calls[0] vs reference_outputs[0].tool_calls[0]): missing "
        "from both sides; a listed key must be on both"
    )


def test_values_compare_as_json_values_not_python_objects() -> None:
    """On purpose, unlike openevals: true is not 1; 1 equals 1.0; NaN equals NaN."""
    boolean, number = (
        [assistant(langchain_call("t", {"x": True}))],
        [assistant(langchain_call("t", {"x": 1}))],
    )
    assert score(boolean, number)["score"] is False
    assert openevals_match()(outputs=boolean, reference_outputs=number)["score"] is True
    assert score(run("t", {"x": 1}), run("t", {"x": 1.0}))["score"] is True
    nan = [assistant(langchain_call("t", {"x": math.nan}))]
    assert score(nan, [assistant(langchain_call("t", {"x": float("nan")}))])["score"] is True


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"t": "exactly"}, ValueError, "tool_args_match_overrides['t'] is 'exactly'; a mode is"),
        ({"t": []}, ValueError, "tool_args_match_overrides['t'] is an empty list of keys"),
        ({"t": ["a", 3]}, ValueError, "tool_args_match_overrides['t'] has the key 3"),
        ({"t": ["a..b"]}, ValueError, "tool_args_match_overrides['t'] has the key 'a..b'"),
        ({"t": 3}, TypeError, "tool_args_match_overrides['t'] is int; expected a mode"),
        ({"t": None}, TypeError, "tool_args_match_overrides['t'] is NoneType"),
        ({3: "exact"}, TypeError, "tool_args_match_overrides has a key 3; tool names are str"),
        (["exact"], TypeError, "tool_args_match_overrides is list; expected a dict"),
        ({"t": {"aggregatr": "all"}}, TypeError,
         "tool_args_match_overrides['t']: invalid json_match options:"),
        ({"t": {"list_match_mode": "any"}}, ValueError,
         "tool_args_match_overrides['t']: invalid json_match options:"),
        ({"t": create_async_json_match_evaluator()}, TypeError,
         "tool_args_match_overrides['t'] is an async function; argument matchers must be"),
    ],
)  # fmt: skip
def test_bad_overrides_are_refused_by_the_factory(
    overrides: Any, error: type[Exception], message: str
) -> None:
    for factory in (create_trajectory_match_evaluator, create_async_trajectory_match_evaluator):
        with pytest.raises(error) as raised:
            factory(tool_args_match_overrides=overrides)
        assert str(raised.value).startswith(message), str(raised.value)


def test_an_async_matcher_function_is_refused() -> None:
    async def matcher(output_args: Any, reference_args: Any) -> bool:
        return True

    with pytest.raises(TypeError, match="is an async function"):
        create_trajectory_match_evaluator(tool_args_match_overrides={"t": matcher})


@pytest.mark.parametrize(
    ("matcher", "message"),
    [
        (lambda o, r: o["missing"], "tool_args_match_overrides['t'] raised KeyError: 'missing'"),
        (lambda o, r: None, "tool_args_match_overrides['t'] returned null; expected a bool"),
        (lambda o, r: "yes", "tool_args_match_overrides['t'] returned \"yes\"; expected a bool"),
        (lambda o, r: 1, "tool_args_match_overrides['t'] returned 1; expected a bool"),
    ],
)
@pytest.mark.parametrize("alignment", ["optimal", "greedy"])
def test_a_failing_matcher_is_named_with_both_calls(
    matcher: Any, message: str, alignment: str
) -> None:
    with pytest.raises(ValueError) as raised:
        score(run("t", {"a": 1}), run("t", {"a": 2}), alignment=alignment,
              tool_args_match_overrides={"t": matcher})  # fmt: skip
    assert str(raised.value) == (
        f"{message} (comparing outputs[0].tool_calls[0] with reference_outputs[0].tool_calls[0])"
    )


def test_a_matcher_returning_a_coroutine_is_refused_and_the_coroutine_closed() -> None:
    created: list[Any] = []

    async def later() -> bool:
        return True

    def matcher(output_args: Any, reference_args: Any) -> Any:
        created.append(later())
        return created[-1]

    with pytest.raises(ValueError, match="returned an awaitable"):
        score(run("t", {}), run("t", {"a": 1}), tool_args_match_overrides={"t": matcher})
    assert created and created[0].cr_frame is None  # closed, no "never awaited" warning


def test_a_result_with_a_score_that_is_not_a_number_is_refused() -> None:
    def evaluator(*, outputs: Any, reference_outputs: Any) -> Any:
        return {"key": "k", "score": "high"}

    with pytest.raises(ValueError, match='gave a result with score "high"'):
        score(run("t", {}), run("t", {"a": 1}), tool_args_match_overrides={"t": evaluator})


def test_factory_options_are_validated() -> None:
    with pytest.raises(ValueError, match="alignment is 'best'; expected 'optimal' or 'greedy'"):
        create_trajectory_match_evaluator(alignment="best")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="score is 'accuracy'; expected one of 'match'"):
        create_async_trajectory_match_evaluator(score="accuracy")  # type: ignore[arg-type]


@pytest.mark.parametrize("score", [2, -0.5, float("nan")])
def test_an_evaluator_score_outside_0_1_is_refused_naming_the_tool(score: float) -> None:
    def evaluator(*, outputs: Any, reference_outputs: Any) -> dict[str, Any]:
        return {"key": "args", "score": score}

    match = create_trajectory_match_evaluator(tool_args_match_overrides={"search": evaluator})
    trajectory = [{"role": "assistant", "content": "", "tool_calls": [
        {"name": "search", "args": {"q": "x"}}]}]  # fmt: skip
    with pytest.raises(ValueError, match=r"tool_args_match_overrides\['search'\] gave a result"):
        match(outputs=trajectory, reference_outputs=trajectory)
