"""compat="openevals" returns exactly what openevals 0.2.2 returns, dict for dict.

Differential tests against the installed openevals over thousands of seeded random inputs: every
aggregator, list aggregator and list mode; values that Python's equality and JSON's disagree on
(``True``/``1``, ``0``/``False``, ``1.0``, tuples, NaN), empty items, ``{}``/``[]`` values, keys
holding ``_`` (openevals splits its raw keys at the last one) and the empty key. The sync
evaluator is compared with openevals' sync one and the async with openevals' async one (they
disagree with each other on some list inputs, and compat keeps each one's answer).
"""

from __future__ import annotations

import asyncio
import random
import warnings
from collections import Counter
from typing import Any

import pytest
from openevals.json import create_async_json_match_evaluator as openevals_async
from openevals.json import create_json_match_evaluator as openevals_sync

from matchevals.json_match import create_async_json_match_evaluator, create_json_match_evaluator
from matchevals.testing import ScriptedJudge

KEYS = ["a", "b", "c", "a_1", "_", "", "x_0"]
VALUES: list[Any] = [0, 1, 2, True, False, None, {}, [], "x", [1, 2], {"k": 1}, 1.0, 0.0]
VALUES += [float("nan"), [True], (1, 2), {"k": True}]
CASES = 4000


def random_item(rng: random.Random) -> dict[str, Any]:
    return {key: rng.choice(VALUES) for key in rng.sample(KEYS, rng.randint(0, 4))}


def random_case(rng: random.Random) -> tuple[Any, Any, dict[str, Any]]:
    options = {
        "aggregator": rng.choice([None, "average", "all"]),
        "list_aggregator": rng.choice(["average", "all"]),
        "list_match_mode": rng.choice(["same_elements", "subset", "superset", "ordered"]),
        "exclude_keys": rng.sample(["a", "b", "_"], rng.choice([0, 0, 1])),
    }
    if rng.random() < 0.2:
        return random_item(rng), random_item(rng), options
    outputs = [random_item(rng) for _ in range(rng.randint(0, 5))]
    references = [random_item(rng) for _ in range(rng.randint(0, 5))]
    if rng.random() < 0.4:  # shuffled near-copies make pairing decisions interesting
        references = [dict(item) for item in outputs]
        rng.shuffle(references)
        if references and rng.random() < 0.5:
            references[0] = random_item(rng)
    return outputs, references, options


def test_compat_equals_openevals_sync_and_async_on_random_inputs() -> None:
    rng = random.Random(20261203)
    seen: Counter[str] = Counter()
    differences: list[Any] = []

    async def run_all() -> None:
        for _ in range(CASES):
            outputs, references, options = random_case(rng)
            pair = {"outputs": outputs, "reference_outputs": references}
            seen.update(f"{name}={value}" for name, value in options.items() if name != "exclude_keys")  # fmt: skip # noqa: E501
            seen["list" if isinstance(outputs, list) else "dict"] += 1
            theirs = openevals_sync(**options)(**pair)
            ours = create_json_match_evaluator(**options, compat="openevals")(**pair)
            theirs_async = await openevals_async(**options)(**pair)
            ours_async = await create_async_json_match_evaluator(**options, compat="openevals")(
                **pair
            )
            if repr(ours) != repr(theirs) or repr(ours_async) != repr(theirs_async):
                differences.append((outputs, references, options))
            seen["sync differs from async"] += repr(theirs) != repr(theirs_async)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asyncio.run(run_all())
    assert differences == []
    # every option value was drawn many times, and openevals' own twins disagreed sometimes
    for option in ("aggregator=None", "aggregator=average", "aggregator=all"):
        assert seen[option] > CASES // 5
    for mode in ("same_elements", "subset", "superset", "ordered"):
        assert seen[f"list_match_mode={mode}"] > CASES // 6
    assert seen["list_aggregator=average"] > CASES // 3 and seen["dict"] > CASES // 10
    assert seen["sync differs from async"] > 10


def verdict_from_prompt(request: Any) -> tuple[bool, str]:
    """A deterministic judge: rubric key s passes when the prompt shows an "x"."""
    return ("x" in request.prompt) == (request.key == "s"), f"because {request.field}"


