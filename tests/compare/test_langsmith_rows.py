"""Two ``langsmith.evaluate`` experiments compared as they come (the real ``evaluate``, offline,
over the same dataset): examples pair by their LangSmith ids, what newly fails comes from the
json_match feedback's metadata, and ``num_repetitions`` makes trials."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone
from typing import Any
from uuid import uuid4

import pytest
from langsmith import evaluate
from langsmith.evaluation import EvaluationResult
from langsmith.schemas import Example

from matchevals.compare import compare_runs
from matchevals.json_match import create_json_match_evaluator
from tests.langsmith_offline import offline_client

PEOPLE = {f"p{i}": {"name": f"n{i}", "city": "Paris"} for i in range(6)}
DATASET = [
    Example(id=uuid4(), inputs={"who": who}, outputs=person, dataset_id=uuid4(),
            created_at=datetime.now(timezone.utc))
    for who, person in PEOPLE.items()
]  # fmt: skip

# langsmith before 0.6 drops a result's "metadata" inside evaluate (its EvaluationResult has no
# such field): what newly fails is then named by the failing result's key alone.
KEEPS_METADATA = "metadata" in (  # a pydantic v1 model there, v2 here
    getattr(EvaluationResult, "model_fields", None) or EvaluationResult.__fields__
)


def _experiment(
    wrong_city: set[str], repetitions: int = 1, flaky: frozenset[str] = frozenset()
) -> Any:
    calls = itertools.count()

    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        who = inputs["who"]
        answer = dict(PEOPLE[who])
        if who in wrong_city or (who in flaky and next(calls) % 2 == 0):
            answer["city"] = "Lyon"
        return answer

    return evaluate(
        target, data=DATASET, evaluators=[create_json_match_evaluator()],
        upload_results=False, client=offline_client(), num_repetitions=repetitions,
        max_concurrency=0,
    )  # fmt: skip


def test_two_experiments_pair_by_langsmith_example_id() -> None:
    base, new = _experiment(set()), _experiment({"p1", "p4"})
    comparison = compare_runs(base, new)
    assert comparison.paired_by == "id" and comparison.paired == 6
    names = {str(example.id): example.inputs["who"] for example in DATASET}
    assert sorted(names[change.id] for change in comparison.regressions) == ["p1", "p4"]
    newly_failing = [dict(change.newly_failing) for change in comparison.regressions]
    if KEEPS_METADATA:
        assert newly_failing == [{"json": ("city",)}] * 2
    else:
        assert newly_failing == [{"results": ("json_match:city",)}] * 2


def test_repetitions_are_trials() -> None:
    base = _experiment(set())
    new = _experiment(set(), repetitions=4, flaky=frozenset({"p2"}))
    comparison = compare_runs(base, new)
    repeated = comparison.repeated["new"]
    assert repeated is not None and (repeated.fewest_trials, repeated.most_trials) == (4, 4)
    assert comparison.problems == ()
    (regressed,) = comparison.regressions
    assert regressed.new_trials == 4 and 0 < regressed.new_score < 1
    assert repeated.pass_hat_k[4] == pytest.approx(5 / 6)  # p2 fails some of its trials
