"""The renderings of a comparison of two runs: a rich table fitted to the terminal (as the
run summaries' tables are), Markdown for a pull-request comment, and JSON.

Scores are written as every report writes them (:func:`~matchevals.report._stats.score_text`),
differences with their sign.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

from matchevals._values import counted
from matchevals.report._stats import is_superstep, score_text
from matchevals.report._text import MAX_KEY_ROWS, MAX_PROBLEM_ROWS, NARROW, _id_text, _md

if TYPE_CHECKING:  # the comparison's own modules import this package's: types only
    from matchevals.compare import Comparison, ExampleChange, RepeatedTrials

__all__ = [
    "delta_text",
    "headline",
    "render_comparison_json",
    "render_comparison_markdown",
    "render_comparison_table",
]

Verdict = tuple[bool, list[str]] | None
"""The gates' verdict (passed, reasons), or None when no gate was asked for."""

MAX_LISTED = 20  # added and removed examples the table and Markdown list one by one


def delta_text(value: float | None) -> str:
    """A difference as reports write it: its sign, four significant digits.

    >>> delta_text(0.25), delta_text(-1 / 3), delta_text(0.0), delta_text(None)
    ('+0.25', '-0.3333', '0', '—')
    """
    text = score_text(value)
    return "+" + text if value is not None and value > 0 else text


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def headline(comparison: Comparison) -> str:
    """``WORSE (p = 0.002, paired t-test)``, ``better (...)`` or ``no significant
    difference (...)``: what the statistics say.

    The test is the exact McNemar test where every paired score is 0 or 1, else the paired
    t-test; with fewer than two examples paired, nothing can be said.
    """
    significance = comparison.significance
    if significance.test == "none":
        return "too few examples paired to test"
    test = "exact McNemar test" if significance.test == "mcnemar" else "paired t-test"
    said = f"p = {_p(significance.p_value)}, {test}"
    if significance.worse:
        return f"WORSE ({said})"
    if significance.better:
        return f"better ({said})"
    return f"no significant difference ({said}, alpha {significance.alpha:g})"


def _counts(comparison: Comparison, strong: Callable[[str], str]) -> str:
    counts = comparison.counts
    count, noun = counted(comparison.paired, "example").split(" ", 1)
    text = f"{strong(count)} {noun} paired by {comparison.paired_by}: "
    text += ", ".join(
        f"{strong(str(counts[name]))} {name}" for name in ("regressed", "improved", "unchanged")
    )
    for name in ("added", "removed"):
        if counts[name]:
            text += f", {strong(str(counts[name]))} {name}"
    return text


def _mean_line(comparison: Comparison) -> str:
    difference = comparison.difference
    text = (
        f"mean score {score_text(comparison.base_mean)} → {score_text(comparison.new_mean)}: "
        f"difference {delta_text(difference.mean)}"
    )
    if difference.low is not None and difference.high is not None:
        text += (
            f", 95% CI [{delta_text(difference.low)}, {delta_text(difference.high)}] "
            f"({difference.method})"
        )
    return text


def _pass_line(comparison: Comparison) -> str:
    found = comparison.pass_fail
    return (
        f"pass rate (score ≥ {found.threshold:g}) {score_text(found.base_pass_rate)} → "
        f"{score_text(found.new_pass_rate)}: {found.pass_to_fail} pass→fail, "
        f"{found.fail_to_pass} fail→pass, exact McNemar p = {_p(found.p_value)}"
    )


def _failing_text(change: ExampleChange, limit: int = 6) -> str:
    """``json: age, city; tool_calls: search args.q (...)``: what newly fails."""
    failing = change.newly_failing if change.verdict != "improved" else change.now_passing
    parts = []
    for category, labels in failing.items():
        shown = ", ".join(labels[:limit]) + (
            f", … {len(labels) - limit} more" if len(labels) > limit else ""
        )
        parts.append(f"{category}: {shown}")
    return "; ".join(parts)


