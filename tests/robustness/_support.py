"""Shared pieces of the robustness suite: result checks, hostile JSON, option strategies, and a
subprocess runner that turns a hang into a test failure instead of a stuck suite."""

from __future__ import annotations

import inspect
import json
import math
import os
import subprocess
import sys
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from matchevals.graph_trajectory import ReferenceStep, Repeat
from matchevals.json_match import comparators, create_json_match_evaluator
from tests.scripted_judge import ScriptedJudge

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------------------------
# What a well-formed answer looks like
# --------------------------------------------------------------------------------------------


def check_score(score: object) -> float:
    """A score is a bool or a finite number in [0, 1]; returned as a float."""
    assert isinstance(score, (bool, int, float)), f"score {score!r} is not a number"
    value = float(score)
    assert not math.isnan(value), "score is NaN"
    assert 0.0 <= value <= 1.0, f"score {value} is outside [0, 1]"
    return value


def check_json_results(results: object) -> list[float]:
    """json_match results: a non-empty-or-empty list of EvaluatorResult dicts, keys
    ``json_match:...`` in sorted order, scores in [0, 1], comments str or None."""
    assert isinstance(results, list), f"results are {type(results).__name__}, not a list"
    scores = []
    keys = []
    for result in results:
        assert isinstance(result, dict), f"a result is {type(result).__name__}"
        assert {"key", "score", "comment", "metadata"} <= set(result), sorted(result)
        assert isinstance(result["key"], str) and result["key"].startswith("json_match:")
        assert result["comment"] is None or isinstance(result["comment"], str)
        assert result["metadata"] is None or isinstance(result["metadata"], dict)
        scores.append(check_score(result["score"]))
        if float(result["score"]) < 1:
            assert result["comment"], f"{result['key']} scored below 1 without a comment"
        keys.append(result["key"])
    assert keys == sorted(keys), f"keys are not sorted: {keys}"
    assert len(set(keys)) == len(keys), f"duplicate keys: {keys}"
    return scores


def check_graph_result(result: object, *, partial: bool) -> float:
    """One graph trajectory result: bool score (strict) or float in [0, 1] (partial credit)."""
    assert isinstance(result, dict), f"result is {type(result).__name__}"
    assert result["key"] == (
        "graph_trajectory_match_partial" if partial else "graph_trajectory_match"
    )
    if partial:
        assert isinstance(result["score"], float), result["score"]
    else:
        assert isinstance(result["score"], bool), result["score"]
    assert isinstance(result["comment"], str) and result["comment"]
    assert isinstance(result["metadata"], dict)
    runs = result["metadata"]["runs"]
    assert isinstance(runs, list) and runs
    assert [run["run"] for run in runs] == list(range(len(runs)))
    return check_score(result["score"])


def check_error(error: BaseException) -> None:
    """An error a user may get: a ValueError or TypeError that says something."""
    assert isinstance(error, (ValueError, TypeError)), f"{type(error).__name__}: {error}"
    assert str(error).strip(), f"{type(error).__name__} without a message"


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", value)`` or ``("error", exception)`` for ValueError/TypeError; any other
    exception propagates (and fails the test)."""
    try:
        return "ok", call()
    except (ValueError, TypeError) as error:
        check_error(error)
        return "error", error


# --------------------------------------------------------------------------------------------
# JSON values that stress keys, numbers and nesting
# --------------------------------------------------------------------------------------------

AWKWARD_KEYS = [
    "a",
    "b",
    "",
    "_",
    "a_b",
    ".",
    "a.b",
    "[",
    "a[0]",
    "[*]",
    "*",
    "**",
    "ключ",
    "é",
    "🙂",
    " ",
    "null",
]
KEYS = st.one_of(st.sampled_from(AWKWARD_KEYS), st.text(max_size=4))
NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([2**63, -(2**63) - 1, 10**30, 2**53 + 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 0.1 + 0.2, float("nan"), float("inf"), -float("inf")]),
)
SCALARS = st.one_of(
    st.none(), st.booleans(), NUMBERS, st.text(max_size=5), st.sampled_from(["0", "1", "true"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=5)
TOP_LEVEL = st.one_of(
    OBJECTS,
    st.lists(OBJECTS, max_size=4),
    st.lists(SCALARS, max_size=4),
    VALUES,  # anything at all, including a bare scalar: must be a clear error
    st.builds(json.dumps, st.one_of(OBJECTS, st.lists(OBJECTS, max_size=3))),  # JSON text
)

# --------------------------------------------------------------------------------------------
# Every json_match option, read from the factory's signature
# --------------------------------------------------------------------------------------------

PATHS = st.one_of(
    KEYS,
    st.sampled_from(["a.b", "a[*]", "*.b", "**", "a[0].b", "[*].a", "a.**", "x[", "a..b"]),
)
_JUDGE_OPTIONS = {"judge", "model", "rubric", "use_reasoning"}


def _literal_choices(hint: Any) -> tuple[Any, ...] | None:
    """The allowed values of a ``Literal[...]`` (or ``Literal[...] | None``) hint, or None."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return typing.get_args(hint)
    if origin is typing.Union or type(hint).__name__ == "UnionType":
        choices: list[Any] = []
        for arm in typing.get_args(hint):
            if arm is type(None):
                choices.append(None)
                continue
            inner = _literal_choices(arm)
            if inner is None:
                return None
            choices.extend(inner)
        return tuple(choices)
    return None


