"""How the arguments of two calls of the same tool are compared: one rule per tool.

A rule answers ``compatible(output_args, reference_args)`` and, for explanations, lists the
``differences`` between two argument objects. Rules also say what pairing may assume of them:

- ``signature`` rules match exactly the calls whose ``signature`` is equal (and not None):
  ``exact`` (the arguments as JSON values), ``ignore`` (nothing), a list of dotted keys (the
  values at those keys, which must be present). Pairing them is counting.
- ``preorder`` rules (``subset``, ``superset``) are transitive and match identical arguments.
- ``reflexive`` rules (exact, ignore, subset, superset) match identical arguments and are
  transitive, so identical calls may be paired first without losing a better pairing (a key
  list is not: identical arguments lacking a key do not match).
- ``general`` rules (a matcher, a LangSmith-style evaluator, json_match options) promise
  nothing, not even that arguments equal as JSON get the same answer (a matcher may tell
  ``1`` from ``1.0``, or see key order): every candidate pair is asked, and within one
  evaluation (:meth:`ArgsRules.for_evaluation`) each answer is remembered by the identity of
  the two argument objects, so the pairing, the score and the explanation rest on one answer
  per pair. (Arguments read from the same JSON text share one object.)

Values compare as JSON values (``true`` is not ``1``; ``1`` equals ``1.0``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from matchevals.trajectory._json import ABSENT, Token, freeze, json_equal, render, walk

__all__ = [
    "BUILT_IN",
    "ArgDifference",
    "ArgsRule",
    "ArgsRules",
    "KeyArgs",
    "MatcherArgs",
    "MatcherFailed",
]

Args = dict[str, Any]
_Answer = tuple[Args, Args, tuple[bool, list[str]]]  # both objects (kept alive) and the verdict
RuleKind = Literal["signature", "preorder", "general"]


class MatcherFailed(Exception):
    """A user's matcher raised or answered something that is not a verdict; the pairing code
    re-raises it as a ValueError naming the two calls."""


@dataclass(frozen=True, slots=True)
class ArgDifference:
    """One reason two calls' arguments do not match: where the argument is (keys and indexes,
    ``()`` for the arguments as a whole), both values (``ABSENT`` for a side without it), or a
    ``reason``."""

    place: tuple[Token, ...]
    expected: Any
    actual: Any
    reason: str | None = None


class ArgsRule:
    """The comparison of one tool's arguments (see the module docstring)."""

    kind: ClassVar[RuleKind]
    description: ClassVar[str]
    reflexive: ClassVar[bool] = False
    """Identical arguments always match, and matching is transitive: identical calls may be
    paired before anything else."""

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        raise NotImplementedError

    def signature(self, args: Args) -> Hashable | None:
        """For ``signature`` rules: equal signatures (not None) are exactly the matches."""
        raise NotImplementedError

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        raise NotImplementedError


@dataclass(frozen=True)
class ExactArgs(ArgsRule):
    """The arguments are equal as JSON values; differences are listed leaf by leaf."""

    kind: ClassVar[RuleKind] = "signature"
    description: ClassVar[str] = "exact"
    reflexive: ClassVar[bool] = True

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        return json_equal(output_args, reference_args)

    def signature(self, args: Args) -> Hashable | None:
        return freeze(args)

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        return [ArgDifference(*found) for found in walk(reference_args, output_args)]


@dataclass(frozen=True)
class IgnoreArgs(ArgsRule):
    """Any two calls of the tool match."""

    kind: ClassVar[RuleKind] = "signature"
    description: ClassVar[str] = "ignore"
    reflexive: ClassVar[bool] = True

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        return True

    def signature(self, args: Args) -> Hashable | None:
        return ()

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        return []


@dataclass(frozen=True)
class SubsetArgs(ArgsRule):
    """Every output argument is in the reference's, with an equal value."""

    kind: ClassVar[RuleKind] = "preorder"
    description: ClassVar[str] = "subset"
    reflexive: ClassVar[bool] = True

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        return _within(output_args, reference_args)

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        return [
            ArgDifference((key,), reference_args.get(key, ABSENT), value)
            for key, value in output_args.items()
            if key not in reference_args or not json_equal(value, reference_args[key])
        ]


