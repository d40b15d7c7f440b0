"""The trajectory-match scenarios openevals tests, rewritten: a weather agent, each mode, each
arguments mode, overrides, LangChain messages and ``{"messages": ...}``. Every case is also
run through the installed openevals, which must answer the same (these are not cases where
greedy pairing goes wrong), and every failure must say why."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from openevals.trajectory.match import (
    create_async_trajectory_match_evaluator as openevals_async,
)
from openevals.trajectory.match import (
    create_trajectory_match_evaluator as openevals_sync,
)

from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)
from tests.trajectory.helpers import MODES, assistant, langchain_call, openai_call, tool, user


def weather_run(
    *calls: dict[str, Any], answer: str = "The weather in SF is 80 degrees and sunny."
) -> list[dict[str, Any]]:
    return [
        user("What is the weather in SF?"),
        assistant(*calls),
        *(tool("It's 80 degrees and sunny in SF.") for _ in calls),
        assistant(text=answer),
    ]


SF = openai_call("get_weather", {"city": "SF"})
SF_LOWER = openai_call("get_weather", {"city": "sf"})
FORECAST = openai_call("accuweather_forecast", {"city": "SF"})
SF_IN_F = openai_call("get_weather", {"city": "SF", "units": "F"})


def both(options: dict[str, Any], outputs: Any, references: Any) -> dict[str, Any]:
    """Our result, after checking openevals' sync evaluator gives the same score."""
    ours = create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )
    theirs = openevals_sync(**options)(outputs=outputs, reference_outputs=references)
    assert ours["key"] == theirs["key"]
    assert ours["score"] is theirs["score"]
    if ours["score"]:
        assert ours == theirs  # openevals' exact result shape
    else:
        assert isinstance(ours["comment"], str) and ours["comment"]
    return ours


@pytest.mark.parametrize("mode", MODES)
def test_identical_calls_match_in_every_mode_whatever_the_texts_say(mode: str) -> None:
    outputs = weather_run(SF)
    references = weather_run(SF, answer="It is 80˚ and sunny in San Francisco.")
    references[2] = tool("80 degrees, clear skies")
    result = both({"trajectory_match_mode": mode}, outputs, references)
    assert result == {
        "key": f"trajectory_{mode}_match",
        "score": True,
        "comment": None,
        "metadata": None,
    }


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("strict", False), ("unordered", False), ("subset", False), ("superset", True)],
)
def test_an_extra_output_call(mode: str, expected: bool) -> None:
    outputs = weather_run(SF, FORECAST)
    references = weather_run(SF)
    result = both({"trajectory_match_mode": mode}, outputs, references)
    assert result["score"] is expected
    if mode in ("unordered", "subset"):
        assert result["comment"] == (
            'outputs[1].tool_calls[1] accuweather_forecast({"city": "SF"}) has no partner in '
            "reference_outputs"
        )
    if mode == "strict":
        assert result["comment"].startswith("outputs has 5 messages, reference_outputs has 4")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("strict", False), ("unordered", False), ("subset", True), ("superset", False)],
)
def test_a_missing_output_call(mode: str, expected: bool) -> None:
    result = both({"trajectory_match_mode": mode}, weather_run(SF), weather_run(SF, FORECAST))
    assert result["score"] is expected
    if mode in ("unordered", "superset"):
        assert result["comment"] == (
            'reference_outputs[1].tool_calls[1] accuweather_forecast({"city": "SF"}) has no '
            "partner in outputs"
        )


def test_strict_pairs_the_calls_of_one_message_as_a_set() -> None:
    result = both(
        {"trajectory_match_mode": "strict"}, weather_run(SF, FORECAST), weather_run(FORECAST, SF)
    )
    assert result["score"] is True


def test_calls_in_other_messages_match_unordered_but_not_strict() -> None:
    outputs = [user(), assistant(SF), tool(), assistant(FORECAST), tool(), assistant(text="done")]
    references = [user(), assistant(FORECAST), tool(), assistant(SF), tool(), assistant(text="ok")]
    assert both({"trajectory_match_mode": "unordered"}, outputs, references)["score"] is True
    strict = both({"trajectory_match_mode": "strict"}, outputs, references)
    assert strict["score"] is False
    assert strict["comment"] == (
        'reference_outputs[1].tool_calls[0] accuweather_forecast({"city": "SF"}) has no partner '
        'in outputs; outputs[1].tool_calls[0] get_weather({"city": "SF"}) has no partner in '
        'reference_outputs; reference_outputs[3].tool_calls[0] get_weather({"city": "SF"}) has '
        'no partner in outputs; outputs[3].tool_calls[0] accuweather_forecast({"city": "SF"}) '
        "has no partner in reference_outputs"
    )


def test_strict_compares_roles_position_by_position() -> None:
    outputs = [user(), assistant(SF), tool(), assistant(text="done")]
    references = [user(), assistant(SF), assistant(text="done"), tool()]
    result = both({"trajectory_match_mode": "strict"}, outputs, references)
    assert result["comment"] == (
        "outputs[2] is a tool message where reference_outputs[2] is an assistant message; "
        "outputs[3] is an assistant message where reference_outputs[3] is a tool message"
    )


