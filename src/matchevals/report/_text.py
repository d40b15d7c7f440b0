"""The renderings of a run's summary: a rich table, JSON, JSON Lines, Markdown.

The table fits the terminal: rich measures it (``COLUMNS`` wins when set), so tables use the
whole width when there is room and stay unbroken down to 60 columns, where the worst examples
are listed as short blocks instead of a table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from matchevals._scoring import Scored
from matchevals._values import counted
from matchevals.report._stats import is_superstep, score_text, why
from matchevals.report._summary import Summary

__all__ = [
    "render_json",
    "render_jsonl_summary",
    "render_markdown",
    "render_table",
]

MAX_KEY_ROWS = 30
MAX_PROBLEM_ROWS = 20
NARROW = 80  # below this many columns the worst examples are blocks, not a table


def render_json(summary: Summary, out: IO[str]) -> None:
    json.dump(summary.document(), out, ensure_ascii=False, indent=2, default=repr)
    out.write("\n")


def render_jsonl_summary(summary: Summary, out: IO[str]) -> None:
    """The last line of ``--format jsonl`` (the examples were written as they came)."""
    line = {"type": "summary", **summary.as_dict()}
    del line["worst"]  # already written, line by line
    out.write(json.dumps(line, ensure_ascii=False, default=repr) + "\n")


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _counts(summary: Summary, strong: Callable[[str], str]) -> str:
    """``8 examples scored, 1 invalid, mean score 0.75`` (``strong`` marks the numbers up);
    ``no example scored`` when nothing was, which has no mean."""
    invalid = f"{strong(str(summary.invalid))} invalid"
    if not summary.scored:
        text = f"no example scored, {invalid}"
    else:
        count, noun = counted(summary.scored, "example").split(" ", 1)
        mean = strong(score_text(summary.mean))
        text = f"{strong(count)} {noun} scored, {invalid}, mean score {mean}"
    if summary.gates.threshold is not None:
        below = strong(str(summary.stats.below_threshold))
        text += f", {below} below threshold {summary.gates.threshold:g}"
    return text


def _headline_verdict(summary: Summary) -> tuple[str, bool, list[str]]:
    """`` — passed (fail-under 0.9)`` and the reasons it did not pass."""
    passed, reasons = summary.verdict()
    gates = summary.gates.words()
    word = "passed" if passed else "FAILED"
    return word + (f" ({gates})" if gates else ""), passed, reasons


def _place(summary: Summary, item: Scored) -> str:
    """Where an example is, short: ``line 17`` / ``[3]`` of the outputs file, else in full."""
    outputs = summary.files[0]
    if item.where.startswith(outputs + ":") and item.where[len(outputs) + 1 :].isdigit():
        return "line " + item.where[len(outputs) + 1 :]
    if item.where.startswith(outputs + "["):
        return "item " + item.where[len(outputs) + 1 : -1]
    return item.where


def _id_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)


def render_markdown(summary: Summary, out: IO[str], *, title: str) -> None:
    heading, _, reasons = _headline_verdict(summary)
    warning = summary.count_warning()
    lines = [
        f"### {title} — {heading}",
        "",
        *([f"> **Warning:** {_md(warning)}", ""] if warning else []),
        *([f"> **Failed because:** {_md('; '.join(reasons))}", ""] if reasons else []),
        _counts(summary, lambda text: f"**{text}**"),
        "",
    ]
    rows = summary.key_rows()
    with_unchecked = any(is_superstep(key) for key, *_ in rows)
    if with_unchecked:
        lines += ["| key | mean | count | unchecked |", "|---|---:|---:|---:|"]
    else:
        lines += ["| key | mean | count |", "|---|---:|---:|"]
    for key, mean, count, unchecked in rows[:MAX_KEY_ROWS]:
        cells = [_md(key), score_text(mean), str(count)]
        if with_unchecked:
            cells.append(str(unchecked) if is_superstep(key) else "")
        lines.append("| " + " | ".join(cells) + " |")
    if len(rows) > MAX_KEY_ROWS:
        cells = [f"… {len(rows) - MAX_KEY_ROWS} more", "", "", *([""] if with_unchecked else [])]
        lines.append("| " + " | ".join(cells) + " |")
    if summary.worst:
        id_key = summary.id_key
        header = ["example", *([_md(id_key)] if id_key else []), "score", "why"]
        rule = ["---", *(["---"] if id_key else []), "---:", "---"]
        lines += ["", "#### Worst examples", "", "| " + " | ".join(header) + " |"]
        lines.append("|" + "|".join(rule) + "|")
        for item in summary.worst:
            cells = [_md(item.where), *([_md(_id_text(item.id))] if id_key else [])]
            cells += [score_text(item.score), _md(why(item.results))]
            lines.append("| " + " | ".join(cells) + " |")
    if summary.problems:
        lines += ["", "#### Invalid input", ""]
        lines += [f"- `{_md(str(p.where))}`: {_md(p.message)}" for p in summary.problems]
    out.write("\n".join(lines) + "\n")


def render_table(summary: Summary, out: IO[str], *, title: str, color: bool) -> None:
    """The terminal summary, drawn with rich at the terminal's width."""
    from rich.console import Console
    from rich.padding import Padding
    from rich.text import Text

    console = Console(file=out, force_terminal=color, no_color=not color, highlight=False)
    narrow = console.width < NARROW
    warning = summary.count_warning()
    if warning:
        console.print(Text(f"warning: {warning}", style="bold yellow", overflow="fold"))
    heading, passed, reasons = _headline_verdict(summary)
    headline = Text.assemble((title, "bold"), ": ")
    headline.append_text(Text.from_markup(_counts(summary, lambda text: f"[bold]{text}[/]")))
    headline.append(" — ")
    headline.append(heading, style="green" if passed else "red")
    console.print(headline)
    for reason in reasons:  # wrapped lines stay indented under their reason
        console.print(Padding(Text(f"failed because {reason}", style="red"), (0, 0, 0, 2)))
    _print_key_tables(console, summary, narrow)
    if summary.worst:
        _print_worst(console, summary, narrow)
    if summary.problems:
        invalid = counted(summary.invalid, "example")
        console.print(Text.assemble(("invalid input", "bold"), f" ({invalid}):"))
        for problem in summary.problems[:MAX_PROBLEM_ROWS]:  # long paths fold, indented
            console.print(Padding(Text(str(problem), overflow="fold"), (0, 0, 0, 2)))
        if len(summary.problems) > MAX_PROBLEM_ROWS:
            console.print(f"  … and {len(summary.problems) - MAX_PROBLEM_ROWS} more")


