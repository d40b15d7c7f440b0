"""Small helpers shared by the json_match tests."""

from __future__ import annotations

from typing import Any

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator


def scores(results: list[Any]) -> dict[str, Any]:
    """``{key without the json_match: prefix: score}``."""
    return {result["key"].removeprefix("json_match:"): result["score"] for result in results}


async def both(outputs: Any, references: Any, **options: Any) -> list[Any]:
    """The results of the sync evaluator, asserted equal to the async evaluator's."""
    sync = create_json_match_evaluator(**options)(outputs=outputs, reference_outputs=references)
    asynchronous = await create_async_json_match_evaluator(**options)(
        outputs=outputs, reference_outputs=references
    )
    assert sync == asynchronous
    return sync
