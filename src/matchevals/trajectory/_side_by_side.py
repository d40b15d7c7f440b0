"""Agent trajectories side by side, from a trajectory-match result alone.

Pure functions on a result's plain data (``score``, ``comment``, and the ``metadata`` the
evaluator wrote: its mode, pairing, calls and mismatches), shared by
:func:`matchevals.testing.assert_trajectory_match` and the pytest plugin. The tables show what
the evaluator paired, nothing is matched again here:

- ``strict`` mode: the messages, expected beside actual, each with its tool calls below it;
- the other modes: the tool calls, in reference order, each beside its partner;
- ``pattern`` mode: the output's turns, each beside the reference step it matched (``DIFF`` at
  the first turn the pattern does not accept, ``unchecked`` after it, ``missing`` for a step
  the pattern still expected when the turns ran out).

A call paired with its partner is ``ok``; two calls of one tool whose arguments differ (the pair
the explanation chose) are ``DIFF`` with the differing argument paths; a call without a partner
is ``missing`` (reference) or ``extra`` (outputs), ``allowed`` when the mode does not count it
(``superset`` and ``in_order`` ignore extra calls, ``subset`` missing ones); in ``in_order``
mode a reference call whose only fitting output call breaks the order of turns is ``out of
order``, beside that call. ``>`` marks every row that fails.
``[3]`` before a call or a role is the index of its message in the input list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matchevals.trajectory._json import ARGUMENT_KINDS, parse_path, path_text, render
from matchevals.trajectory._types import MODES

__all__ = ["is_trajectory_result", "trajectory_lines", "trajectory_table"]

_SOURCE = re.compile(r"\[(\d+)\]")
_ARGS_WIDTH = 40
_CELL_WIDTH = 52
MAX_ROWS = 60
"""Longer tables keep every failing row and fold runs of passing ones."""


@dataclass(frozen=True, slots=True)
class _Row:
    expected: str
    actual: str
    verdict: str
    failing: bool
    nested: bool = False  # a call under its message (strict mode)


def is_trajectory_result(result: Any) -> bool:
    """Whether ``result`` is a trajectory-match result carrying its mode and pairing (whatever
    its ``feedback_key``).

    >>> is_trajectory_result({"key": "trajectory_strict_match", "score": True, "metadata": None})
    False
    """
    metadata = result.get("metadata") if isinstance(result, Mapping) else None
    if not isinstance(metadata, Mapping) or metadata.get("mode") not in MODES:
        return False
    if metadata["mode"] == "pattern":
        return isinstance(metadata.get("turns"), list)
    return isinstance(metadata.get("pairing"), list) and isinstance(metadata.get("calls"), Mapping)


def _mode(result: Mapping[str, Any]) -> str:
    return str(result["metadata"]["mode"])


def _call_text(call: Mapping[str, Any], with_source: bool) -> str:
    text = f"{call.get('name')}({render(call.get('args'), _ARGS_WIDTH)})"
    if with_source:
        found = _SOURCE.search(str(call.get("at", "")))
        if found:
            text = f"[{found.group(1)}] {text}"
    return text


def _arg_differences(
    mismatches: Sequence[Any],
    output_index: Mapping[str, int],
    reference_index: Mapping[str, int],
) -> dict[tuple[int, int], list[str]]:
    """The argument paths that differ, per (output call, reference call) the explanation paired."""
    found: dict[tuple[int, int], list[str]] = {}
    for mismatch in mismatches:
        if not isinstance(mismatch, Mapping) or mismatch.get("kind") not in ARGUMENT_KINDS:
            continue
        i = output_index.get(str(mismatch.get("outputs")))
        j = reference_index.get(str(mismatch.get("reference_outputs")))
        if i is None or j is None:
            continue
        label = path_text(parse_path(str(mismatch.get("path") or "")), "args")
        paths = found.setdefault((i, j), [])
        if label not in paths:
            paths.append(label)
    return found


@dataclass(frozen=True)
class _Calls:
    """The calls of a result, its pairing, and the argument differences the explanation found."""

    outputs: Sequence[Mapping[str, Any]]
    references: Sequence[Mapping[str, Any]]
    partner_of_reference: dict[int, int]
    differing: dict[tuple[int, int], list[str]]
    out_of_order: dict[int, int]  # reference call -> the output call fitting it out of order

    @classmethod
    def of(cls, metadata: Mapping[str, Any]) -> _Calls:
        calls = metadata["calls"]
        outputs = [c for c in calls.get("outputs") or () if isinstance(c, Mapping)]
        references = [c for c in calls.get("reference_outputs") or () if isinstance(c, Mapping)]
        partner = {
            pair[1]: pair[0]
            for pair in metadata["pairing"]
            if isinstance(pair, list) and len(pair) == 2 and None not in pair
        }
        output_index = {str(c.get("at")): i for i, c in enumerate(outputs)}
        reference_index = {str(c.get("at")): j for j, c in enumerate(references)}
        mismatches = metadata.get("mismatches") or ()
        differing = _arg_differences(mismatches, output_index, reference_index)
        out_of_order = {
            reference_index[str(m.get("reference_outputs"))]: output_index[str(m["out_of_order"])]
            for m in mismatches
            if isinstance(m, Mapping)
            and str(m.get("out_of_order")) in output_index
            and str(m.get("reference_outputs")) in reference_index
        }
        return cls(outputs, references, partner, differing, out_of_order)

    def rows(
        self,
        output_indices: Sequence[int],
        reference_indices: Sequence[int],
        *,
        missing_allowed: bool,
        extra_allowed: bool,
        with_source: bool,
        nested: bool = False,
    ) -> list[_Row]:
        """Rows for these calls: in reference order, each beside its partner, then the output
        calls left over."""
        outputs = set(output_indices)
        explained = {j: i for (i, j) in self.differing if i in outputs}
        shown: set[int] = set()
        rows: list[_Row] = []
        for j in reference_indices:
            expected = _call_text(self.references[j], with_source)
            i = self.partner_of_reference.get(j)
            if i is not None and i in outputs:
                actual = _call_text(self.outputs[i], with_source)
                rows.append(_Row(expected, actual, "ok", False, nested))
            elif j in explained and explained[j] not in shown:
                i = explained[j]
                actual = _call_text(self.outputs[i], with_source)
                verdict = "DIFF " + ", ".join(self.differing[(i, j)])
                rows.append(_Row(expected, actual, verdict, True, nested))
            elif j in self.out_of_order and self.out_of_order[j] in outputs:
                i = self.out_of_order[j]
                actual = _call_text(self.outputs[i], with_source)
                rows.append(_Row(expected, actual, "out of order", True, nested))
            else:
                verdict = "missing, allowed" if missing_allowed else "missing"
                rows.append(_Row(expected, "—", verdict, not missing_allowed, nested))
                continue
            shown.add(i)
        paired = set(self.partner_of_reference.values())
        for i in output_indices:
            if i in shown or i in paired:
                continue
            verdict = "extra, allowed" if extra_allowed else "extra"
            actual = _call_text(self.outputs[i], with_source)
            rows.append(_Row("—", actual, verdict, not extra_allowed, nested))
        return rows


def _calls_rows(metadata: Mapping[str, Any], mode: str, graded: bool) -> list[_Row]:
    calls = _Calls.of(metadata)
    return calls.rows(
        range(len(calls.outputs)),
        range(len(calls.references)),
        missing_allowed=mode == "subset" and not graded,
        extra_allowed=mode in ("superset", "in_order") and not graded,
        with_source=True,
    )


_TURN_VERDICTS = {"match": "ok", "mismatch": "DIFF", "unchecked": "unchecked"}


def _pattern_rows(metadata: Mapping[str, Any]) -> list[_Row]:
    """Each output turn beside the reference step it matched; a step still expected when the
    turns ran out, as missing."""
    rows = []
    divergence = metadata.get("divergence") or {}
    for turn in metadata["turns"]:
        source = _SOURCE.search(str(turn.get("outputs", "")))
        calls = ", ".join(map(str, turn.get("calls") or ())) or "(no calls)"
        actual = f"[{source.group(1) if source else '?'}] {calls}"
        verdict = str(turn.get("verdict"))
        expected = turn.get("reference") or "—"
        if verdict == "mismatch" and divergence.get("expected"):
            expected = _expected_steps(divergence["expected"])
        rows.append(
            _Row(expected, actual, _TURN_VERDICTS.get(verdict, verdict), verdict != "match")
        )
    if divergence and divergence.get("actual") is None and divergence.get("expected"):
        rows.append(_Row(_expected_steps(divergence["expected"]), "—", "missing", True))
    return rows


def _expected_steps(steps: Sequence[Mapping[str, Any]]) -> str:
    """``[a(any args)] (unordered)`` for one expected step, or how many alternatives."""
    if len(steps) > 1:
        return f"one of {len(steps)} steps"
    calls = steps[0].get("calls")
    shown = "*" if calls is None else "[" + ", ".join(map(str, calls)) + "]"
    return f"{shown} ({steps[0].get('match_mode')})"


def _message_text(message: Mapping[str, Any] | None) -> str:
    if message is None:
        return "—"
    found = _SOURCE.search(str(message.get("at", "")))
    at = str(message.get("at", ""))
    block = ".content[" in at
    source = f"[{found.group(1)}]" if found else "[?]"
    if block:  # a tool result taken out of an Anthropic user message
        source += at[at.index(".content[") :]
    return f"{source} {message.get('role')}"


def _messages_rows(metadata: Mapping[str, Any]) -> list[_Row]:
    messages = metadata.get("messages") or {}
    output_messages = list(messages.get("outputs") or ())
    reference_messages = list(messages.get("reference_outputs") or ())
    calls = _Calls.of(metadata)
    calls_of_output: dict[int, list[int]] = {}
    for i, call in enumerate(calls.outputs):
        calls_of_output.setdefault(int(call.get("message", -1)), []).append(i)
    calls_of_reference: dict[int, list[int]] = {}
    for j, call in enumerate(calls.references):
        calls_of_reference.setdefault(int(call.get("message", -1)), []).append(j)
    rows: list[_Row] = []
    for pair in metadata.get("message_pairing") or ():
        out, ref = pair[0], pair[1]
        output = output_messages[out] if out is not None and out < len(output_messages) else None
        reference = (
            reference_messages[ref] if ref is not None and ref < len(reference_messages) else None
        )
        output_calls = calls_of_output.get(out, []) if out is not None else []
        reference_calls = calls_of_reference.get(ref, []) if ref is not None else []
        below = calls.rows(
            output_calls,
            reference_calls,
            missing_allowed=False,
            extra_allowed=False,
            with_source=False,
            nested=True,
        )
        if output is None:
            verdict = "missing"
        elif reference is None:
            verdict = "extra"
        elif output.get("role") != reference.get("role"):
            verdict = "DIFF role"
        elif len(output_calls) != len(reference_calls):
            verdict = f"DIFF {_calls_word(len(output_calls))}, expected {len(reference_calls)}"
        elif any(row.failing for row in below):
            verdict = "DIFF"
        else:
            verdict = "ok"
        rows.append(_Row(_message_text(reference), _message_text(output), verdict, verdict != "ok"))
        rows += below
    return rows


def _calls_word(count: int) -> str:
    return f"{count} tool call" + ("" if count == 1 else "s")


def _fold(rows: list[_Row], limit: int) -> list[_Row | str]:
    """Every failing row; passing ones folded into ``… N rows ok`` when the table is long."""
    if len(rows) <= limit:
        return list(rows)
    shown: list[_Row | str] = []
    passing: list[_Row] = []

    def flush() -> None:
        if len(passing) <= 2:
            shown.extend(passing)
        else:
            shown.extend([passing[0], f"… {len(passing) - 1} more rows ok"])
        passing.clear()

    for row in rows:
        if row.failing:
            flush()
            shown.append(row)
        else:
            passing.append(row)
    flush()
    return shown


def _cell(text: str) -> str:
    return text if len(text) <= _CELL_WIDTH else text[: _CELL_WIDTH - 1] + "…"


def trajectory_table(result: Mapping[str, Any], limit: int = MAX_ROWS) -> list[str]:
    """The lines of a trajectory-match result's table (see the module docstring).

    >>> result = {"key": "trajectory_unordered_match", "score": False, "metadata": {
    ...     "mode": "unordered", "pairing": [[0, 0], [None, 1]],
    ...     "calls": {"outputs": [{"at": "outputs[1].tool_calls[0]", "name": "a", "args": {}}],
    ...               "reference_outputs": [
    ...                   {"at": "reference_outputs[1].tool_calls[0]", "name": "a", "args": {}},
    ...                   {"at": "reference_outputs[3].tool_calls[0]", "name": "b", "args": {}}]}}}
    >>> print("\\n".join(trajectory_table(result)))
        expected (reference_outputs)  actual (outputs)
        [1] a({})                     [1] a({})         ok
      > [3] b({})                     —                 missing
    """
    metadata = result["metadata"]
    mode = _mode(result)
    graded = not isinstance(result.get("score"), bool)
    if mode == "pattern":
        rows = _pattern_rows(metadata)
    elif mode == "strict" and isinstance(metadata.get("message_pairing"), list):
        rows = _messages_rows(metadata)
    else:
        rows = _calls_rows(metadata, mode, graded)
    if not rows:
        empty = {"strict": "no messages on either side", "pattern": "no turns"}
        return [f"    ({empty.get(mode, 'no tool calls')})"]
    shown = _fold(rows, limit)
    table = [row for row in shown if isinstance(row, _Row)]
    indent = {True: "    ", False: ""}
    expected_width = max(
        len("expected (reference_outputs)"),
        *(len(indent[row.nested] + _cell(row.expected)) for row in table),
    )
    actual_width = max(
        len("actual (outputs)"), *(len(indent[row.nested] + _cell(row.actual)) for row in table)
    )
    header = f"    {'expected (reference_outputs)'.ljust(expected_width)}  "
    lines = [(header + "actual (outputs)").rstrip()]
    for row in shown:
        if isinstance(row, str):
            lines.append(f"    {row}")
            continue
        marker = "  > " if row.failing else "    "
        expected = (indent[row.nested] + _cell(row.expected)).ljust(expected_width)
        actual = (indent[row.nested] + _cell(row.actual)).ljust(actual_width)
        lines.append(f"{marker}{expected}  {actual}  {row.verdict}".rstrip())
    return lines


def _score_line(result: Mapping[str, Any], threshold: float | None) -> str:
    metadata = result.get("metadata") or {}
    head = f"{result['key']} = {result['score']!r}"
    if threshold is not None:
        head += f", below the threshold {threshold}"
    if not isinstance(result.get("score"), bool) and metadata.get("mode") == "pattern":
        head += f" (the pattern match is {metadata.get('match')!r})"
    elif not isinstance(result.get("score"), bool) and isinstance(metadata, Mapping):
        grades = ", ".join(
            f"{name} {metadata[name]:.3g}"
            for name in ("precision", "recall", "f1")
            if isinstance(metadata.get(name), (int, float))
        )
        verdict = metadata.get("match")
        head += f" (tool calls: {grades}; the {_mode(result)} match is {verdict!r})"
    return head


def trajectory_lines(
    result: Mapping[str, Any], limit: int = MAX_ROWS, threshold: float | None = None
) -> list[str]:
    """A trajectory-match result explained: its score (and the ``threshold`` it missed, if
    given), the table, then each reason.

    >>> result = {"key": "trajectory_superset_match", "score": False,
    ...     "comment": "reference_outputs[1].tool_calls[0] b({}) has no partner in outputs",
    ...     "metadata": {"mode": "superset", "pairing": [[None, 0]], "calls": {"outputs": [],
    ...     "reference_outputs": [
    ...         {"at": "reference_outputs[1].tool_calls[0]", "name": "b", "args": {}}]}}}
    >>> print("\\n".join(trajectory_lines(result)))
    trajectory_superset_match = False
        expected (reference_outputs)  actual (outputs)
      > [1] b({})                     —                 missing
      why:
        reference_outputs[1].tool_calls[0] b({}) has no partner in outputs
    """
    lines = [_score_line(result, threshold), *trajectory_table(result, limit)]
    comment = result.get("comment")
    if comment:
        lines.append("  why:")
        lines.extend(f"    {part}" for part in str(comment).split("; "))
    return lines
