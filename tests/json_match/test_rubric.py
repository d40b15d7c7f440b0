"""Rubric keys go to an LLM judge; a scripted LangChain chat model stands in for it."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from tests.scripted_judge import ScriptedJudge


def reject_summaries(schema: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    return {
        name: {"score": not name.startswith("summary"), "reasoning": f"verdict on {name}"}
        for name in schema["properties"]
    }


async def run_both(outputs: Any, references: Any, **options: Any) -> list[Any]:
    sync_judge, async_judge = ScriptedJudge(answer=options.pop("answer")), None
    async_judge = ScriptedJudge(answer=sync_judge.answer)
    sync = create_json_match_evaluator(judge=sync_judge, **options)(
        outputs=outputs, reference_outputs=references
    )
    asynchronous = await create_async_json_match_evaluator(judge=async_judge, **options)(
        outputs=outputs, reference_outputs=references
    )
    assert sync == asynchronous
    assert len(sync_judge.calls) == len(async_judge.calls) == 1
    return sync


async def test_rubric_keys_are_judged_with_reasoning_in_the_comment() -> None:
    results = await run_both(
        {"summary": "Sunny.", "title": "A", "city": "Paris"},
        {"summary": "It is sunny.", "title": "B", "city": "Paris"},
        rubric={"summary": "same meaning", "title": "same topic"},
        answer=reject_summaries,
    )
    assert results == [
        {"key": "json_match:city", "score": 1, "comment": None, "metadata": None},
        {
            "key": "json_match:summary",
            "score": False,
            "comment": "summary: judged not to match: verdict on summary",
            "metadata": {
                "mismatches": [
                    {
                        "path": "summary",
                        "expected": "It is sunny.",
                        "actual": "Sunny.",
                        "score": False,
                        "kind": "judged",
                        "reason": "verdict on summary",
                    }
                ],
                "alignment": None,
            },
        },
        {"key": "json_match:title", "score": True, "comment": "verdict on title", "metadata": None},
    ]


async def test_one_judge_call_sees_every_rubric_key_and_its_criteria() -> None:
    judge = ScriptedJudge()
    evaluator = create_json_match_evaluator(
        rubric={"summary": "same meaning", "title": "same topic"}, judge=judge, judge_identical=True
    )
    evaluator(
        outputs=[{"summary": "a", "title": "t"}, {"summary": "b", "title": "u"}],
        reference_outputs=[{"summary": "a", "title": "t"}, {"summary": "b", "title": "u"}],
    )
    ((schema, messages),) = judge.calls
    assert schema["title"] == "structured_match_score"
    assert sorted(schema["properties"]) == ["summary_0", "summary_1", "title_0", "title_1"]
    prompt = messages[-1]["content"]
    assert "Key: summary, Criteria: same meaning" in prompt
    assert 'summary_1: "b"' in prompt


async def test_list_rubric_keys_aggregate_across_items() -> None:
    results = await run_both(
        [{"id": 1, "summary": "x"}, {"id": 2, "summary": "y"}],
        [{"id": 2, "summary": "yy"}, {"id": 1, "summary": "xx"}],
        rubric={"summary": "same meaning"},
        list_aggregator="average",
        aggregator="average",
        answer=lambda schema, _: {
            name: {"score": name.endswith("_0"), "reasoning": "r"} for name in schema["properties"]
        },
    )
    # Items pair by id; the judge accepts the first item's summary only: (1 + 1)/2 and (1 + 0)/2.
    assert results[0]["score"] == 0.75
    assert results[0]["metadata"]["alignment"] == [[0, 1], [1, 0]]


async def test_a_rubric_key_missing_on_one_side_scores_zero_without_a_call() -> None:
    judge = ScriptedJudge()
    evaluator = create_json_match_evaluator(rubric={"summary": "same meaning"}, judge=judge)
    results = evaluator(outputs={"a": 1}, reference_outputs={"a": 1, "summary": "s"})
    assert [(r["key"], r["score"]) for r in results] == [
        ("json_match:a", 1),
        ("json_match:summary", 0),
    ]
    assert judge.calls == []


async def test_use_reasoning_false_asks_for_bare_booleans() -> None:
    results = await run_both(
        {"summary": "a"},
        {"summary": "b"},
        rubric={"summary": "same meaning"},
        use_reasoning=False,
        aggregator="all",
        answer=lambda schema, _: {
            name: spec["type"] == "boolean" for name, spec in schema["properties"].items()
        },
    )
    assert results[0]["score"] == 1


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda schema, _: "yes", "not an object"),
        (lambda schema, _: {}, "no valid verdict for rubric keys \\['summary'\\]"),
        (lambda schema, _: {"summary": {"score": "maybe"}}, "no valid verdict"),
    ],
)
async def test_a_malformed_judge_answer_is_a_clear_error(answer: Any, message: str) -> None:
    evaluator = create_json_match_evaluator(
        rubric={"summary": "same meaning"}, judge=ScriptedJudge(answer=answer)
    )
    with pytest.raises(ValueError, match=message):
        evaluator(outputs={"summary": "a"}, reference_outputs={"summary": "b"})
    aevaluator = create_async_json_match_evaluator(
        rubric={"summary": "same meaning"}, judge=ScriptedJudge(answer=answer)
    )
    with pytest.raises(ValueError, match=message):
        await aevaluator(outputs={"summary": "a"}, reference_outputs={"summary": "b"})


def test_rubric_keys_take_no_part_in_pairing() -> None:
    judge = ScriptedJudge()
    results = create_json_match_evaluator(rubric={"note": "any"}, judge=judge, aggregator="all")(
        outputs=[{"id": 1, "note": "q"}, {"id": 2, "note": "p"}],
        reference_outputs=[{"id": 2, "note": "q"}, {"id": 1, "note": "p"}],
    )
    assert results[0]["metadata"] == {"alignment": [[0, 1], [1, 0]]}
    assert results[0]["score"] == 1


def test_a_judge_that_cannot_work_is_refused_when_the_evaluator_is_built() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    for factory in (create_json_match_evaluator, create_async_json_match_evaluator):
        with pytest.raises(TypeError, match=r"^judge is \"gpt-4o\" \(str\).*pass model='gpt-4o'"):
            factory(rubric={"summary": "same meaning"}, judge="gpt-4o")
        with pytest.raises(TypeError, match="FakeListChatModel that cannot give structured output"):
            factory(rubric={"summary": "same meaning"}, judge=FakeListChatModel(responses=["x"]))
        with pytest.raises(TypeError, match=r"^judge is 3 \(int\)"):
            factory(rubric={"summary": "same meaning"}, judge=3)


def test_an_openai_style_client_needs_a_model_name() -> None:
    class Client:
        chat = object()

    with pytest.raises(ValueError, match="OpenAI-style client; pass model="):
        create_json_match_evaluator(rubric={"summary": "same"}, judge=Client())
    create_json_match_evaluator(rubric={"summary": "same"}, judge=Client(), model="openai:gpt-4o")
