"""compat="openevals" answers exactly what openevals 0.2.2 answers, result for result.

Differential tests against the installed openevals over thousands of seeded random trajectory
pairs, sync and async, in every trajectory mode × arguments mode, with overrides of every form
openevals takes (a mode, a key list, a function, a falsy one). Messages come in every shape
openevals reads: OpenAI dicts (JSON-string arguments), LangChain message objects and dicts
(``ai``/``human`` roles), Anthropic ``tool_use`` blocks, ``{"messages": [...]}``, empty and
``None`` tool calls; arguments mix ``True`` and ``1``, ``0`` and ``False``, ``1.0``, ``None``.
"""

from __future__ import annotations

import asyncio
import json
import random
import warnings
from collections import Counter
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from openevals.trajectory.match import (
    create_async_trajectory_match_evaluator as openevals_async,
)
from openevals.trajectory.match import create_trajectory_match_evaluator as openevals_sync

from matchevals.trajectory import (
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
)

NAMES = ["a", "b", "c"]
ARGS: list[dict[str, Any]] = [
    {}, {"q": "x"}, {"q": "x", "n": 1}, {"q": "x", "n": True}, {"n": 1.0}, {"q": "y"},
    {"n": {"k": [1, 2]}}, {"n": None}, {"n": 0}, {"n": False}, {"n": {"k": [True, 2]}},
]  # fmt: skip
CASES = 3000


def same_q(output: dict[str, Any], reference: dict[str, Any]) -> bool:
    return output.get("q") == reference.get("q")


def random_call(rng: random.Random) -> dict[str, Any]:
    name, args = rng.choice(NAMES), dict(rng.choice(ARGS))
    form = rng.randint(0, 2)
    if form == 0:
        return {"name": name, "args": args, "id": "i"}
    if form == 1:
        return {"function": {"name": name, "arguments": json.dumps(args)}, "type": "function"}
    return {"name": name, "args": args}


def random_message(rng: random.Random) -> Any:
    roll, objects = rng.random(), rng.random() < 0.3
    if roll < 0.5:
        calls = [random_call(rng) for _ in range(rng.randint(0, 3))]
        if objects:
            lc_calls = [{"name": c.get("name") or c["function"]["name"], "args": c.get("args", {}), "id": "x"} for c in calls]  # fmt: skip # noqa: E501
            return AIMessage(content="", tool_calls=lc_calls)
        return {
            "role": rng.choice(["assistant", "ai"]),
            "content": rng.choice(["", None, "text"]),
            "tool_calls": rng.choice([calls, calls, None, []]),
        }
    if roll < 0.7:
        return HumanMessage("hi") if objects else {"role": rng.choice(["user", "human"]), "content": "q"}  # fmt: skip # noqa: E501
    if roll < 0.85:
        return ToolMessage("r", tool_call_id="x") if objects else {"role": "tool", "content": "r"}
    if roll < 0.92:
        block = {"type": "tool_use", "id": "t", "name": rng.choice(NAMES), "input": dict(rng.choice(ARGS))}  # fmt: skip # noqa: E501
        return {"role": "assistant", "content": [block]}
    return {"role": "system", "content": "s"}


def random_trajectory(rng: random.Random) -> Any:
    messages = [random_message(rng) for _ in range(rng.randint(0, 5))]
    return {"messages": messages} if rng.random() < 0.1 else messages


