"""The trajectory-match evaluators: the factories, on the one evaluator edge
(:mod:`matchevals._edge`).

Each factory validates its options once; evaluators pickle whenever their matchers do. A call
normalizes both trajectories, matches them, and builds one result; the async evaluator runs the
same computation (nothing in it waits), so both give the same result for every input.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from matchevals._any_of import check_any_of_key
from matchevals._edge import evaluator
from matchevals._feedback_keys import check_feedback_key, graded_key, renaming
from matchevals._types import EvaluatorResult
from matchevals.trajectory._args import ArgsRules, MatcherArgs
from matchevals.trajectory._compat import CompatRules, compat_match, compat_rules
from matchevals.trajectory._explain import explain
from matchevals.trajectory._match import match_trajectories
from matchevals.trajectory._messages import read_trajectory
from matchevals.trajectory._rules import build_rules
from matchevals.trajectory._turn_rules import PREFIX, TurnRules, check_turn_rules, make_turn_rules
from matchevals.trajectory._types import (
    ALIGNMENTS,
    MODES,
    SCORES,
    Alignment,
    ToolArgsMatchMode,
    ToolArgsOverride,
    TrajectoryMatchMode,
    TrajectoryScore,
)

__all__ = [
    "create_async_trajectory_match_evaluator",
    "create_async_trajectory_rules_evaluator",
    "create_trajectory_match_evaluator",
    "create_trajectory_rules_evaluator",
]

GREEDY_NOTE = (
    "alignment='greedy' paired the tool calls first come, first served; a maximum pairing "
    "(alignment='optimal') matches"
)


@dataclass(frozen=True)
class _Options:
    mode: TrajectoryMatchMode
    rules: ArgsRules
    alignment: Alignment
    score: TrajectoryScore
    key: str
    quiet: bool  # some matcher is an evaluator: keep its own tracing out of our run
    compat: CompatRules | None = None  # compat="openevals": openevals' answer, nothing more
    partial: bool = False  # pattern mode: the best alignment's score


def _options(
    trajectory_match_mode: Any,
    tool_args_match_mode: Any,
    tool_args_match_overrides: Any,
    alignment: Any,
    score: Any,
    feedback_key: Any = None,
    compat: Any = None,
    partial_credit: Any = False,
) -> _Options:
    if not isinstance(trajectory_match_mode, str) or trajectory_match_mode not in MODES:
        raise ValueError(
            f"Invalid trajectory match type: `{trajectory_match_mode}`. Must be one of "
            "`strict`, `unordered`, `subset`, or `superset`, or matchevals' `in_order` or "
            "`pattern`."
        )
    if not isinstance(partial_credit, bool):
        raise TypeError(f"partial_credit is {partial_credit!r}, expected a bool")
    if not isinstance(alignment, str) or alignment not in ALIGNMENTS:
        raise ValueError(f"alignment is {alignment!r}; expected 'optimal' or 'greedy'")
    if not isinstance(score, str) or score not in SCORES:
        raise ValueError(f"score is {score!r}; expected one of {', '.join(map(repr, SCORES))}")
    if trajectory_match_mode == "pattern":
        _check_pattern_options(alignment, score, compat)
    elif partial_credit:
        raise ValueError(
            "partial_credit applies to trajectory_match_mode='pattern' only (other modes "
            "grade with score='precision' | 'recall' | 'f1')"
        )
    boolean_key = f"trajectory_{trajectory_match_mode}_match"
    default_key = boolean_key if score == "match" else graded_key(boolean_key, score)
    if partial_credit:
        default_key = f"{boolean_key}_partial"
    key = check_feedback_key(feedback_key, default_key)
    if compat is not None and trajectory_match_mode == "in_order":
        raise ValueError(
            "trajectory_match_mode='in_order' is a matchevals mode openevals does not have; "
            "drop compat='openevals'"
        )
    if compat is not None:
        checks = _compat_rules(compat, tool_args_match_mode, tool_args_match_overrides, alignment, score)  # fmt: skip # noqa: E501
        unused = build_rules("exact", None)  # compat answers through its own rules only
        return _Options(trajectory_match_mode, unused, alignment, score, key, False, checks)
    rules = build_rules(tool_args_match_mode, tool_args_match_overrides)
    quiet = any(
        isinstance(rule, MatcherArgs) and rule.keywords
        for rule in (rules.default, *rules.overrides.values())
    )
    return _Options(
        trajectory_match_mode, rules, alignment, score, key, quiet, partial=partial_credit
    )


def _check_pattern_options(alignment: Any, score: Any, compat: Any) -> None:
    """Options without a meaning for turn patterns are refused, not ignored."""
    if compat is not None:
        raise ValueError(
            "trajectory_match_mode='pattern' is a matchevals mode openevals does not have; "
            "drop compat='openevals'"
        )
    if score != "match":
        raise ValueError(
            f"score={score!r} grades a pairing of calls, which turn patterns do not make; "
            "use partial_credit=True for a graded pattern match"
        )
    if alignment != "optimal":
        raise ValueError(
            f"alignment={alignment!r} does not apply to trajectory_match_mode='pattern' "
            "(calls within a turn are always paired by a maximum matching)"
        )


def _compute_pattern(options: _Options, outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    # pattern mode's modules (and the graph package's Repeat) load when a pattern is scored
    from matchevals.trajectory._pattern_verdict import score_pattern
    from matchevals.trajectory._turn_compare import turn_comparator
    from matchevals.trajectory._turn_patterns import output_turns, read_pattern

    elements = read_pattern(reference_outputs, "reference_outputs")
    turns = output_turns(read_trajectory(outputs, "outputs"))
    comparator = turn_comparator(options.rules.for_evaluation())
    try:
        score, comment, metadata = score_pattern(
            turns, elements, comparator, partial=options.partial
        )
    except RecursionError:
        raise ValueError(
            "outputs or reference_outputs hold tool arguments nested too deeply (or containing "
            "themselves) to compare"
        ) from None
    return {"key": options.key, "score": score, "comment": comment, "metadata": metadata}


def _read_reference(
    reference: Any, path: str = "reference_outputs", parsed: dict[str, Any] | None = None
) -> Any:
    """The reference as messages; a turn pattern given to another mode says so."""
    try:
        return read_trajectory(reference, path, parsed)
    except (TypeError, ValueError):
        from matchevals.trajectory._turn_patterns import is_pattern

        if is_pattern(reference):
            raise ValueError(
                f'{path} is a turn pattern (TurnStep, Repeat, "*" or {{"turns": ...}}); '
                "match it with trajectory_match_mode='pattern'"
            ) from None
        raise


def _compat_rules(
    compat: Any, mode: Any, overrides: Any, alignment: Any, score: Any
) -> CompatRules:
    if compat != "openevals":
        raise ValueError(f"compat must be None or 'openevals'; got {compat!r}")
    changed = [name for name, value, default in (("alignment", alignment, "optimal"), ("score", score, "match")) if value != default]  # fmt: skip # noqa: E501
    if changed:
        raise ValueError(
            "compat='openevals' reproduces openevals' answer and takes only openevals' "
            f"options; drop {', '.join(f'{name}=' for name in changed)} or drop compat"
        )
    return compat_rules(mode, overrides)


def _compute(options: _Options, outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    if options.compat is not None:
        answer = compat_match(outputs, reference_outputs, options.mode, options.compat)
        return {"key": options.key, "score": answer, "comment": None, "metadata": None}
    if options.mode == "pattern":
        return _compute_pattern(options, outputs, reference_outputs)
    try:
        parsed: dict[str, Any] = {}  # arguments texts on both sides are parsed once
        output_messages = read_trajectory(outputs, "outputs", parsed)
        reference_messages = _read_reference(reference_outputs, parsed=parsed)
        graded = options.score != "match"
        rules = options.rules.for_evaluation()  # each matcher answers each pair once
        matching = match_trajectories(
            output_messages,
            reference_messages,
            mode=options.mode,
            rules=rules,
            alignment=options.alignment,
            graded=graded,
        )
        if not graded and matching.match:
            return {"key": options.key, "score": True, "comment": None, "metadata": None}
        comment, metadata = explain(
            matching, output_messages, reference_messages, options.mode, rules, options.score
        )
        if options.alignment == "greedy" and not matching.match:
            best = match_trajectories(
                output_messages,
                reference_messages,
                mode=options.mode,
                rules=rules,
                alignment="optimal",
            )
            metadata["optimal_match"] = best.match
            if best.match:
                comment = f"{comment}; {GREEDY_NOTE}"
    except RecursionError:
        raise ValueError(
            "outputs or reference_outputs hold tool arguments nested too deeply (or containing "
            "themselves) to compare"
        ) from None
    score: bool | float = matching.match if not graded else getattr(matching, options.score)
    return {"key": options.key, "score": score, "comment": comment, "metadata": metadata}


def _quiet_compute(options: _Options, outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    """``_compute`` with the matchers' own tracing off (one traced run per evaluation)."""
    if not options.quiet:
        return _compute(options, outputs, reference_outputs)
    from langsmith import tracing_context  # only reached while LangSmith watches

    with tracing_context(enabled=False):
        return _compute(options, outputs, reference_outputs)