def _print_key_tables(console: Any, summary: Summary, narrow: bool) -> None:
    """Mean score per key (or check), and per superstep position with the unchecked apart."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    rows = summary.key_rows()
    plain = [row for row in rows if not is_superstep(row[0])]
    steps = [row for row in rows if is_superstep(row[0])]
    table_box = box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD
    if plain:
        keys = Table(
            title="mean score per key" if summary.kind == "json" else "mean score per check",
            box=table_box,
            expand=False,
        )
        keys.add_column("key", overflow="fold", ratio=1)
        keys.add_column("mean", justify="right", no_wrap=True)
        keys.add_column("count", justify="right", no_wrap=True)
        for key, mean, count, _ in plain[:MAX_KEY_ROWS]:
            keys.add_row(Text(key), score_text(mean), str(count))
        if len(plain) > MAX_KEY_ROWS:
            keys.add_row(Text(f"… {len(plain) - MAX_KEY_ROWS} more (see --format json)"), "", "")
        console.print(keys)
    if steps:
        per_step = Table(title="mean per superstep position", box=table_box, expand=False)
        per_step.add_column("superstep", no_wrap=True)
        per_step.add_column("mean", justify="right", no_wrap=True)
        per_step.add_column("checked", justify="right", no_wrap=True)
        per_step.add_column("unchecked", justify="right", no_wrap=True)
        for key, mean, count, unchecked in steps[:MAX_KEY_ROWS]:
            per_step.add_row(key.split()[1], score_text(mean), str(count), str(unchecked))
        if len(steps) > MAX_KEY_ROWS:
            per_step.add_row(f"… {len(steps) - MAX_KEY_ROWS} more", "", "", "")
        console.print(per_step)
        if any(row[3] for row in steps):
            console.print(
                Text(
                    "unchecked: supersteps after a run left its reference pattern (not "
                    "averaged as 0)",
                    style="dim",
                )
            )


def _print_worst(console: Any, summary: Summary, narrow: bool) -> None:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    title = f"worst examples of {Path(summary.files[0]).name}"
    with_id = summary.id_key is not None
    if narrow:
        console.print(Text(title, style="bold italic"), justify="center")
        for item in summary.worst:
            head = Text.assemble((_place(summary, item), "bold"))
            if with_id:
                head.append(f"  {summary.id_key} {_id_text(item.id)}")
            head.append(f"  score {score_text(item.score)}")
            console.print(head)
            reason = why(item.results)
            if reason:
                console.print(Padding(Text(reason, overflow="fold"), (0, 0, 0, 2)))
        return
    worst = Table(title=title)
    worst.add_column("example", no_wrap=True)
    if with_id:
        worst.add_column(summary.id_key or "id", overflow="fold", max_width=24)
    worst.add_column("score", justify="right", no_wrap=True)
    worst.add_column("why", overflow="fold", ratio=1)
    for item in summary.worst:
        cells: list[Any] = [Text(_place(summary, item))]
        if with_id:
            cells.append(Text(_id_text(item.id)))
        cells += [score_text(item.score), Text(why(item.results))]
        worst.add_row(*cells)
    console.print(worst)