def test_compat_rubric_keys_go_to_the_judge_as_openevals_sends_them() -> None:
    rng = random.Random(7)
    keys, values = ["a", "b", "s", "t"], [0, 1, True, None, {}, "x", "y"]

    def item() -> dict[str, Any]:
        return {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, 4))}

    async def run_all() -> int:
        compared = 0
        for _ in range(1200):
            options = {
                "aggregator": rng.choice([None, "average", "all"]),
                "list_aggregator": rng.choice(["average", "all"]),
                "list_match_mode": rng.choice(["same_elements", "subset", "superset", "ordered"]),
                "rubric": rng.choice([{"s": "same", "t": "similar"}, {"s": "same"}]),
                "use_reasoning": rng.random() < 0.7,
            }
            if rng.random() < 0.3:
                pair = {"outputs": item(), "reference_outputs": item()}
            else:
                pair = {
                    "outputs": [item() for _ in range(rng.randint(0, 4))],
                    "reference_outputs": [item() for _ in range(rng.randint(0, 4))],
                }
            for theirs_factory, ours_factory in (
                (openevals_sync, create_json_match_evaluator),
                (openevals_async, create_async_json_match_evaluator),
            ):
                their_judge, our_judge = ScriptedJudge(verdict_from_prompt), ScriptedJudge(verdict_from_prompt)  # fmt: skip # noqa: E501
                theirs = theirs_factory(**options, judge=their_judge)(**pair)
                ours = ours_factory(**options, judge=our_judge, compat="openevals")(**pair)
                if asyncio.iscoroutine(theirs):
                    theirs, ours = await theirs, await ours
                assert repr(ours) == repr(theirs), (pair, options)
                assert len(our_judge.calls) == len(their_judge.calls)
                assert [call.schema for call in our_judge.calls] == [
                    call.schema for call in their_judge.calls
                ] or options["aggregator"] is None  # openevals orders one call's keys by hash
                compared += 1
        return compared

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert asyncio.run(run_all()) == 2400


def test_compat_keeps_python_equality_and_converts_nothing() -> None:
    evaluator = create_json_match_evaluator(compat="openevals")
    outputs = {"flag": True, "pair": (1, 2), "n": 1.0}
    results = evaluator(outputs=outputs, reference_outputs={"flag": 1, "pair": [1, 2], "n": 1})
    assert results == [
        {"key": "json_match:flag", "score": 1, "comment": None, "metadata": None},
        {"key": "json_match:n", "score": 1, "comment": None, "metadata": None},
        {"key": "json_match:pair", "score": 0, "comment": None, "metadata": None},
    ]
    # without compat: JSON equality (true is not 1), values converted (a tuple is a list)
    corrected = create_json_match_evaluator()(
        outputs={"flag": True, "pair": (1, 2)}, reference_outputs={"flag": 1, "pair": [1, 2]}
    )
    assert [(r["key"], r["score"]) for r in corrected] == [
        ("json_match:flag", 0),
        ("json_match:pair", 1),
    ]


def test_compat_async_keeps_openevals_async_answer_where_its_sync_one_differs() -> None:
    # a key absent from both items of pair 1, present at two other positions
    outputs = [{"a": 1, "b": 1}, {"c": 1}, {"a": 1, "b": 1}]
    references = [{"a": 1, "b": 1}, {"c": 1}, {"a": 1, "b": 1}]
    options = {"list_aggregator": "average"}
    sync = create_json_match_evaluator(**options, compat="openevals")(
        outputs=outputs, reference_outputs=references
    )
    asynchronous = asyncio.run(
        create_async_json_match_evaluator(**options, compat="openevals")(
            outputs=outputs, reference_outputs=references
        )
    )
    assert sync == openevals_sync(**options)(outputs=outputs, reference_outputs=references)
    assert asynchronous == asyncio.run(
        openevals_async(**options)(outputs=outputs, reference_outputs=references)
    )
    scores = {r["key"]: r["score"] for r in sync}, {r["key"]: r["score"] for r in asynchronous}
    assert scores == (
        {"json_match:a": 2 / 3, "json_match:b": 2 / 3, "json_match:c": 1},
        {"json_match:a": 1.0, "json_match:b": 1.0, "json_match:c": 1},
    )


def test_compat_takes_feedback_key_as_the_prefix() -> None:
    evaluator = create_json_match_evaluator(
        aggregator="average", compat="openevals", feedback_key="invoice"
    )
    assert evaluator(outputs={"total": 1}, reference_outputs={"total": 2}) == [
        {"key": "invoice:average", "score": 0.0, "comment": None, "metadata": None}
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"alignment": "greedy"}, "drop alignment="),
        ({"nested": True, "comparators": {"a": lambda x, y: 1}}, "drop comparators=, nested="),
        ({"compat": "agentevals"}, "compat must be None or 'openevals'"),
    ],
)
def test_compat_refuses_options_openevals_does_not_have(
    options: dict[str, Any], message: str
) -> None:
    options = {"compat": "openevals", **options}
    with pytest.raises(ValueError, match=message):
        create_json_match_evaluator(**options)


@pytest.mark.parametrize(
    ("outputs", "references", "error", "message"),
    [
        ('{"a": 1}', {"a": 1}, TypeError, "outputs is str; compat='openevals' scores"),
        ({"a": 1}, None, TypeError, "reference_outputs is NoneType"),
        ([{"a": 1}, "b"], [{"a": 1}], TypeError, r"outputs\[1\] is str"),
        ([{"a": 1}], {"a": 1}, ValueError, "reference_outputs must also be a list"),
    ],
)
def test_compat_refuses_clearly_what_openevals_crashes_on(
    outputs: Any, references: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        create_json_match_evaluator(compat="openevals")(
            outputs=outputs, reference_outputs=references
        )
