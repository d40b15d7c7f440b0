"""Against the installed openevals, on thousands of seeded random trajectory pairs.

- ``alignment="greedy"`` answers exactly what openevals answers, everywhere;
- the default (a maximum pairing) answers exactly what an exhaustive search over all pairings
  answers, everywhere, and so equals openevals wherever the search agrees with openevals.

Tool calls are spread over several assistant messages (OpenAI dicts with JSON-string arguments
or LangChain dicts), in every trajectory mode × arguments mode, and with per-tool overrides
(modes, key lists, a transitive matcher and a non-transitive one). Values avoid booleans next to
numbers and NaN, where openevals uses Python equality and matchevals JSON equality.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from openevals.trajectory.match import (
    create_trajectory_match_evaluator as openevals_trajectory_match,
)

from matchevals.trajectory import create_trajectory_match_evaluator
from tests.trajectory.helpers import (
    ARGS_MODES,
    MODES,
    brute_force_verdict,
    random_overrides,
    random_pair,
)

CASES_PER_COMBINATION = 150  # 20 combinations: 3,000 trajectory pairs


def _combinations() -> list[tuple[str, str, bool]]:
    return [(mode, args, False) for mode in MODES for args in ARGS_MODES] + [
        (mode, "exact", True) for mode in MODES
    ]


@pytest.mark.parametrize(("mode", "args_mode", "with_overrides"), _combinations())
def test_greedy_equals_openevals_and_optimal_equals_exhaustive_search(
    mode: str, args_mode: str, with_overrides: bool
) -> None:
    rng = random.Random(f"{mode}-{args_mode}-{with_overrides}")
    disagreements = optimal_differs_from_openevals = 0
    for _ in range(CASES_PER_COMBINATION):
        outputs, references = random_pair(rng)
        overrides: dict[str, Any] | None = random_overrides(rng) if with_overrides else None
        options = {
            "trajectory_match_mode": mode,
            "tool_args_match_mode": args_mode,
            "tool_args_match_overrides": overrides,
        }
        theirs = openevals_trajectory_match(**options)(  # type: ignore[arg-type]
            outputs=outputs, reference_outputs=references
        )["score"]
        greedy = create_trajectory_match_evaluator(**options, alignment="greedy")(
            outputs=outputs, reference_outputs=references
        )
        optimal = create_trajectory_match_evaluator(**options)(
            outputs=outputs, reference_outputs=references
        )
        oracle = brute_force_verdict(outputs, references, mode, args_mode, overrides)
        assert greedy["score"] is theirs, (outputs, references, options)
        assert optimal["score"] is oracle, (outputs, references, options)
        assert greedy["key"] == optimal["key"] == f"trajectory_{mode}_match"
        disagreements += greedy["score"] != optimal["score"]
        optimal_differs_from_openevals += optimal["score"] != theirs
        if theirs and not optimal["score"]:
            pytest.fail(f"greedy found a pairing the maximum pairing missed: {options}")
    assert disagreements == optimal_differs_from_openevals  # greedy is openevals


def test_the_random_cases_exercise_greedy_mistakes() -> None:
    """Over all combinations, openevals is wrong on some cases (about 1% in the issue); the
    generator must produce such cases or the test above proves little."""
    wrong = total = 0
    for mode, args_mode, with_overrides in _combinations():
        rng = random.Random(f"{mode}-{args_mode}-{with_overrides}")
        for _ in range(CASES_PER_COMBINATION):
            outputs, references = random_pair(rng)
            overrides = random_overrides(rng) if with_overrides else None
            greedy = create_trajectory_match_evaluator(
                trajectory_match_mode=mode,  # type: ignore[arg-type]
                tool_args_match_mode=args_mode,  # type: ignore[arg-type]
                tool_args_match_overrides=overrides,
                alignment="greedy",
            )(outputs=outputs, reference_outputs=references)
            total += 1
            wrong += greedy["score"] is False and greedy["metadata"]["optimal_match"] is True
    assert total == 3000
    assert 0.002 < wrong / total < 0.1, wrong


def test_both_answers_occur_in_every_mode() -> None:
    for mode in MODES:
        rng = random.Random(mode)
        scores = set()
        for _ in range(100):
            outputs, references = random_pair(rng)
            scores.add(
                create_trajectory_match_evaluator(trajectory_match_mode=mode)(  # type: ignore[arg-type]
                    outputs=outputs, reference_outputs=references
                )["score"]
            )
        assert scores == {True, False}, mode