def _kind(reference: Any, path: str) -> str:
    """One alternative reference checked as a trajectory; every trajectory is of one kind."""
    _read_reference(reference, path)
    return "a trajectory"


def _pattern_kind(reference: Any, path: str) -> str:
    """One alternative reference checked as a turn pattern."""
    from matchevals.trajectory._turn_patterns import read_pattern

    read_pattern(reference, path)
    return "a turn pattern"


async def _acompute(options: _Options, outputs: Any, reference_outputs: Any) -> EvaluatorResult:
    return _compute(options, outputs, reference_outputs)


async def _quiet_acompute(
    options: _Options, outputs: Any, reference_outputs: Any
) -> EvaluatorResult:
    return _quiet_compute(options, outputs, reference_outputs)


def create_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: Mapping[str, ToolArgsOverride] | None = None,
    alignment: Alignment = "optimal",
    score: TrajectoryScore = "match",
    feedback_key: str | None = None,
    compat: Literal["openevals"] | None = None,
    any_of_key: str | None = None,
    partial_credit: bool = False,
) -> Callable[..., EvaluatorResult]:
    """Create an evaluator matching an agent's messages and tool calls against a reference.

    A drop-in for ``openevals.trajectory.match.create_trajectory_match_evaluator`` (same
    arguments, defaults, key ``trajectory_<mode>_match`` and result), plus:

    - ``alignment="optimal"`` (default) pairs tool calls by a maximum matching, so the answer
      is True exactly when a valid pairing exists; ``"greedy"`` reproduces openevals' pairing.
    - ``trajectory_match_mode="in_order"``: every reference call has its own compatible output
      call and the reference's turns (messages with calls; calls within one are concurrent)
      keep their order in the outputs; extra output calls are fine anywhere.
    - ``trajectory_match_mode="pattern"``: a turn pattern (``TurnStep``, ``Repeat``, ``"*"``)
      against the output's assistant turns; ``partial_credit=True`` scores its best alignment.
    - ``tool_args_match_overrides`` also takes, per tool, a dict of json_match options
      (``{"comparators": {"city": comparators.text()}}``) or an evaluator called
      ``evaluator(outputs=output_args, reference_outputs=reference_args)``.
    - ``score="precision" | "recall" | "f1"`` grades the pairing of tool calls instead of the
      boolean (``metadata["match"]`` keeps the mode's verdict).
    - every failure has a ``comment`` and ``metadata`` (``pairing``, ``calls``,
      ``mismatches``); a passing boolean result is exactly openevals' (``metadata`` None).
    - ``reference_outputs`` may be :class:`~matchevals.AnyOf` (several acceptable
      trajectories: the best one's result, ``metadata["any_of"]``); ``any_of_key="any_of"``
      also reads a reference ``{"any_of": [...]}`` as its alternatives.

    >>> evaluator = create_trajectory_match_evaluator(
    ...     trajectory_match_mode="unordered", tool_args_match_mode="subset")
    >>> call = lambda **args: {"name": "search", "args": args}
    >>> outputs = [{"role": "ai", "tool_calls": [call(q="x"), call(q="x", lang="en")]}]
    >>> references = [{"role": "ai", "tool_calls": [call(q="x", lang="en"), call(q="x")]}]
    >>> evaluator(outputs=outputs, reference_outputs=references)
    {'key': 'trajectory_unordered_match', 'score': True, 'comment': None, 'metadata': None}
    """
    options = _options(
        trajectory_match_mode,
        tool_args_match_mode,
        tool_args_match_overrides,
        alignment,
        score,
        feedback_key,
        compat,
        partial_credit,
    )
    return evaluator(
        options.key,
        partial(_compute, options),
        traced=partial(_quiet_compute, options),
        kind=_pattern_kind if options.mode == "pattern" else _kind,
        any_of_key=check_any_of_key(any_of_key),
    )