def test_a_role_is_named_with_its_article() -> None:
    outputs = [user(), assistant(text="hi"), assistant(text="more")]
    references = [user(), user(), tool()]
    result = both({"trajectory_match_mode": "strict"}, outputs, references)
    assert result["comment"] == (
        "outputs[1] is an assistant message where reference_outputs[1] is a user message; "
        "outputs[2] is an assistant message where reference_outputs[2] is a tool message"
    )


def test_strict_needs_tool_calls_on_both_sides_or_neither() -> None:
    outputs = [user(), assistant(text="it is sunny")]
    references = [user(), assistant(SF)]
    result = both({"trajectory_match_mode": "strict"}, outputs, references)
    assert result["comment"] == (
        "outputs[1] makes 0 tool calls where reference_outputs[1] makes 1; "
        'reference_outputs[1].tool_calls[0] get_weather({"city": "SF"}) has no partner in outputs'
    )


def test_different_arguments_fail_exact_and_pass_ignore() -> None:
    exact = both({"trajectory_match_mode": "unordered"}, weather_run(SF_LOWER), weather_run(SF))
    assert exact["comment"] == (
        "get_weather args.city (outputs[1].tool_calls[0] vs reference_outputs[1].tool_calls[0]): "
        'expected "SF", got "sf"'
    )
    options = {"trajectory_match_mode": "unordered", "tool_args_match_mode": "ignore"}
    assert both(options, weather_run(SF_LOWER), weather_run(SF))["score"] is True


@pytest.mark.parametrize(
    ("args_mode", "expected"),
    [("exact", False), ("subset", True), ("superset", False), ("ignore", True)],
)
def test_output_arguments_that_are_a_subset(args_mode: str, expected: bool) -> None:
    options = {"trajectory_match_mode": "strict", "tool_args_match_mode": args_mode}
    result = both(options, weather_run(SF), weather_run(SF_IN_F))
    assert result["score"] is expected
    if args_mode == "superset":
        assert result["comment"] == (
            "get_weather args.units (outputs[1].tool_calls[0] vs "
            'reference_outputs[1].tool_calls[0]): missing from outputs, expected "F"'
        )


@pytest.mark.parametrize(
    ("args_mode", "expected"),
    [("exact", False), ("subset", False), ("superset", True), ("ignore", True)],
)
def test_output_arguments_that_are_a_superset(args_mode: str, expected: bool) -> None:
    options = {"trajectory_match_mode": "superset", "tool_args_match_mode": args_mode}
    result = both(options, weather_run(SF_IN_F), weather_run(SF))
    assert result["score"] is expected
    if args_mode == "subset":
        assert result["comment"] == (
            "get_weather args.units (outputs[1].tool_calls[0] vs "
            'reference_outputs[1].tool_calls[0]): not in reference_outputs, got "F"'
        )


