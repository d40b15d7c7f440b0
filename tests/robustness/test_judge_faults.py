"""Judge faults on rubric keys: a judge that raises, hangs, answers malformed structured output or
scores out of range gives a clear error naming the keys (``on_judge_error="raise"``, the default)
or a 0 with the error in ``comment`` (``on_judge_error="zero"``); the other keys keep their
scores, and the evaluator stays usable."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pytest
from langchain_core.runnables import Runnable, RunnableLambda

from matchevals.json_match import (
    JudgeError,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from tests.robustness._support import check_json_results
from tests.scripted_judge import ScriptedJudge, approve_all

RUBRIC = {"summary": "means the same", "title": "same topic"}
OUTPUTS = {"summary": "cats sleep a lot", "title": "Cats", "n": 1}
REFERENCES = {"summary": "cats nap often", "title": "Felines", "n": 1}


def test_on_judge_error_is_an_option() -> None:
    parameter = inspect.signature(create_json_match_evaluator).parameters["on_judge_error"]
    assert parameter.default == "raise"
    create_json_match_evaluator(rubric=RUBRIC, judge=ScriptedJudge(), on_judge_error="zero")
    with pytest.raises(ValueError, match="on_judge_error"):
        create_json_match_evaluator(rubric=RUBRIC, judge=ScriptedJudge(), on_judge_error="skip")


def raises(schema: dict[str, Any], messages: list[Any]) -> Any:
    raise RuntimeError("model overloaded")


def each(value: Any) -> Callable[[dict[str, Any], list[Any]], Any]:
    def answer(schema: dict[str, Any], messages: list[Any]) -> Any:
        return {name: value for name in schema["properties"]}

    return answer


def constant(value: Any) -> Callable[[dict[str, Any], list[Any]], Any]:
    return lambda schema, messages: value


FAULTS: dict[str, Callable[[dict[str, Any], list[Any]], Any]] = {
    "raises": raises,
    "returns None": constant(None),
    "returns text": constant("summary: yes"),
    "returns a list": constant([True, True]),
    "misses every key": constant({}),
    "answers other keys": constant({"unrelated": True}),
    "a string verdict": each("yes"),
    "a non-boolean score": each({"score": "maybe", "reasoning": "unsure"}),
    "a score of 2": each(2),
    "a score of -1": each(-1),
    "a score of 1.5": each({"score": 1.5, "reasoning": "very good"}),
    "a NaN score": each(float("nan")),
    "no score field": each({"reasoning": "forgot the score"}),
}


def evaluate(evaluator: Callable[..., Any], is_async: bool) -> Any:
    if is_async:
        return asyncio.run(evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES))
    return evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)


def factory(is_async: bool) -> Callable[..., Any]:
    return create_async_json_match_evaluator if is_async else create_json_match_evaluator


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("aggregator", [None, "average"])
def test_a_faulty_judge_raises_a_judge_error_naming_the_keys(
    fault: str, is_async: bool, aggregator: str | None
) -> None:
    evaluator = factory(is_async)(
        rubric=RUBRIC, judge=ScriptedJudge(answer=FAULTS[fault]), aggregator=aggregator
    )
    with pytest.raises(JudgeError) as caught:
        evaluate(evaluator, is_async)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert "summary" in message or "title" in message, message
    assert message.startswith("the judge")


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_on_judge_error_zero_keeps_the_rest_of_the_evaluation(fault: str, is_async: bool) -> None:
    evaluator = factory(is_async)(
        rubric=RUBRIC, judge=ScriptedJudge(answer=FAULTS[fault]), on_judge_error="zero"
    )
    results = evaluate(evaluator, is_async)
    check_json_results(results)
    by_key = {result["key"]: result for result in results}
    assert list(by_key) == ["json_match:n", "json_match:summary", "json_match:title"]
    assert by_key["json_match:n"]["score"] == 1
    for key in ["summary", "title"]:
        result = by_key[f"json_match:{key}"]
        assert result["score"] == 0
        assert result["comment"].startswith(f"{key}: the judge failed: ")
    averaged = factory(is_async)(
        rubric=RUBRIC,
        judge=ScriptedJudge(answer=FAULTS[fault]),
        on_judge_error="zero",
        aggregator="average",
    )
    (average,) = evaluate(averaged, is_async)
    assert average["score"] == pytest.approx(1 / 3)
    assert "the judge failed" in average["comment"]


def test_a_judge_error_is_chained_to_its_cause() -> None:
    evaluator = create_json_match_evaluator(rubric=RUBRIC, judge=ScriptedJudge(answer=raises))
    with pytest.raises(JudgeError, match=r"\['summary', 'title'\].*model overloaded") as caught:
        evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_a_malformed_answer_names_every_key_it_failed() -> None:
    evaluator = create_json_match_evaluator(rubric=RUBRIC, judge=ScriptedJudge(answer=each(2)))
    with pytest.raises(JudgeError) as caught:
        evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert "summary" in str(caught.value) and "title" in str(caught.value)


def test_on_judge_error_zero_keeps_the_valid_verdicts_of_a_partly_malformed_answer() -> None:
    def partly(schema: dict[str, Any], messages: list[Any]) -> Any:
        return {"summary": {"score": True, "reasoning": "ok"}, "title": 2}

    evaluator = create_json_match_evaluator(
        rubric=RUBRIC, judge=ScriptedJudge(answer=partly), on_judge_error="zero"
    )
    by_key = {r["key"]: r for r in evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)}
    assert by_key["json_match:summary"]["score"] == 1
    assert by_key["json_match:title"]["score"] == 0
    assert "title" in by_key["json_match:title"]["comment"]


class GatedJudge(ScriptedJudge):
    """A judge that hangs until ``gate`` is set (async: until the caller gives up)."""

    gate: Any = None

    def with_structured_output(  # type: ignore[override]
        self, schema: Any, **kwargs: Any
    ) -> Runnable[Any, Any]:
        def respond(messages: Sequence[Any]) -> Any:
            assert self.gate.wait(timeout=60), "the test never released the judge"
            return approve_all(schema, list(messages))

        async def arespond(messages: Sequence[Any]) -> Any:
            while not self.gate.is_set():
                await asyncio.sleep(0.01)
            return approve_all(schema, list(messages))

        return RunnableLambda(respond, afunc=arespond)


def test_a_hanging_judge_is_cancelled_by_the_callers_timeout() -> None:
    judge = GatedJudge(gate=threading.Event())
    evaluator = create_async_json_match_evaluator(rubric=RUBRIC, judge=judge, on_judge_error="zero")

    async def call(timeout: float) -> Any:
        return await asyncio.wait_for(
            evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES), timeout
        )

    async def scenario() -> Any:
        # on_judge_error="zero" does not swallow the cancellation: the caller's timeout wins
        with pytest.raises(asyncio.TimeoutError):
            await call(0.2)
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
        judge.gate.set()
        return await call(30)

    results = asyncio.run(scenario())
    assert [(r["key"], r["score"]) for r in results] == [
        ("json_match:n", 1),
        ("json_match:summary", True),
        ("json_match:title", True),
    ]


def test_a_hanging_sync_judge_does_not_corrupt_the_evaluator() -> None:
    judge = GatedJudge(gate=threading.Event())
    evaluator = create_json_match_evaluator(rubric=RUBRIC, judge=judge, aggregator="average")
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(evaluator, outputs=OUTPUTS, reference_outputs=REFERENCES)
        with pytest.raises(FutureTimeout):
            pending.result(timeout=0.2)
        judge.gate.set()
        assert pending.result(timeout=30)[0]["score"] == 1.0
    assert evaluator(outputs=OUTPUTS, reference_outputs={**REFERENCES, "n": 2})[0][
        "score"
    ] == pytest.approx(2 / 3)
