"""``matchevals.testing.ScriptedJudge``: a real LangChain chat model answering from a script."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from matchevals.json_match import JudgeError, create_async_json_match_evaluator
from matchevals.json_match import create_json_match_evaluator as json_match
from matchevals.testing import ScriptedJudge
from matchevals.trajectory import create_trajectory_llm_as_judge

OUTPUTS = {"summary": "a cat sat", "title": "Cats", "year": 2020}
REFERENCES = {"summary": "the cat was sitting", "title": "Dogs", "year": 2020}
RUBRIC = {"summary": "same meaning", "title": "same title"}


def scores(results: list[Any]) -> dict[str, tuple[Any, Any]]:
    return {r["key"]: (r["score"], r["comment"]) for r in results}


def test_a_script_by_rubric_key_answers_verdicts_with_reasoning() -> None:
    judge = ScriptedJudge({"summary": True, "title": (False, "different title")})
    assert isinstance(judge, BaseChatModel)
    results = json_match(rubric=RUBRIC, judge=judge)(outputs=OUTPUTS, reference_outputs=REFERENCES)
    assert scores(results) == {
        "json_match:summary": (True, "scripted verdict"),
        "json_match:title": (False, "title: judged not to match: different title"),
        "json_match:year": (1, None),
    }
    assert len(judge.calls) == 1 and len(judge.prompts) == 1
    assert '"the cat was sitting"' in judge.prompts[0] and "same meaning" in judge.prompts[0]
    assert judge.calls[0].answer == {
        "summary": {"score": True, "reasoning": "scripted verdict"},
        "title": {"score": False, "reasoning": "different title"},
    }


def test_a_function_computes_verdicts_from_what_the_judge_is_shown() -> None:
    seen: list[tuple[str | None, str]] = []

    def verdict(request: Any) -> tuple[bool, str]:
        seen.append((request.key, request.field))
        return "Cats" in request.prompt and request.key == "title", "read the prompt"

    results = json_match(rubric=RUBRIC, judge=ScriptedJudge(verdict), use_reasoning=False)(
        outputs=OUTPUTS, reference_outputs=REFERENCES
    )
    assert scores(results)["json_match:title"] == (True, None)
    assert scores(results)["json_match:summary"][0] is False
    assert sorted(seen) == [("summary", "summary"), ("title", "title")]


def test_list_items_and_the_async_evaluator_and_openevals_schemas() -> None:
    judge = ScriptedJudge({"summary": True, "title": False})
    evaluator = create_async_json_match_evaluator(
        rubric=RUBRIC, judge=judge, list_aggregator="average"
    )
    results = asyncio.run(
        evaluator(outputs=[OUTPUTS, OUTPUTS], reference_outputs=[REFERENCES, REFERENCES])
    )
    assert scores(results)["json_match:title"][0] == 0
    assert set(judge.calls[0].answer) == {"summary_0", "summary_1", "title_0", "title_1"}
    from openevals.json import create_json_match_evaluator as openevals_json_match

    theirs = ScriptedJudge({"summary": True, "title": False})
    openevals_results = openevals_json_match(rubric=RUBRIC, judge=theirs)(
        outputs=OUTPUTS, reference_outputs=REFERENCES
    )
    assert {r["key"]: r["score"] for r in openevals_results} == {
        "json_match:summary": True, "json_match:title": False, "json_match:year": 1,
    }  # fmt: skip


def test_one_verdict_answers_an_llm_as_judge_evaluator() -> None:
    judge = ScriptedJudge((0.75, "mostly efficient"))
    evaluator = create_trajectory_llm_as_judge(judge=judge, continuous=True)
    result = evaluator(outputs=[{"role": "user", "content": "hi"}], reference_outputs=[])
    assert result == {
        "key": "trajectory_accuracy",
        "score": 0.75,
        "comment": "mostly efficient",
        "metadata": None,
    }
    by_key = ScriptedJudge({"score": False})  # a script by key answers the single score too
    assert create_trajectory_llm_as_judge(judge=by_key)(outputs=[])["score"] is False


def test_a_missing_key_or_a_bad_verdict_is_a_clear_error() -> None:
    evaluator = json_match(rubric=RUBRIC, judge=ScriptedJudge({"summary": True}))
    with pytest.raises(JudgeError, match="ScriptedJudge has no verdict for 'title'"):
        evaluator(outputs=OUTPUTS, reference_outputs=REFERENCES)
    with pytest.raises(TypeError, match="verdict for rubric key 'title' is 'yes'"):
        ScriptedJudge({"title": "yes"})
    with pytest.raises(TypeError, match="verdict for the score is None"):
        ScriptedJudge(None)


def test_it_is_a_chat_model_that_pickles_and_answers_plain_calls() -> None:
    judge = ScriptedJudge({"summary": True})
    assert pickle.loads(pickle.dumps(judge)).script == {"summary": True}
    assert ScriptedJudge(True).invoke("hello").content == '{"score": true}'