@dataclass(frozen=True)
class SupersetArgs(ArgsRule):
    """Every reference argument is in the output's, with an equal value."""

    kind: ClassVar[RuleKind] = "preorder"
    description: ClassVar[str] = "superset"
    reflexive: ClassVar[bool] = True

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        return _within(reference_args, output_args)

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        return [
            ArgDifference((key,), value, output_args.get(key, ABSENT))
            for key, value in reference_args.items()
            if key not in output_args or not json_equal(output_args[key], value)
        ]


def _within(part: Args, whole: Args) -> bool:
    for key, value in part.items():
        if key not in whole or not json_equal(value, whole[key]):
            return False
    return True


@dataclass(frozen=True)
class KeyArgs(ArgsRule):
    """The values at the given dotted keys are present on both sides and equal; nothing else
    is compared (openevals' list-of-keys override)."""

    keys: tuple[str, ...]
    kind: ClassVar[RuleKind] = "signature"
    description: ClassVar[str] = "keys"

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        mine = self.signature(output_args)
        return mine is not None and mine == self.signature(reference_args)

    def signature(self, args: Args) -> Hashable | None:
        values = []
        for key in self.keys:
            value = value_at(args, key)
            if value is ABSENT:
                return None
            values.append(freeze(value))
        return tuple(values)

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        found = []
        for key in self.keys:
            actual, expected = value_at(output_args, key), value_at(reference_args, key)
            if actual is ABSENT or expected is ABSENT or not json_equal(actual, expected):
                found.append(ArgDifference(tuple(key.split(".")), expected, actual))
        return found


def value_at(args: Args, dotted: str) -> Any:
    """The value at a dotted key, through objects only; ``ABSENT`` when absent.

    >>> value_at({"a": {"b": 1}}, "a.b"), value_at({"a": [1]}, "a.0")
    (1, <missing>)
    """
    current: Any = args
    for part in dotted.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return ABSENT
        current = current[part]
    return current


@dataclass(frozen=True)
class MatcherArgs(ArgsRule):
    """A user's function. Called ``function(output_args, reference_args)`` as openevals calls
    it, or ``function(outputs=..., reference_outputs=...)`` when its signature names those
    (a LangSmith-style evaluator, e.g. a json_match evaluator). It answers a bool, or results
    (a dict with ``score``, or a list of them) that match when every score is 1."""

    function: Callable[..., Any]
    tool: str
    keywords: bool
    origin: str = "the matcher"  # how errors name it: tool_args_match_overrides['search']
    answers: dict[tuple[int, int], _Answer] | None = field(default=None, compare=False, repr=False)
    """Within one evaluation: the verdict on each pair of argument objects (by identity)."""
    kind: ClassVar[RuleKind] = "general"
    description: ClassVar[str] = "matcher"

    def remembering(self) -> MatcherArgs:
        """The same matcher with an empty memory of answers, for one evaluation."""
        return replace(self, answers={})

    def _answer(self, output_args: Args, reference_args: Args) -> Any:
        try:
            if self.keywords:
                answer = self.function(outputs=output_args, reference_outputs=reference_args)
            else:
                answer = self.function(output_args, reference_args)
        except Exception as error:
            raise MatcherFailed(f"{self.origin} raised {type(error).__name__}: {error}") from error
        if inspect.isawaitable(answer):
            if inspect.iscoroutine(answer):
                answer.close()
            raise MatcherFailed(
                f"{self.origin} returned an awaitable; argument matchers must be synchronous"
            )
        return answer

    def _verdict(self, output_args: Args, reference_args: Args) -> tuple[bool, list[str]]:
        answers = self.answers
        if answers is None:
            return self._ask(output_args, reference_args)
        key = (id(output_args), id(reference_args))  # unique while the entry keeps both alive
        known = answers.get(key)
        if known is None:
            verdict = self._ask(output_args, reference_args)
            known = answers[key] = (output_args, reference_args, verdict)
        return known[2]

    def _ask(self, output_args: Args, reference_args: Args) -> tuple[bool, list[str]]:
        return _verdict(self._answer(output_args, reference_args), self.origin, self.keywords)

    def compatible(self, output_args: Args, reference_args: Args) -> bool:
        return self._verdict(output_args, reference_args)[0]

    def differences(self, output_args: Args, reference_args: Args) -> list[ArgDifference]:
        matched, comments = self._verdict(output_args, reference_args)
        if matched:
            return []
        reason = "; ".join(comments) or f"{self.origin} answered no match"
        return [ArgDifference((), reference_args, output_args, reason)]


