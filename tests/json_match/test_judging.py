"""Cheaper judging: identical values skip the judge, one call per evaluation, judge failures."""

from __future__ import annotations

from typing import Any

import pytest

from matchevals.json_match import (
    JudgeError,
    create_async_json_match_evaluator,
    create_json_match_evaluator,
)
from tests.scripted_judge import ScriptedJudge


def scores(results: list[Any]) -> dict[str, Any]:
    return {result["key"].removeprefix("json_match:"): result["score"] for result in results}


async def judged_both(
    outputs: Any, references: Any, answer: Any = None, **options: Any
) -> tuple[list[Any], list[ScriptedJudge]]:
    judges = [ScriptedJudge(), ScriptedJudge()]
    if answer is not None:
        judges = [ScriptedJudge(answer=answer), ScriptedJudge(answer=answer)]
    sync = create_json_match_evaluator(judge=judges[0], **options)(
        outputs=outputs, reference_outputs=references
    )
    asynchronous = await create_async_json_match_evaluator(judge=judges[1], **options)(
        outputs=outputs, reference_outputs=references
    )
    assert sync == asynchronous
    assert len(judges[0].calls) == len(judges[1].calls)
    return sync, judges


async def test_identical_rubric_values_score_one_without_a_call() -> None:
    rubric = {"summary": "same meaning", "title": "same topic"}
    outputs = {"summary": "Sunny.", "title": "Weather"}
    results, judges = await judged_both(outputs, dict(outputs), rubric=rubric)
    assert scores(results) == {"summary": True, "title": True}
    assert judges[0].calls == []
    # Only the differing key goes to the judge.
    results, judges = await judged_both(outputs, {**outputs, "title": "Climate"}, rubric=rubric)
    ((schema, _),) = judges[0].calls
    assert list(schema["properties"]) == ["title"]
    # judge_identical=True restores openevals' behaviour: every rubric key is judged.
    results, judges = await judged_both(outputs, dict(outputs), rubric=rubric, judge_identical=True)
    ((schema, _),) = judges[0].calls
    assert sorted(schema["properties"]) == ["summary", "title"]
    assert [r["comment"] for r in results] == ["summary looks right", "title looks right"]


async def test_all_rubric_keys_of_one_evaluation_go_in_one_call() -> None:
    outputs = [
        {"id": 1, "summary": "a", "detail": {"note": "x", "why": "p"}},
        {"id": 2, "summary": "b", "detail": {"note": "y", "why": "q"}},
    ]
    references = [
        {"id": 2, "summary": "B", "detail": {"note": "Y", "why": "Q"}},
        {"id": 1, "summary": "A", "detail": {"note": "X", "why": "P"}},
    ]
    results, judges = await judged_both(
        outputs,
        references,
        nested=True,
        rubric={"summary": "same meaning", "detail.*": "same gist"},
    )
    assert [len(judge.calls) for judge in judges] == [1, 1]
    ((schema, messages),) = judges[0].calls
    assert sorted(schema["properties"]) == [
        "detail_note_1",
        "detail_note_4",
        "detail_why_2",
        "detail_why_5",
        "summary_0",
        "summary_3",
    ]
    prompt = messages[-1]["content"]
    assert "Key: detail.note, Criteria: same gist" in prompt
    assert scores(results) == {"detail.note": 1, "detail.why": 1, "id": 1, "summary": 1}
    assert results[0]["comment"] == "detail_note_1 looks right detail_note_4 looks right"


async def test_nested_rubric_rejections_name_the_item() -> None:
    def reject_notes(schema: dict[str, Any], _: Any) -> dict[str, Any]:
        return {
            name: {"score": not name.startswith("lines_note"), "reasoning": f"on {name}"}
            for name in schema["properties"]
        }

    results, _ = await judged_both(
        {"lines": [{"sku": "A", "note": "fragile"}]},
        {"lines": [{"sku": "A", "note": "handle with care"}]},
        answer=reject_notes,
        nested=True,
        rubric={"lines[*].note": "same instruction"},
        aggregator="average",
    )
    (result,) = results
    assert result["score"] == 0.5
    assert result["comment"] == (
        "lines[*].note (outputs.lines[0] vs reference_outputs.lines[0]): judged not to match: "
        "on lines_note_0"
    )
    assert result["metadata"]["mismatches"][0]["kind"] == "judged"


async def test_a_judge_exception_is_a_clear_error_naming_the_keys() -> None:
    def explode(schema: dict[str, Any], _: Any) -> Any:
        raise TimeoutError("the model did not answer")

    options = {"rubric": {"summary": "same meaning", "title": "same"}}
    for factory in (create_json_match_evaluator, create_async_json_match_evaluator):
        evaluator = factory(judge=ScriptedJudge(answer=explode), **options)
        with pytest.raises(JudgeError, match=r"rubric keys \['summary', 'title'\]: TimeoutError"):
            result = evaluator(
                outputs={"summary": "a", "title": "b"},
                reference_outputs={"summary": "x", "title": "y"},
            )
            if factory is create_async_json_match_evaluator:
                await result


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            lambda schema, _: (_ for _ in ()).throw(RuntimeError("rate limited")),
            "RuntimeError: rate",
        ),
        (lambda schema, _: "yes", "not an object"),
        (lambda schema, _: {"summary": {"score": "maybe"}}, "no valid verdict for rubric key"),
    ],
)
async def test_on_judge_error_zero_scores_zero_with_the_error_in_the_comment(
    answer: Any, message: str
) -> None:
    results, _ = await judged_both(
        {"summary": "a", "n": 1},
        {"summary": "b", "n": 1},
        answer=answer,
        rubric={"summary": "same meaning"},
        on_judge_error="zero",
    )
    by_key = {result["key"]: result for result in results}
    summary = by_key["json_match:summary"]
    assert summary["score"] == 0
    assert summary["comment"].startswith("summary: the judge failed: ")
    assert message in summary["comment"]
    assert summary["metadata"]["mismatches"][0]["kind"] == "judge_error"
    assert by_key["json_match:n"]["score"] == 1
    nested, _ = await judged_both(
        {"a": {"summary": "a"}},
        {"a": {"summary": "b"}},
        answer=answer,
        rubric={"**.summary": "same meaning"},
        nested=True,
        on_judge_error="zero",
        aggregator="all",
    )
    assert nested[0]["score"] == 0
    assert "a.summary: the judge failed: " in nested[0]["comment"]


def test_on_judge_error_must_be_known() -> None:
    with pytest.raises(ValueError, match="on_judge_error"):
        create_json_match_evaluator(on_judge_error="ignore")
    with pytest.raises(TypeError, match="judge_identical"):
        create_json_match_evaluator(judge_identical="no")
