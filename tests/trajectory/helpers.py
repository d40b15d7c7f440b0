"""Building trajectories for tests, random trajectories, and brute-force oracles."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from matchevals.trajectory._args import ArgsRules
from matchevals.trajectory._messages import read_trajectory
from matchevals.trajectory._rules import build_rules
from matchevals.trajectory._types import ToolCall, Trajectory

MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")


def openai_call(name: str, args: dict[str, Any], call_id: str = "") -> dict[str, Any]:
    """An OpenAI-style tool call: arguments as a JSON string."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def langchain_call(name: str, args: dict[str, Any], call_id: str = "") -> dict[str, Any]:
    """A LangChain-style tool call: arguments as a dict."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(*calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool(text: str = "result", call_id: str = "") -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": call_id}


# --------------------------------------------------------------------------------------------
# Random trajectories
# --------------------------------------------------------------------------------------------

TOOL_NAMES = ("search", "weather", "fetch")
ARGUMENT_SETS: tuple[dict[str, Any], ...] = (
    {"q": "x"},
    {"q": "x", "lang": "en"},
    {"q": "y"},
    {"q": "x", "lang": "fr"},
    {"q": "y", "lang": "en", "page": 2},
    {},
    {"q": "X"},
    {"q": "x", "opts": {"lang": "en", "n": 3}},
    {"q": "x", "opts": {"lang": "en", "n": 4}},
    {"n": 1},
    {"n": 2},
    {"n": 3},
)
"""Values on which JSON equality and Python ``==`` agree (no booleans next to numbers, no NaN),
with many subset/superset relations between them so greedy pairing goes wrong now and then."""


def random_calls(rng: random.Random, count: int) -> list[tuple[str, dict[str, Any]]]:
    return [(rng.choice(TOOL_NAMES), rng.choice(ARGUMENT_SETS)) for _ in range(count)]


def spread(
    rng: random.Random, calls: Sequence[tuple[str, dict[str, Any]]], style: str
) -> list[dict[str, Any]]:
    """Messages carrying ``calls`` in order, spread over several assistant messages (each
    followed by tool results), with user and text-only messages here and there."""
    make = openai_call if style == "openai" else langchain_call
    messages: list[dict[str, Any]] = [user("question")]
    pending = list(calls)
    while pending:
        take = rng.randint(1, min(3, len(pending)))
        batch, pending = pending[:take], pending[take:]
        messages.append(assistant(*(make(name, args) for name, args in batch)))
        messages.extend(tool() for _ in batch)
        if rng.random() < 0.2:
            messages.append(assistant(text="thinking"))
    if rng.random() < 0.7:
        messages.append(assistant(text="final answer"))
    return messages


def perturbed(
    rng: random.Random, calls: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, dict[str, Any]]]:
    """A reference close to the outputs: calls shuffled, sometimes one dropped, added or
    changed."""
    result = list(calls)
    rng.shuffle(result)
    roll = rng.random()
    if roll < 0.15 and result:
        result.pop(rng.randrange(len(result)))
    elif roll < 0.3:
        result.insert(rng.randint(0, len(result)), random_calls(rng, 1)[0])
    elif roll < 0.5 and result:
        index = rng.randrange(len(result))
        result[index] = (result[index][0], rng.choice(ARGUMENT_SETS))
    return result


def random_pair(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(outputs, reference_outputs)`` with up to 6 calls a side, in one of two styles each."""
    calls = random_calls(rng, rng.randint(0, 6))
    reference_calls = perturbed(rng, calls) if rng.random() < 0.85 else random_calls(rng, 4)
    outputs = spread(rng, calls, rng.choice(["openai", "langchain"]))
    if rng.random() < 0.5 and len(reference_calls) == len(calls):
        # the same message layout, calls permuted inside each message: strict mode's interest
        reference = json.loads(json.dumps(outputs))
        permute_within_messages(rng, reference)
    else:
        reference = spread(rng, reference_calls, rng.choice(["openai", "langchain"]))
    return outputs, reference


def permute_within_messages(rng: random.Random, messages: list[dict[str, Any]]) -> None:
    for message in messages:
        if message.get("tool_calls"):
            rng.shuffle(message["tool_calls"])