def _verdict(answer: Any, origin: str, results_expected: bool) -> tuple[bool, list[str]]:
    """``(matched, comments of the failing results)`` from a matcher's answer."""
    if isinstance(answer, bool) or type(answer).__name__ == "bool_":  # numpy booleans too
        return bool(answer), []
    results: Sequence[Any] | None = None
    if isinstance(answer, Mapping):
        results = [answer]
    elif isinstance(answer, (list, tuple)) and all(isinstance(r, Mapping) for r in answer):
        results = answer
    if results is not None and all("score" in result for result in results):
        comments: list[str] = []
        matched = True
        for result in results:
            score = result["score"]
            if isinstance(score, bool) or type(score).__name__ == "bool_":
                good = bool(score)
            elif isinstance(score, (int, float)) and 0 <= score <= 1:  # NaN is not
                good = score == 1
            else:
                raise MatcherFailed(
                    f"{origin} gave a result with score {render(score)}; "
                    "expected a bool or a number in [0, 1]"
                )
            if not good:
                matched = False
                comment = result.get("comment")
                key = result.get("key")
                comments.append(str(comment) if comment else f"{key} scored {render(score)}")
        return matched, comments
    expected = "a bool, or evaluator results with scores" if results_expected else "a bool"
    raise MatcherFailed(f"{origin} returned {render(answer)}; expected {expected}")


BUILT_IN: dict[str, ArgsRule] = {  # the rules tool_args_match_mode names
    "exact": ExactArgs(),
    "ignore": IgnoreArgs(),
    "subset": SubsetArgs(),
    "superset": SupersetArgs(),
}


@dataclass(frozen=True)
class ArgsRules:
    """The rule of every tool: ``overrides`` by tool name, else ``default``."""

    default: ArgsRule
    overrides: Mapping[str, ArgsRule] = field(default_factory=dict)

    all_reflexive: bool = field(init=False)
    """Whether every tool's rule is ``reflexive``."""
    asks_matchers: bool = field(init=False)
    """Whether some tool's rule is a user's matcher (see :meth:`for_evaluation`)."""

    def __post_init__(self) -> None:
        rules = (self.default, *self.overrides.values())
        object.__setattr__(self, "all_reflexive", all(rule.reflexive for rule in rules))
        object.__setattr__(
            self, "asks_matchers", any(isinstance(rule, MatcherArgs) for rule in rules)
        )

    def for_evaluation(self) -> ArgsRules:
        """The rules for one evaluation: every matcher remembers its answers, so no pair of
        argument objects is asked twice (the pairing, the greedy check of the optimal one and
        the explanation all see the same verdict). Without matchers, these very rules.

        >>> rules = ArgsRules(BUILT_IN["exact"], {"s": MatcherArgs(lambda o, r: True, "s", False)})
        >>> rules.for_evaluation().rule_for("s").answers
        {}
        """
        if not self.asks_matchers:
            return self
        return ArgsRules(
            _remembering(self.default),
            {tool: _remembering(rule) for tool, rule in self.overrides.items()},
        )

    def rule_for(self, tool: str) -> ArgsRule:
        return self.overrides.get(tool, self.default)


def _remembering(rule: ArgsRule) -> ArgsRule:
    return rule.remembering() if isinstance(rule, MatcherArgs) else rule