def _trial_rows(comparison: Comparison) -> list[tuple[str, str, str, str, str]]:
    """``(k, base pass@k, base pass^k, new pass@k, new pass^k)`` for run sets with trials."""
    base, new = comparison.repeated.get("base"), comparison.repeated.get("new")
    ks = sorted({*(base.pass_at_k if base else ()), *(new.pass_at_k if new else ())})

    def cells(trials: RepeatedTrials | None, k: int) -> tuple[str, str]:
        if trials is None or k not in trials.pass_at_k:
            return "—", "—"
        return score_text(trials.pass_at_k[k]), score_text(trials.pass_hat_k[k])

    return [(str(k), *cells(base, k), *cells(new, k)) for k in ks]


def _trials_note(comparison: Comparison) -> str:
    parts = []
    for side in ("base", "new"):
        trials = comparison.repeated.get(side)
        if trials is None:
            parts.append(f"{side}: 1 trial per example")
        else:
            spread = (
                str(trials.fewest_trials)
                if trials.fewest_trials == trials.most_trials
                else f"{trials.fewest_trials} to {trials.most_trials}"
            )
            parts.append(f"{side}: {spread} trials per example")
    return "; ".join(parts)


def render_comparison_json(comparison: Comparison, out: IO[str], verdict: Verdict) -> None:
    """The comparison as one JSON document, the gates' verdict at the top (``jq .passed``)."""
    passed, reasons = verdict if verdict is not None else comparison.verdict()
    document = {"passed": passed, "failed_because": reasons, "comparison": comparison.as_dict()}
    json.dump(document, out, ensure_ascii=False, indent=2, default=repr)
    out.write("\n")


def _score_cells(change: ExampleChange) -> list[str]:
    return [score_text(change.base_score), score_text(change.new_score), delta_text(change.delta)]


def _key_cells(row: Any) -> list[str]:
    return [score_text(row.base_mean), score_text(row.new_mean), delta_text(row.delta)]