def create_async_trajectory_match_evaluator(
    *,
    trajectory_match_mode: TrajectoryMatchMode = "strict",
    tool_args_match_mode: ToolArgsMatchMode = "exact",
    tool_args_match_overrides: Mapping[str, ToolArgsOverride] | None = None,
    alignment: Alignment = "optimal",
    score: TrajectoryScore = "match",
    feedback_key: str | None = None,
    compat: Literal["openevals"] | None = None,
    any_of_key: str | None = None,
    partial_credit: bool = False,
) -> Callable[..., Awaitable[EvaluatorResult]]:
    """The async twin of :func:`create_trajectory_match_evaluator`; same result for every input.

    >>> import asyncio
    >>> evaluator = create_async_trajectory_match_evaluator(trajectory_match_mode="superset")
    >>> result = asyncio.run(evaluator(
    ...     outputs=[{"role": "ai", "tool_calls": [{"name": "a", "args": {}}]}],
    ...     reference_outputs=[{"role": "ai", "tool_calls": [{"name": "b", "args": {}}]}]))
    >>> result["score"], result["comment"]
    (False, 'reference_outputs[0].tool_calls[0] b({}) has no partner in outputs')
    """
    options = _options(
        trajectory_match_mode,
        tool_args_match_mode,
        tool_args_match_overrides,
        alignment,
        score,
        feedback_key,
        compat,
        partial_credit,
    )
    return evaluator(
        options.key,
        partial(_acompute, options),
        asynchronous=True,
        traced=partial(_quiet_acompute, options),
        kind=_pattern_kind if options.mode == "pattern" else _kind,
        any_of_key=check_any_of_key(any_of_key),
    )