def json_match_parameters() -> dict[str, inspect.Parameter]:
    """The keyword options of ``create_json_match_evaluator`` as they are today."""
    return dict(inspect.signature(create_json_match_evaluator).parameters)


def _option_strategy(name: str, parameter: inspect.Parameter, hint: Any) -> st.SearchStrategy[Any]:
    special: dict[str, st.SearchStrategy[Any]] = {
        "exclude_keys": st.one_of(st.none(), st.lists(PATHS, max_size=3)),
        "list_match_modes": st.one_of(
            st.none(),
            st.dictionaries(
                PATHS,
                st.sampled_from(["superset", "subset", "same_elements", "ordered"]),
                max_size=2,
            ),
        ),
        "comparators": st.one_of(
            st.none(),
            st.dictionaries(
                PATHS,
                st.sampled_from(
                    [
                        comparators.numeric(abs_tol=0.5),
                        comparators.text(),
                        comparators.exact(),
                        lambda a, b: 0.5,  # partial credit from a user function
                    ]
                ),
                max_size=2,
            ),
        ),
    }
    if name in special:
        return special[name]
    choices = _literal_choices(hint)
    if choices:
        return st.sampled_from(choices)
    if hint is bool or isinstance(parameter.default, bool):
        return st.booleans()
    return st.just(parameter.default)  # an option this suite does not know yet: its default


def json_match_options() -> st.SearchStrategy[dict[str, Any]]:
    """Every option of the factory; rubric keys come with a scripted judge that approves."""
    hints = typing.get_type_hints(create_json_match_evaluator)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for name, parameter in json_match_parameters().items():
        if name in _JUDGE_OPTIONS or name == "compat":
            continue  # compat="openevals" returns openevals' results: tests/json_match/test_compat*
        fields[name] = _option_strategy(name, parameter, hints.get(name))
    rubric = st.one_of(
        st.just({}),
        st.dictionaries(
            st.sampled_from(["a", "b", "a.b", "*"]), st.just("same"), min_size=1, max_size=2
        ),
    )

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        options = draw(st.fixed_dictionaries(fields))
        chosen_rubric = draw(rubric)
        if chosen_rubric:
            options["rubric"] = chosen_rubric
            options["judge"] = ScriptedJudge()
            options["use_reasoning"] = draw(st.booleans())
        return options

    return build()


# --------------------------------------------------------------------------------------------
# Graph trajectories and references with every pattern
# --------------------------------------------------------------------------------------------

NODE_NAMES = st.sampled_from(["a", "b", "c", "*", "", "ключ", "a:b"])
SUPERSTEP = st.lists(NODE_NAMES, max_size=3)
MODES = ["exact", "unordered", "subset", "superset"]
ODD = st.sampled_from([None, 3, "a", 1.5, {"x": 1}, ("a",), b"a", True])


