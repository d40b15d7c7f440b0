"""Why a trajectory does not match: problems found from a :class:`Matching`, as comment clauses
(json_match's style) and as data for ``metadata``.

- a reference call without a partner: ``reference_outputs[3].tool_calls[0]
  get_weather({"city": "SF"}) has no partner in outputs``;
- an output call without a partner: ``outputs[5].tool_calls[1] delete_db({}) has no partner in
  reference_outputs``;
- an argument that differs, between two calls of the same tool left without partners (paired
  for the explanation by fewest differences): ``search args.q (outputs[1].tool_calls[0] vs
  reference_outputs[1].tool_calls[0]): expected "x", got "y"``;
- in strict mode also the message count, a role, or a number of calls that differ;
- in in_order mode, a reference call whose only compatible output calls break the order of
  turns: ``reference_outputs[1].tool_calls[0] b({}) is out of order: outputs[0].tool_calls[0]
  fits it but is not after outputs[2].tool_calls[0], paired with
  reference_outputs[0].tool_calls[0] of an earlier turn`` (``metadata`` entry: kind
  ``missing_call`` with ``out_of_order`` naming that output call).

Only what fails the mode is reported: ``superset`` and ``in_order`` ignore extra output calls,
``subset`` reference calls left over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from matchevals._limits import MAX_COMMENT_CLAUSES, MAX_METADATA_MISMATCHES
from matchevals.trajectory._args import ArgDifference, ArgsRules, MatcherFailed
from matchevals.trajectory._json import ABSENT, Kind, path_text, render, sentence, with_article
from matchevals.trajectory._match import Matching
from matchevals.trajectory._pairing import Pair, maximum_pairing
from matchevals.trajectory._types import (
    Message,
    ToolCall,
    Trajectory,
    TrajectoryMatchMode,
    TrajectoryScore,
)

__all__ = ["explain", "render_call"]

_CALL_WIDTH = 60
_EXPLAIN_PAIRS_LIMIT = 10_000  # leftover pairs compared to pair them for explanation


@dataclass(frozen=True, slots=True)
class _Problem:
    text: str
    entry: dict[str, Any]


def render_call(name: str, args: Any) -> str:
    """``search({"q": "x"})``, the arguments truncated.

    >>> render_call("search", {"q": "x"})
    'search({"q": "x"})'
    """
    return f"{name}({render(args, _CALL_WIDTH)})"


def _missing_call(call: ToolCall) -> _Problem:
    return _Problem(
        f"{call.at} {render_call(call.name, call.args)} has no partner in outputs",
        {
            "kind": str(Kind.MISSING_CALL),
            "name": call.name,
            "expected": call.args,
            "actual": None,
            "outputs": None,
            "reference_outputs": call.at,
        },
    )


def _extra_call(call: ToolCall) -> _Problem:
    return _Problem(
        f"{call.at} {render_call(call.name, call.args)} has no partner in reference_outputs",
        {
            "kind": str(Kind.EXTRA_CALL),
            "name": call.name,
            "expected": None,
            "actual": call.args,
            "outputs": call.at,
            "reference_outputs": None,
        },
    )


def _arg_problem(output: ToolCall, reference: ToolCall, difference: ArgDifference) -> _Problem:
    head = f"{output.name} {path_text(difference.place, 'args')} ({output.at} vs {reference.at})"
    expected, actual = difference.expected, difference.actual
    kind = Kind.ARG
    if difference.reason is not None:
        kind = Kind.MATCHER
    elif actual is ABSENT:  # a listed key absent from both sides is missing too
        kind = Kind.MISSING_ARG
    elif expected is ABSENT:
        kind = Kind.EXTRA_ARG
    entry: dict[str, Any] = {
        "kind": str(kind),
        "name": output.name,
        "path": path_text(difference.place),
        "expected": None if expected is ABSENT else expected,
        "actual": None if actual is ABSENT else actual,
        "outputs": output.at,
        "reference_outputs": reference.at,
    }
    if difference.reason is not None:
        entry["reason"] = difference.reason
        return _Problem(f"{head}: {difference.reason}", entry)
    if expected is ABSENT and actual is ABSENT:  # a listed key (openevals' key lists)
        return _Problem(f"{head}: missing from both sides; a listed key must be on both", entry)
    return _Problem(sentence(kind, expected, actual, head), entry)


def _differences(rules: ArgsRules, output: ToolCall, reference: ToolCall) -> list[ArgDifference]:
    try:
        return rules.rule_for(output.name).differences(output.args, reference.args)
    except MatcherFailed as error:
        raise ValueError(f"{error} (comparing {output.at} with {reference.at})") from None


def _explanation_pairs(
    outputs: Sequence[ToolCall], references: Sequence[ToolCall], rules: ArgsRules
) -> list[tuple[int, int, list[ArgDifference]]]:
    """Pair leftover calls of the same tool with the fewest differences between them."""
    found = []
    by_name: dict[str, tuple[list[int], list[int]]] = {}
    for i, call in enumerate(outputs):
        by_name.setdefault(call.name, ([], []))[0].append(i)
    for j, call in enumerate(references):
        if call.name in by_name:
            by_name[call.name][1].append(j)
    for output_indices, reference_indices in by_name.values():
        if not reference_indices:
            continue
        if len(output_indices) * len(reference_indices) > _EXPLAIN_PAIRS_LIMIT:
            # too many to compare: in order
            chosen = zip(output_indices, reference_indices, strict=False)
            found += [(i, j, _differences(rules, outputs[i], references[j])) for i, j in chosen]
            continue
        import numpy as np  # only when two calls of one tool are left over: not at import
        from scipy.optimize import linear_sum_assignment

        table = [
            [_differences(rules, outputs[i], references[j]) for j in reference_indices]
            for i in output_indices
        ]
        costs = np.array([[len(cell) for cell in row] for row in table], dtype=np.float64)
        rows, columns = linear_sum_assignment(costs)
        found += [
            (output_indices[row], reference_indices[column], table[row][column])
            for row, column in zip(rows.tolist(), columns.tolist(), strict=True)
        ]
    return sorted(found, key=lambda item: (item[1], item[0]))


def _call_problems(
    outputs: Sequence[ToolCall],
    references: Sequence[ToolCall],
    rules: ArgsRules,
    report_missing: bool,
    report_extra: bool,
) -> list[_Problem]:
    """Problems among calls left without partners."""
    problems: list[_Problem] = []
    explained_outputs, explained_references = set(), set()
    for i, j, differences in _explanation_pairs(outputs, references, rules):
        if not differences:  # compatible: a pairing is maximal, so never two leftovers
            continue
        explained_outputs.add(i)
        explained_references.add(j)
        problems += [_arg_problem(outputs[i], references[j], d) for d in differences]
    if report_missing:
        problems += [
            _missing_call(call)
            for j, call in enumerate(references)
            if j not in explained_references
        ]
    if report_extra:
        problems += [
            _extra_call(call) for i, call in enumerate(outputs) if i not in explained_outputs
        ]
    return problems


def _leftovers(matching: Matching) -> tuple[list[ToolCall], list[ToolCall]]:
    paired_outputs = {i for i, _ in matching.pairs}
    paired_references = {j for _, j in matching.pairs}
    return (
        [c for i, c in enumerate(matching.output_calls) if i not in paired_outputs],
        [c for j, c in enumerate(matching.reference_calls) if j not in paired_references],
    )


def _messages_word(count: int) -> str:
    return f"{count} message" + ("" if count == 1 else "s")


def _calls_word(count: int) -> str:
    return f"{count} tool call" + ("" if count == 1 else "s")


def _strict_problems(
    matching: Matching, outputs: Trajectory, references: Trajectory, rules: ArgsRules
) -> list[_Problem]:
    problems: list[_Problem] = []
    if len(outputs) != len(references):
        problems.append(
            _Problem(
                f"outputs has {_messages_word(len(outputs))}, "
                f"reference_outputs has {len(references)}",
                {
                    "kind": str(Kind.MESSAGE_COUNT),
                    "expected": len(references),
                    "actual": len(outputs),
                },
            )
        )
    paired = {id(matching.output_calls[i]) for i, _ in matching.pairs}
    paired.update(id(matching.reference_calls[j]) for _, j in matching.pairs)
    for out_index, ref_index in matching.message_pairs or ():
        if out_index is None:
            assert ref_index is not None
            problems += _unpartnered(references[ref_index], "reference_outputs")
        elif ref_index is None:
            problems += _unpartnered(outputs[out_index], "outputs")
        else:
            output, reference = outputs[out_index], references[ref_index]
            problems += _message_problems(output, reference, paired, rules)
    return problems


def _unpartnered(message: Message, side: str) -> list[_Problem]:
    """A message of ``side`` strict mode left without a partner, then each of its calls."""
    missing = side == "reference_outputs"
    other = "outputs" if missing else "reference_outputs"
    problem = _Problem(
        f"{message.at} ({message.role}) has no partner in {other}",
        {
            "kind": str(Kind.MISSING_MESSAGE if missing else Kind.EXTRA_MESSAGE),
            "expected": message.role if missing else None,
            "actual": None if missing else message.role,
            "outputs": None if missing else message.at,
            "reference_outputs": message.at if missing else None,
        },
    )
    calls = [(_missing_call if missing else _extra_call)(call) for call in message.tool_calls]
    return [problem, *calls]


def _message_problems(
    output: Message, reference: Message, paired: set[int], rules: ArgsRules
) -> list[_Problem]:
    """What differs between two messages strict mode paired: role, call count, calls."""
    where: dict[str, Any] = {"outputs": output.at, "reference_outputs": reference.at}
    if output.role != reference.role:
        text = (
            f"{output.at} is {with_article(output.role)} message where {reference.at} is "
            f"{with_article(reference.role)} message"
        )
        entry = {"kind": str(Kind.ROLE), "expected": reference.role, "actual": output.role, **where}
        return [_Problem(text, entry)]
    problems: list[_Problem] = []
    count, expected = len(output.tool_calls), len(reference.tool_calls)
    if count != expected:
        text = f"{output.at} makes {_calls_word(count)} where {reference.at} makes {expected}"
        entry = {"kind": str(Kind.TOOL_CALL_COUNT), "expected": expected, "actual": count, **where}
        problems.append(_Problem(text, entry))
    left_outputs = [call for call in output.tool_calls if id(call) not in paired]
    left_references = [call for call in reference.tool_calls if id(call) not in paired]
    problems += _call_problems(left_outputs, left_references, rules, True, True)
    return problems


def _turn_ends(matching: Matching) -> dict[int, tuple[Pair, Pair]]:
    """For each reference message with paired calls: the pair whose output call comes first
    and the pair whose output call comes last."""
    outputs, references = matching.output_calls, matching.reference_calls
    ends: dict[int, tuple[Pair, Pair]] = {}
    for pair in matching.pairs:
        message, position = references[pair[1]].message, outputs[pair[0]].message
        first, last = ends.get(message, (pair, pair))
        if position < outputs[first[0]].message:
            first = pair
        if position > outputs[last[0]].message:
            last = pair
        ends[message] = (first, last)
    return ends


def _out_of_order(
    reference: ToolCall, output: ToolCall, matching: Matching, ends: dict[int, tuple[Pair, Pair]]
) -> _Problem | None:
    """Why ``output`` cannot partner ``reference`` without breaking the order of turns: it is
    not after the last partner of an earlier reference turn, or not before the first partner
    of a later one (None when neither: a first fit missed it)."""
    earlier = [message for message in ends if message < reference.message]
    later = [message for message in ends if message > reference.message]
    blocking, relation, side = None, "", ""
    if earlier:
        last = ends[max(earlier)][1]
        if output.message <= matching.output_calls[last[0]].message:
            blocking, relation, side = last, "after", "an earlier"
    if blocking is None and later:
        first = ends[min(later)][0]
        if output.message >= matching.output_calls[first[0]].message:
            blocking, relation, side = first, "before", "a later"
    if blocking is None:
        return None
    partner, partners_reference = (
        matching.output_calls[blocking[0]],
        matching.reference_calls[blocking[1]],
    )
    text = (
        f"{reference.at} {render_call(reference.name, reference.args)} is out of order: "
        f"{output.at} fits it but is not {relation} {partner.at}, paired with "
        f"{partners_reference.at} of {side} turn"
    )
    entry = _missing_call(reference).entry | {"out_of_order": output.at}
    return _Problem(text, entry)


def _in_order_problems(matching: Matching, rules: ArgsRules, report_extra: bool) -> list[_Problem]:
    """Reference calls out of order (a free compatible output call exists, but in the wrong
    place), then what any mode says of the calls left over."""
    outputs_left, references_left = _leftovers(matching)
    ends = _turn_ends(matching)
    found: dict[int, tuple[int, _Problem]] = {}  # reference leftover -> (output leftover, why)
    for i, j in maximum_pairing(outputs_left, references_left, rules):
        problem = _out_of_order(references_left[j], outputs_left[i], matching, ends)
        if problem is not None:
            found[j] = (i, problem)
    used_outputs = {i for i, _ in found.values()}
    rest_outputs = [call for i, call in enumerate(outputs_left) if i not in used_outputs]
    rest_references = [call for j, call in enumerate(references_left) if j not in found]
    problems = [found[j][1] for j in sorted(found)]
    return problems + _call_problems(rest_outputs, rest_references, rules, True, report_extra)


def _comment(problems: Sequence[_Problem]) -> str:
    shown = [problem.text for problem in problems[:MAX_COMMENT_CLAUSES]]
    if len(problems) > MAX_COMMENT_CLAUSES:
        shown.append(f"… and {len(problems) - MAX_COMMENT_CLAUSES} more")
    return "; ".join(shown)


def _call_entry(call: ToolCall) -> dict[str, Any]:
    return {"at": call.at, "name": call.name, "args": call.args, "message": call.message}


def _pairing(matching: Matching) -> list[list[int | None]]:
    """Every call once: ``[output index, reference index]``, ``None`` for no partner; in
    reference order, the outputs without a partner last."""
    partner = {j: i for i, j in matching.pairs}
    rows: list[list[int | None]] = [
        [partner.get(j), j] for j in range(len(matching.reference_calls))
    ]
    paired = {i for i, _ in matching.pairs}
    rows += [[i, None] for i in range(len(matching.output_calls)) if i not in paired]
    return rows


def explain(
    matching: Matching,
    outputs: Trajectory,
    references: Trajectory,
    mode: TrajectoryMatchMode,
    rules: ArgsRules,
    score: TrajectoryScore = "match",
) -> tuple[str | None, dict[str, Any]]:
    """The comment and the metadata of a result.

    The comment names what fails the mode and, for a graded ``score``, what lowers it (calls
    left over on the side it counts); it is None when there is nothing to say.
    """
    problems: list[_Problem] = []
    if mode == "strict":
        if not matching.match:
            problems = _strict_problems(matching, outputs, references, rules)
    elif mode == "in_order":
        if not matching.match or score != "match":
            problems = _in_order_problems(matching, rules, score in ("precision", "f1"))
    elif not matching.match or score != "match":
        report_missing = mode != "subset" or score in ("recall", "f1")
        report_extra = mode != "superset" or score in ("precision", "f1")
        outputs_left, references_left = _leftovers(matching)
        problems = _call_problems(
            outputs_left, references_left, rules, report_missing, report_extra
        )
    metadata: dict[str, Any] = {
        "mode": mode,
        "match": matching.match,
        "precision": matching.precision,
        "recall": matching.recall,
        "f1": matching.f1,
        "pairing": _pairing(matching),
        "calls": {
            "outputs": [_call_entry(call) for call in matching.output_calls],
            "reference_outputs": [_call_entry(call) for call in matching.reference_calls],
        },
    }
    if matching.message_pairs is not None:
        metadata["messages"] = {
            "outputs": [{"at": m.at, "role": m.role} for m in outputs],
            "reference_outputs": [{"at": m.at, "role": m.role} for m in references],
        }
        metadata["message_pairing"] = [list(pair) for pair in matching.message_pairs]
    if not matching.match:
        metadata["mismatches"] = [p.entry for p in problems[:MAX_METADATA_MISMATCHES]]
        if len(problems) > MAX_METADATA_MISMATCHES:
            metadata["mismatches_omitted"] = len(problems) - MAX_METADATA_MISMATCHES
    comment = _comment(problems) if problems else None
    if not matching.match and comment is None:  # cannot happen; never fail without a word
        comment = "the trajectories do not match"
    return comment, metadata