_RULES_NAME = "trajectory_rules"


def _checked_rules(rules: TurnRules, outputs: Any, reference_outputs: Any) -> list[EvaluatorResult]:
    return check_turn_rules(rules, outputs)


async def _achecked_rules(
    rules: TurnRules, outputs: Any, reference_outputs: Any
) -> list[EvaluatorResult]:
    return check_turn_rules(rules, outputs)


def create_trajectory_rules_evaluator(
    *,
    forbidden_tools: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_turns: int | None = None,
    before: Iterable[tuple[str, str]] = (),
    feedback_key: str = PREFIX,
) -> Callable[..., list[EvaluatorResult]]:
    """An evaluator of rules that need no reference: one result per configured rule.

    ``forbidden_tools``: no call of these; ``max_calls``: the most calls per tool;
    ``max_turns``: the most assistant messages (a final answer without calls is a turn);
    ``before``: pairs ``(a, b)``, every call of ``a`` in an earlier assistant turn than every
    call of ``b`` (true when either is never called). Keys: ``trajectory_forbidden_tools``,
    ``trajectory_max_calls``, ``trajectory_max_turns``, ``trajectory_before`` (``feedback_key``
    replaces ``trajectory``).

    >>> evaluator = create_trajectory_rules_evaluator(forbidden_tools=["drop_db"], max_turns=2)
    >>> outputs = [{"role": "ai", "tool_calls": [{"name": "drop_db", "args": {}}]},
    ...            {"role": "tool", "content": "done", "tool_call_id": "1"},
    ...            {"role": "ai", "content": "Dropped."}]
    >>> [(r["key"], r["score"]) for r in evaluator(outputs=outputs)]
    [('trajectory_forbidden_tools', False), ('trajectory_max_turns', True)]
    """
    rules = make_turn_rules(
        forbidden_tools=forbidden_tools,
        max_calls={} if max_calls is None else max_calls,
        max_turns=max_turns,
        before=before,
    )
    compute = renaming(partial(_checked_rules, rules), PREFIX, check_feedback_key(feedback_key))
    return evaluator(_RULES_NAME, compute, reference=False)


def create_async_trajectory_rules_evaluator(
    *,
    forbidden_tools: Iterable[str] = (),
    max_calls: Mapping[str, int] | None = None,
    max_turns: int | None = None,
    before: Iterable[tuple[str, str]] = (),
    feedback_key: str = PREFIX,
) -> Callable[..., Awaitable[list[EvaluatorResult]]]:
    """The async twin of :func:`create_trajectory_rules_evaluator`; same results for every input.

    >>> import asyncio
    >>> evaluator = create_async_trajectory_rules_evaluator(before=[("search", "book")])
    >>> call = lambda name: {"name": name, "args": {}}
    >>> outputs = [{"role": "ai", "tool_calls": [call("search"), call("book")]}]
    >>> asyncio.run(evaluator(outputs=outputs))[0]["comment"]
    'outputs[0].tool_calls[1] called book but outputs[0].tool_calls[0] still called search (every search must be called in an earlier assistant turn than any book)'
    """  # noqa: E501
    rules = make_turn_rules(
        forbidden_tools=forbidden_tools,
        max_calls={} if max_calls is None else max_calls,
        max_turns=max_turns,
        before=before,
    )
    compute = renaming(
        partial(_achecked_rules, rules), PREFIX, check_feedback_key(feedback_key), asynchronous=True
    )
    return evaluator(_RULES_NAME, compute, asynchronous=True, reference=False)