def lowercase_query(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
    """An openevals-style matcher: queries equal ignoring case (reflexive and transitive)."""
    return str(output_args.get("q", "")).lower() == str(reference_args.get("q", "")).lower()


def close_counts(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
    """A matcher that is not transitive (counts within 1), so pairing must ask every pair."""
    return abs(int(output_args.get("n", 0)) - int(reference_args.get("n", 0))) <= 1


def random_overrides(rng: random.Random) -> dict[str, Any]:
    forms: list[Any] = [
        "exact",
        "ignore",
        "subset",
        "superset",
        ["q"],
        ["opts.lang"],
        ["q", "lang"],
        lowercase_query,
        close_counts,
    ]
    return {name: rng.choice(forms) for name in TOOL_NAMES if rng.random() < 0.7}


def make_call(
    name: str, args: dict[str, Any], side: str, position: int, text: str | None = None
) -> ToolCall:
    """A normalized call, as if read from ``{side}[0].tool_calls[{position}]``."""
    return ToolCall(name, args, text, 0, (side, 0, "tool_calls", position))


def texts_for(rng: random.Random, args: dict[str, Any]) -> str | None:
    """No text (args given as a dict), the usual JSON text, or another text of equal value."""
    roll = rng.random()
    if roll < 0.3:
        return None
    if roll < 0.7:
        return json.dumps(args)
    return json.dumps(dict(reversed(list(args.items()))), indent=rng.choice([None, 1]))


# --------------------------------------------------------------------------------------------
# Brute-force oracles
# --------------------------------------------------------------------------------------------


def brute_force_pairing_size(
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
    fits: Callable[[ToolCall, ToolCall], bool],
) -> int:
    """The size of a largest one-to-one pairing, by trying every one (small inputs only)."""
    best = 0
    for size in range(min(len(outputs), len(references)), 0, -1):
        for chosen_outputs in itertools.combinations(range(len(outputs)), size):
            for chosen_references in itertools.permutations(range(len(references)), size):
                if all(
                    fits(outputs[i], references[j])
                    for i, j in zip(chosen_outputs, chosen_references, strict=True)
                ):
                    return size
    return best


def fits_under(rules: ArgsRules) -> Callable[[ToolCall, ToolCall], bool]:
    def fits(output: ToolCall, reference: ToolCall) -> bool:
        return output.name == reference.name and bool(
            rules.rule_for(output.name).compatible(output.args, reference.args)
        )

    return fits


def _flat(trajectory: Trajectory) -> list[ToolCall]:
    return [call for message in trajectory for call in message.tool_calls]


def brute_force_verdict(
    outputs: Any, reference_outputs: Any, mode: str, args_mode: str, overrides: Any = None
) -> bool:
    """What a mode answers when tool calls are paired by exhaustive search."""
    rules = build_rules(args_mode, overrides)
    fits = fits_under(rules)
    out = read_trajectory(outputs, "outputs")
    ref = read_trajectory(reference_outputs, "reference_outputs")
    if mode == "strict":
        if len(out) != len(ref):
            return False
        for output, reference in zip(out, ref, strict=True):
            if output.role != reference.role:
                return False
            if len(output.tool_calls) != len(reference.tool_calls):
                return False
            if brute_force_pairing_size(output.tool_calls, reference.tool_calls, fits) != len(
                output.tool_calls
            ):
                return False
        return True
    output_calls, reference_calls = _flat(out), _flat(ref)
    size = brute_force_pairing_size(output_calls, reference_calls, fits)
    if mode == "superset":
        return size == len(reference_calls)
    if mode == "subset":
        return size == len(output_calls)
    return size == len(output_calls) == len(reference_calls)


def brute_force_strict_alignment(
    outputs: Any, reference_outputs: Any, args_mode: str, overrides: Any = None
) -> tuple[int, int]:
    """(calls paired, messages aligned) of the best order-preserving alignment of messages of
    the same role, by trying every alignment."""
    rules = build_rules(args_mode, overrides)
    fits = fits_under(rules)
    out = read_trajectory(outputs, "outputs")
    ref = read_trajectory(reference_outputs, "reference_outputs")
    best = (0, 0)
    for size in range(min(len(out), len(ref)) + 1):
        for chosen_outputs in itertools.combinations(range(len(out)), size):
            for chosen_references in itertools.combinations(range(len(ref)), size):
                pairs = list(zip(chosen_outputs, chosen_references, strict=True))
                if any(out[i].role != ref[j].role for i, j in pairs):
                    continue
                calls = sum(
                    brute_force_pairing_size(out[i].tool_calls, ref[j].tool_calls, fits)
                    for i, j in pairs
                )
                best = max(best, (calls, size))
    return best