@st.composite
def reference_element(draw: st.DrawFn, depth: int = 0) -> Any:
    kind = draw(
        st.sampled_from(
            ["list", "step", "dict", "repeat", "odd"]
            if depth == 0
            else ["list", "step", "dict", "odd", "repeat"]
        )
    )
    if kind == "list":
        return draw(SUPERSTEP)
    if kind == "step":
        mode = draw(st.one_of(st.sampled_from(MODES), st.just("fuzzy")))
        nodes, optional = draw(SUPERSTEP), draw(st.one_of(st.booleans(), ODD))
        try:
            return ReferenceStep(nodes, mode, optional)
        except (TypeError, ValueError):  # refused when built: the JSON form reaches the evaluator
            return {"steps": nodes, "match_mode": mode, "optional": optional}
    if kind == "dict":
        step: dict[str, Any] = {"steps": draw(st.one_of(SUPERSTEP, ODD))}
        if draw(st.booleans()):
            step["match_mode"] = draw(st.sampled_from([*MODES, "bogus"]))
        if draw(st.booleans()):
            step["optional"] = draw(st.booleans())
        if draw(st.booleans()):
            step["extra"] = 1
        return step
    if kind == "repeat":
        body = draw(
            st.lists(
                reference_element(depth + 1) if depth < 1 else SUPERSTEP, min_size=0, max_size=2
            )
        )
        low = draw(st.one_of(st.integers(-1, 3), ODD))
        high = draw(st.one_of(st.none(), st.integers(-1, 4), ODD))
        try:
            return Repeat(body, low, high)
        except (TypeError, ValueError):  # refused when built: the JSON form reaches the evaluator
            return {"repeat": body, "min": low, "max": high}
    return draw(ODD)


def run_value(steps: Any, results: Any = None) -> dict[str, Any]:
    return {"inputs": None, "results": results, "steps": steps}


RESULTS = st.one_of(st.none(), OBJECTS)
RUN_STEPS = st.one_of(
    st.lists(SUPERSTEP, max_size=6),
    st.lists(st.one_of(SUPERSTEP, ODD), max_size=3),
    ODD,
)


@st.composite
def run_values(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["run", "run", "run", "runs", "odd", "no-steps"]))
    if kind == "run":
        return run_value(draw(RUN_STEPS), draw(RESULTS))
    if kind == "runs":
        return [run_value(draw(RUN_STEPS), draw(RESULTS)) for _ in range(draw(st.integers(0, 2)))]
    if kind == "no-steps":
        return {"results": None}
    return draw(ODD)


@st.composite
def reference_values(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["ref", "ref", "ref", "refs", "odd"]))
    if kind == "ref":
        return run_value(draw(st.lists(reference_element(), max_size=5)), draw(RESULTS))
    if kind == "refs":
        return [
            run_value(draw(st.lists(reference_element(), max_size=4)), draw(RESULTS))
            for _ in range(draw(st.integers(0, 2)))
        ]
    return draw(ODD)


# --------------------------------------------------------------------------------------------
# Subprocesses: a hang is a failure, never a stuck suite
# --------------------------------------------------------------------------------------------


def python_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "LANGSMITH_TRACING": "false", "PYTHONPATH": str(ROOT), **extra}
    env.pop("LANGCHAIN_TRACING_V2", None)
    return env


def run_python(
    code: str, *, timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter; a timeout fails the calling test."""
    try:
        return subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(env) if env is not None else python_env(),
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(
            f"the subprocess did not finish within {timeout} s (a hang)"
        ) from error


def json_lines(completed: subprocess.CompletedProcess[str]) -> list[Any]:
    assert completed.returncode == 0, completed.stderr[-3000:]
    return [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]


@st.composite
def valid_reference_element(draw: st.DrawFn, in_repeat: bool = False) -> Any:
    """A well-formed reference step or (outside a Repeat) a well-formed Repeat."""
    kinds = ["list", "step"] if in_repeat else ["list", "step", "repeat"]
    kind = draw(st.sampled_from(kinds))
    if kind == "list":
        return draw(SUPERSTEP)
    if kind == "step":
        return ReferenceStep(draw(SUPERSTEP), draw(st.sampled_from(MODES)), draw(st.booleans()))
    body = draw(st.lists(valid_reference_element(in_repeat=True), min_size=1, max_size=2))
    low = draw(st.integers(0, 2))
    high = draw(st.one_of(st.none(), st.integers(max(low, 1), 4)))
    return Repeat(body, low, high)


VALID_RUN = st.builds(run_value, st.lists(SUPERSTEP, max_size=7))
VALID_REFERENCE = st.builds(run_value, st.lists(valid_reference_element(), max_size=5))