def _markdown_changes(title: str, changes: Sequence[ExampleChange], column: str) -> list[str]:
    lines = ["", f"#### {title}", "", f"| id | base | new | delta | {column} |"]
    lines.append("|---|---:|---:|---:|---|")
    for change in changes:
        cells = [_md(_id_text(change.id)), *_score_cells(change), _md(_failing_text(change))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _markdown_one_sided(comparison: Comparison) -> list[str]:
    lines: list[str] = []
    for name, changes in (("added", comparison.added), ("removed", comparison.removed)):
        count = comparison.counts[name]
        if not count:
            continue
        side = "new" if name == "added" else "base"
        lines += [
            "",
            f"#### {name.capitalize()}: only the {side} run holds {counted(count, 'example')}",
            "",
        ]
        for change in changes[:MAX_LISTED]:
            where = change.new_where if name == "added" else change.base_where
            lines.append(f"- `{_md(_id_text(change.id))}` ({_md(str(where))})")
        if count > min(len(changes), MAX_LISTED):
            lines.append(f"- … and {count - min(len(changes), MAX_LISTED)} more")
    return lines


def render_comparison_markdown(
    comparison: Comparison, out: IO[str], *, title: str, verdict: Verdict
) -> None:
    """The comparison for a pull-request comment."""
    lines = [f"### {title} — {_md(headline(comparison))}", ""]
    lines += [
        f"> **Warning:** {_md(warning)}" for warning in comparison.warnings[:MAX_PROBLEM_ROWS]
    ]
    if comparison.warnings:
        lines.append("")
    if verdict is not None:
        reasons = verdict[1]
        lines += [
            f"> **Failed because:** {_md('; '.join(reasons))}" if reasons else "**Gates passed**",
            "",
        ]
    lines += [
        f"`{_md(comparison.base)}` → `{_md(comparison.new)}`: "
        + _counts(comparison, lambda text: f"**{text}**"),
        "",
        "| | base | new | |",
        "|---|---:|---:|---|",
    ]
    difference, found = comparison.difference, comparison.pass_fail
    interval = (
        f"95% CI [{delta_text(difference.low)}, {delta_text(difference.high)}] "
        f"({difference.method})"
        if difference.low is not None
        else "no interval (fewer than two examples paired)"
    )
    lines.append(
        f"| mean score | {score_text(comparison.base_mean)} | {score_text(comparison.new_mean)} "
        f"| difference {delta_text(difference.mean)}, {interval} |"
    )
    lines.append(
        f"| pass rate (score ≥ {found.threshold:g}) | {score_text(found.base_pass_rate)} | "
        f"{score_text(found.new_pass_rate)} | {found.pass_to_fail} pass→fail, "
        f"{found.fail_to_pass} fail→pass, exact McNemar p = {_p(found.p_value)} |"
    )
    lines += _markdown_keys(comparison)
    if comparison.regressions:
        lines += _markdown_changes("Biggest regressions", comparison.regressions, "newly failing")
    if comparison.improvements:
        lines += _markdown_changes("Biggest improvements", comparison.improvements, "now passing")
    lines += _markdown_trials(comparison)
    lines += _markdown_one_sided(comparison)
    if comparison.problems:
        lines += ["", "#### Could not be compared", ""]
        lines += [
            f"- `{_md(p.where)}`: {_md(p.message)}" for p in comparison.problems[:MAX_PROBLEM_ROWS]
        ]
        if len(comparison.problems) > MAX_PROBLEM_ROWS:
            lines.append(f"- … and {len(comparison.problems) - MAX_PROBLEM_ROWS} more")
    out.write("\n".join(lines) + "\n")


def _markdown_keys(comparison: Comparison) -> list[str]:
    rows = comparison.per_key
    if not rows:
        return []
    lines = [
        "",
        "#### Mean score per key",
        "",
        "| key | base | new | delta |",
        "|---|---:|---:|---:|",
    ]
    for row in rows[:MAX_KEY_ROWS]:
        lines.append("| " + " | ".join([_md(row.key), *_key_cells(row)]) + " |")
    if len(rows) > MAX_KEY_ROWS:
        lines.append(f"| … {len(rows) - MAX_KEY_ROWS} more | | | |")
    return lines


def _markdown_trials(comparison: Comparison) -> list[str]:
    rows = _trial_rows(comparison)
    if not rows:
        return []
    lines = ["", "#### Repeated trials", "", _md(_trials_note(comparison)), ""]
    lines += [
        "| k | base pass@k | base pass^k | new pass@k | new pass^k |",
        "|---:|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def render_comparison_table(
    comparison: Comparison, out: IO[str], *, title: str, color: bool, verdict: Verdict
) -> None:
    """The terminal comparison, drawn with rich at the terminal's width."""
    from rich.console import Console
    from rich.padding import Padding
    from rich.text import Text

    console = Console(file=out, force_terminal=color, no_color=not color, highlight=False)
    narrow = console.width < NARROW
    for warning in comparison.warnings[:MAX_PROBLEM_ROWS]:
        console.print(Text(f"warning: {warning}", style="bold yellow", overflow="fold"))
    said = headline(comparison)
    style = (
        "red"
        if comparison.significance.worse
        else "green"
        if comparison.significance.better
        else ""
    )
    head = Text.assemble((title, "bold"), ": ", (said, style))
    if verdict is not None:
        passed = verdict[0]
        head.append(" — ")
        head.append("passed" if passed else "FAILED", style="green" if passed else "red")
    console.print(head)
    if verdict is not None:
        for reason in verdict[1]:
            console.print(Padding(Text(f"failed because {reason}", style="red"), (0, 0, 0, 2)))
    console.print(Text(f"{comparison.base} → {comparison.new}", style="dim", overflow="fold"))
    console.print(Text.from_markup(_counts(comparison, lambda text: f"[bold]{text}[/]")))
    console.print(Text(_mean_line(comparison), overflow="fold"))
    console.print(Text(_pass_line(comparison), overflow="fold"))
    _print_keys(console, comparison, narrow)
    for title_text, changes in (
        ("biggest regressions", comparison.regressions),
        ("biggest improvements", comparison.improvements),
    ):
        if changes:
            _print_changes(console, title_text, changes, narrow)
    _print_trials(console, comparison)
    _print_one_sided(console, comparison)
    if comparison.problems:
        console.print(
            Text.assemble(("could not be compared", "bold"), f" ({len(comparison.problems)}):")
        )
        for problem in comparison.problems[:MAX_PROBLEM_ROWS]:
            console.print(Padding(Text(str(problem), overflow="fold"), (0, 0, 0, 2)))
        if len(comparison.problems) > MAX_PROBLEM_ROWS:
            console.print(f"  … and {len(comparison.problems) - MAX_PROBLEM_ROWS} more")


def _print_keys(console: Any, comparison: Comparison, narrow: bool) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    rows = comparison.per_key
    if not rows:
        return
    table = Table(title="mean score per key", box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD)
    table.add_column("key", overflow="fold", ratio=1)
    for name in ("base", "new", "delta"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows[:MAX_KEY_ROWS]:
        style = "red" if (row.delta or 0) < 0 else "green" if (row.delta or 0) > 0 else None
        cells = _key_cells(row)
        table.add_row(Text(row.key), cells[0], cells[1], Text(cells[2], style=style or ""))
    if len(rows) > MAX_KEY_ROWS:
        table.add_row(Text(f"… {len(rows) - MAX_KEY_ROWS} more (see --format json)"), "", "", "")
    console.print(table)
    if any(is_superstep(row.key) for row in rows):
        console.print(Text("superstep rows: the mean per superstep position", style="dim"))


def _print_changes(
    console: Any, title: str, changes: Sequence[ExampleChange], narrow: bool
) -> None:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    column = "now passing" if changes[0].verdict == "improved" else "newly failing"
    if narrow:
        console.print(Text(title, style="bold italic"), justify="center")
        for change in changes:
            base, new, delta = _score_cells(change)
            console.print(
                Text.assemble((_id_text(change.id), "bold"), f"  {base} → {new} ({delta})")
            )
            if text := _failing_text(change):
                console.print(Padding(Text(f"{column}: {text}", overflow="fold"), (0, 0, 0, 2)))
        return
    table = Table(title=title)
    table.add_column("id", overflow="fold", max_width=24)
    for name in ("base", "new", "delta"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column(column, overflow="fold", ratio=1)
    for change in changes:
        table.add_row(Text(_id_text(change.id)), *_score_cells(change), Text(_failing_text(change)))
    console.print(table)


def _print_trials(console: Any, comparison: Comparison) -> None:
    from rich.table import Table
    from rich.text import Text

    rows = _trial_rows(comparison)
    if not rows:
        return
    table = Table(title="repeated trials: pass@k (any of k passes), pass^k (all k pass)")
    table.add_column("k", justify="right")
    for name in ("base pass@k", "base pass^k", "new pass@k", "new pass^k"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    console.print(Text(_trials_note(comparison), style="dim"))


def _print_one_sided(console: Any, comparison: Comparison) -> None:
    from rich.padding import Padding
    from rich.text import Text

    for name, changes in (("added", comparison.added), ("removed", comparison.removed)):
        count = comparison.counts[name]
        if not count:
            continue
        side = "new" if name == "added" else "base"
        console.print(
            Text.assemble(
                (name, "bold"), f" (only the {side} run holds {counted(count, 'example')}):"
            )
        )
        for change in changes[:MAX_LISTED]:
            where = change.new_where if name == "added" else change.base_where
            console.print(
                Padding(Text(f"{_id_text(change.id)}  {where}", overflow="fold"), (0, 0, 0, 2))
            )
        if count > min(len(changes), MAX_LISTED):
            console.print(f"  … and {count - min(len(changes), MAX_LISTED)} more")