def test_a_matcher_override_compares_case_insensitively() -> None:
    def same_city(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        return str(output_args["city"]).lower() == str(reference_args["city"]).lower()

    options = {"tool_args_match_overrides": {"get_weather": same_city}}
    assert both(options, weather_run(SF_LOWER), weather_run(SF))["score"] is True
    other = openai_call("get_weather", {"city": "LA"})
    result = both(options, weather_run(other), weather_run(SF))
    assert result["comment"] == (
        "get_weather args (outputs[1].tool_calls[0] vs reference_outputs[1].tool_calls[0]): "
        "tool_args_match_overrides['get_weather'] answered no match"
    )


def test_a_key_list_override_compares_only_those_keys() -> None:
    options = {"tool_args_match_overrides": {"get_weather": ["city"]}}
    assert both(options, weather_run(SF_IN_F), weather_run(SF))["score"] is True
    nested_out = openai_call("get_weather", {"where": {"city": "SF", "zip": "94103"}})
    nested_ref = openai_call("get_weather", {"where": {"city": "SF"}, "units": "C"})
    nested = {"tool_args_match_overrides": {"get_weather": ["where.city"]}}
    assert both(nested, weather_run(nested_out), weather_run(nested_ref))["score"] is True
    absent = both(nested, weather_run(SF), weather_run(nested_ref))
    assert absent["comment"] == (
        "get_weather args.where.city (outputs[1].tool_calls[0] vs "
        'reference_outputs[1].tool_calls[0]): missing from outputs, expected "SF"'
    )


def test_a_mode_override_for_one_tool() -> None:
    options = {
        "trajectory_match_mode": "unordered",
        "tool_args_match_overrides": {"get_weather": "ignore"},
    }
    outputs = weather_run(SF_LOWER, FORECAST)
    assert both(options, outputs, weather_run(SF, FORECAST))["score"] is True
    forecast_lower = openai_call("accuweather_forecast", {"city": "sf"})
    assert (
        both(options, weather_run(SF, forecast_lower), weather_run(SF, FORECAST))["score"] is False
    )


def langchain_run(city: str) -> list[Any]:
    return [
        SystemMessage("You answer questions about the weather."),
        HumanMessage("What is the weather in SF?"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": city}, "id": "1"}]),
        ToolMessage("It's 80 degrees and sunny in SF.", tool_call_id="1"),
        AIMessage("The weather in SF is 80 degrees and sunny."),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_langchain_messages(mode: str) -> None:
    assert both({"trajectory_match_mode": mode}, langchain_run("SF"), langchain_run("SF"))["score"]
    result = both({"trajectory_match_mode": mode}, langchain_run("sf"), langchain_run("SF"))
    assert result["score"] is False
    assert "get_weather args.city (outputs[2].tool_calls[0] vs" in result["comment"]


def test_langchain_messages_against_openai_dicts() -> None:
    openai = [
        {"role": "system", "content": "You answer questions about the weather."},
        *weather_run(SF),
    ]
    assert both({}, langchain_run("SF"), openai)["score"] is True


def test_a_dict_with_messages() -> None:
    result = both({}, {"messages": weather_run(SF)}, {"messages": weather_run(SF_LOWER)})
    assert result["comment"] == (
        "get_weather args.city (outputs.messages[1].tool_calls[0] vs "
        'reference_outputs.messages[1].tool_calls[0]): expected "sf", got "SF"'
    )


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("strict", True), ("unordered", True), ("subset", True), ("superset", True)],
)
def test_empty_trajectories(mode: str, expected: bool) -> None:
    assert both({"trajectory_match_mode": mode}, [], [])["score"] is expected


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("strict", False), ("unordered", False), ("subset", True), ("superset", False)],
)
def test_no_output_against_a_reference(mode: str, expected: bool) -> None:
    assert both({"trajectory_match_mode": mode}, [], weather_run(SF))["score"] is expected


def test_invalid_modes_are_refused_by_the_factory_as_openevals_does() -> None:
    for options in (
        {"trajectory_match_mode": "fuzzy"},
        {"tool_args_match_mode": "loose"},
    ):
        with pytest.raises(ValueError) as theirs:
            openevals_sync(**options)
        with pytest.raises(ValueError) as ours:
            create_trajectory_match_evaluator(**options)
        if "trajectory_match_mode" in options:  # openevals' words, then matchevals' own mode
            assert (
                str(ours.value)
                == str(theirs.value)[:-1] + ", or matchevals' `in_order` or `pattern`."
            )
        else:
            assert str(ours.value) == str(theirs.value)
        with pytest.raises(ValueError):
            create_async_trajectory_match_evaluator(**options)


@pytest.mark.parametrize("mode", MODES)
async def test_the_async_evaluator_agrees(mode: str) -> None:
    outputs, references = weather_run(SF, FORECAST), weather_run(FORECAST)
    ours = await create_async_trajectory_match_evaluator(trajectory_match_mode=mode)(  # type: ignore[arg-type]
        outputs=outputs, reference_outputs=references
    )
    theirs = await openevals_async(trajectory_match_mode=mode)(  # type: ignore[arg-type]
        outputs=outputs, reference_outputs=references
    )
    assert ours["score"] is theirs["score"]
    assert ours == create_trajectory_match_evaluator(trajectory_match_mode=mode)(  # type: ignore[arg-type]
        outputs=outputs, reference_outputs=references
    )


def test_the_evaluator_accepts_and_ignores_inputs_and_other_keywords() -> None:
    evaluator = create_trajectory_match_evaluator()
    result = evaluator(outputs=[], reference_outputs=[], inputs={"question": "q"}, extra=1)
    assert result["score"] is True
    assert evaluator.__name__ == "trajectory_strict_match"  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", [openai_call, langchain_call])
def test_the_issues_measured_counterexample(mode: str, make: Any) -> None:
    """Outputs call search({"q": "x"}) and search({"q": "x", "lang": "en"}) in one message, the
    reference the same two in the other order, arguments compared as subsets: openevals answers
    False in every mode; a valid pairing exists, so the answer is True (greedy: openevals')."""
    narrow, wide = make("search", {"q": "x"}), make("search", {"q": "x", "lang": "en"})
    outputs, references = [user(), assistant(narrow, wide)], [user(), assistant(wide, narrow)]
    options: dict[str, Any] = {"trajectory_match_mode": mode, "tool_args_match_mode": "subset"}
    theirs = openevals_sync(**options)(outputs=outputs, reference_outputs=references)
    ours = create_trajectory_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )
    greedy = create_trajectory_match_evaluator(**options, alignment="greedy")(
        outputs=outputs, reference_outputs=references
    )
    assert theirs["score"] is False and theirs["comment"] is None
    assert ours == {**theirs, "score": True}
    assert greedy["score"] is False
    assert greedy["metadata"]["optimal_match"] is True