def random_overrides(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.6:
        return None
    rule = rng.choice(["exact", "ignore", "subset", "superset", ["q"], ["n.k"], same_q, None, []])
    return {rng.choice(NAMES): rule}


def random_case(rng: random.Random) -> tuple[Any, Any, dict[str, Any]]:
    outputs, references = random_trajectory(rng), random_trajectory(rng)
    if rng.random() < 0.35 and isinstance(outputs, list):  # reordered copies pair interestingly
        references = list(reversed(outputs)) if rng.random() < 0.5 else list(outputs)
    options = {
        "trajectory_match_mode": rng.choice(["strict", "unordered", "subset", "superset"]),
        "tool_args_match_mode": rng.choice(["exact", "ignore", "subset", "superset"]),
        "tool_args_match_overrides": random_overrides(rng),
    }
    return outputs, references, options


def test_compat_equals_openevals_sync_and_async_on_random_trajectories() -> None:
    rng = random.Random(20261203)
    seen: Counter[Any] = Counter()
    differences: list[Any] = []

    async def run_all() -> None:
        for _ in range(CASES):
            outputs, references, options = random_case(rng)
            pair = {"outputs": outputs, "reference_outputs": references}
            theirs = openevals_sync(**options)(**pair)
            ours = create_trajectory_match_evaluator(**options, compat="openevals")(**pair)
            theirs_async = await openevals_async(**options)(**pair)
            ours_async = await create_async_trajectory_match_evaluator(
                **options, compat="openevals"
            )(**pair)
            if repr(ours) != repr(theirs) or repr(ours_async) != repr(theirs_async):
                differences.append((outputs, references, options))
            seen[(options["trajectory_match_mode"], options["tool_args_match_mode"])] += 1
            seen[theirs["score"]] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        asyncio.run(run_all())
    assert differences == []
    assert len([key for key in seen if isinstance(key, tuple)]) == 16  # every mode pair
    assert min(count for key, count in seen.items() if isinstance(key, tuple)) > 100
    assert seen[True] > 300 and seen[False] > 300


def test_compat_reproduces_openevals_greedy_pairing_and_python_equality() -> None:
    def search(**args: Any) -> dict[str, Any]:
        return {"name": "search", "args": args}

    outputs = [{"role": "ai", "tool_calls": [search(q="x"), search(q="x", lang="en")]}]
    references = [{"role": "ai", "tool_calls": [search(q="x", lang="en"), search(q="x")]}]
    for mode in ("strict", "unordered", "subset", "superset"):
        options = {"trajectory_match_mode": mode, "tool_args_match_mode": "subset"}
        compat = create_trajectory_match_evaluator(**options, compat="openevals")
        assert compat(outputs=outputs, reference_outputs=references)["score"] is False
        corrected = create_trajectory_match_evaluator(**options)
        assert corrected(outputs=outputs, reference_outputs=references)["score"] is True
    flag = [{"role": "ai", "tool_calls": [{"name": "f", "args": {"on": True}}]}]
    one = [{"role": "ai", "tool_calls": [{"name": "f", "args": {"on": 1}}]}]
    compat = create_trajectory_match_evaluator(compat="openevals")
    assert compat(outputs=flag, reference_outputs=one) == {
        "key": "trajectory_strict_match", "score": True, "comment": None, "metadata": None,
    }  # fmt: skip
    assert (
        create_trajectory_match_evaluator()(outputs=flag, reference_outputs=one)["score"] is False
    )


def test_compat_takes_feedback_key() -> None:
    evaluator = create_trajectory_match_evaluator(compat="openevals", feedback_key="tools_used")
    assert evaluator(outputs=[], reference_outputs=[])["key"] == "tools_used"


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"alignment": "greedy"}, ValueError, "drop alignment="),
        ({"score": "f1"}, ValueError, "drop score="),
        ({"compat": "agentevals"}, ValueError, "compat must be None or 'openevals'"),
        ({"tool_args_match_mode": "loose"}, ValueError, "Invalid tool args match mode"),
        ({"tool_args_match_overrides": {"f": "loose"}}, ValueError, r"overrides\['f'\]"),
        ({"tool_args_match_overrides": {"f": {"nested": True}}}, ValueError, "a mode"),
        ({"tool_args_match_overrides": ["f"]}, TypeError, "must be a dict"),
    ],
)
def test_compat_refuses_options_openevals_does_not_have(
    options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        create_trajectory_match_evaluator(**{"compat": "openevals", **options})


def _calling(name: str, **args: Any) -> list[dict[str, Any]]:
    call = {"name": name, "args": args}
    return [{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [call]}]  # fmt: skip # noqa: E501


def _agent_first(agent_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
    # asymmetric on purpose: true only when handed the call with "lang" first
    return "lang" in agent_args and "lang" not in reference_args


WHERE_AGENTEVALS_DIFFERS = {
    "key path absent from both calls": (
        _calling("lookup", time={"end": "20:00"}),
        _calling("lookup", time={"end": "20:00"}),
        {"tool_args_match_overrides": {"lookup": ["time.start"]}},
    ),
    "key path null on one side, absent on the other": (
        _calling("lookup", time={"start": None}),
        _calling("lookup", time={}),
        {"tool_args_match_overrides": {"lookup": ["time.start"]}},
    ),
    "superset argument rule in subset mode": (
        _calling("search", q="x", lang="en"),
        _calling("search", q="x"),
        {"trajectory_match_mode": "subset", "tool_args_match_mode": "superset"},
    ),
    "subset argument rule in subset mode": (
        _calling("search", q="x"),
        _calling("search", q="x", lang="en"),
        {"trajectory_match_mode": "subset", "tool_args_match_mode": "subset"},
    ),
    "superset argument rule in unordered mode": (
        _calling("search", q="x", lang="en"),
        _calling("search", q="x"),
        {"trajectory_match_mode": "unordered", "tool_args_match_mode": "superset"},
    ),
    "a function in subset mode": (
        _calling("search", q="x", lang="en"),
        _calling("search", q="x"),
        {"trajectory_match_mode": "subset", "tool_args_match_overrides": {"search": _agent_first}},
    ),
}


@pytest.mark.parametrize("case", sorted(WHERE_AGENTEVALS_DIFFERS))
def test_where_agentevals_differs_from_openevals_compat_and_native_answer_openevals_way(
    case: str,
) -> None:
    # migration.md, "Coming from agentevals": agentevals 0.0.9 answers these the other way
    from agentevals.trajectory.match import create_trajectory_match_evaluator as agentevals_sync

    outputs, references, options = WHERE_AGENTEVALS_DIFFERS[case]
    expected = openevals_sync(**options)(outputs=outputs, reference_outputs=references)
    agentevals = agentevals_sync(**options)(outputs=outputs, reference_outputs=references)
    assert agentevals["score"] is not expected["score"]
    compat = create_trajectory_match_evaluator(compat="openevals", **options)
    assert compat(outputs=outputs, reference_outputs=references) == expected
    compat_async = create_async_trajectory_match_evaluator(compat="openevals", **options)
    assert asyncio.run(compat_async(outputs=outputs, reference_outputs=references)) == expected
    native = create_trajectory_match_evaluator(**options)
    assert native(outputs=outputs, reference_outputs=references)["score"] is expected["score"]
