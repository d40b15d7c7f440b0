"""The summary of a run and its renderings: a rich table, JSON, JSON Lines, Markdown."""

from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass, field
from typing import IO, Any

from matchevals.cli._read import Counts, Problem
from matchevals.cli._run import Kind, Scored
from matchevals.cli._tally import Mean, Tally

__all__ = [
    "Summary",
    "jsonl_line",
    "render_json",
    "render_jsonl_summary",
    "render_markdown",
    "render_table",
]

MAX_KEY_ROWS = 30
MAX_PROBLEM_ROWS = 20


def _comment(result: dict[str, Any]) -> str:
    return str(result.get("comment") or "")


@dataclass
class Summary:
    """Everything reported at the end, kept in memory bounded by keys and ``worst`` rows."""

    kind: Kind
    worst_count: int = 5
    scored: int = 0
    _score: Mean = field(default_factory=Mean)
    per_key: dict[str, Mean] = field(default_factory=dict)
    _worst: list[tuple[float, int, Scored]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    invalid: int = 0
    counts: Counts = field(default_factory=Counts)
    files: tuple[str, str] = ("outputs", "references")

    def add(self, item: Scored | Problem) -> None:
        part = Tally(self.kind, self.worst_count)
        part.add(item)
        self.merge(part)

    def merge(self, part: Tally) -> None:
        """Add a chunk's tally (chunks are merged in input order; the means are exact sums)."""
        self.scored += part.scored
        self._score.merge(part.score)
        for key, mean in part.per_key.items():
            self.per_key.setdefault(key, Mean()).merge(mean)
        for entry in part.worst:
            if len(self._worst) < self.worst_count:
                heapq.heappush(self._worst, entry)
            elif self.worst_count:
                heapq.heappushpop(self._worst, entry)
        self.problems.extend(part.problems)
        self.invalid += part.invalid

    def count_warning(self) -> str | None:
        """Said before anything else when the two files hold different numbers of examples."""
        outputs, references = self.counts.outputs, self.counts.references
        if references is None or outputs == references:
            return None
        return (
            f"the files hold different numbers of examples: {self.files[0]} {outputs}, "
            f"{self.files[1]} {references}"
        )

    @property
    def mean(self) -> float | None:
        """The mean example score, None when nothing was scored."""
        return self._score.value if self.scored else None

    @property
    def worst(self) -> list[Scored]:
        """The lowest-scoring examples (below 1), lowest first, ties in input order."""
        return [entry[2] for entry in sorted(self._worst, key=lambda e: (-e[0], -e[1]))]

    def key_rows(self) -> list[tuple[str, float, int]]:
        def order(name: str) -> tuple[int, Any]:
            if name.startswith("superstep "):
                return (1, int(name.split()[1]))
            return (0, name)

        return [
            (k, self.per_key[k].value, self.per_key[k].count)
            for k in sorted(self.per_key, key=order)
        ]

    def as_dict(self) -> dict[str, Any]:
        warning = self.count_warning()
        per_file = {self.files[0]: self.counts.outputs}
        if self.counts.references is not None:
            per_file[self.files[1]] = self.counts.references
        return {
            "warnings": [warning] if warning else [],
            "examples_scored": self.scored,
            "invalid": self.invalid,
            "examples_per_file": per_file,
            "mean_score": self.mean,
            "per_key": {
                key: {"mean": mean, "count": count} for key, mean, count in self.key_rows()
            },
            "worst": [_scored_dict(item) for item in self.worst],
            "problems": [{"where": p.where, "message": p.message} for p in self.problems],
        }


def _scored_dict(item: Scored) -> dict[str, Any]:
    return {
        "index": item.index,
        "id": item.id,
        "where": item.where,
        "score": item.score,
        "results": item.results,
    }


def _why(item: Scored) -> str:
    comments = (_comment(r) for r in item.results if float(r["score"]) < 1 and _comment(r))
    return "; ".join(dict.fromkeys(comments))  # aggregator None repeats list-level comments


def jsonl_line(item: Scored | Problem) -> str:
    """One line of ``--format jsonl`` for an example or a problem."""
    if isinstance(item, Problem):
        record: dict[str, Any] = {"type": "invalid", "where": item.where, "message": item.message}
    else:
        record = {"type": "example", **_scored_dict(item)}
    return _LINE_ENCODER.encode(record)


# json.dumps(record, ensure_ascii=False, default=repr), without building an encoder per line
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, default=repr)


def render_json(summary: Summary, out: IO[str], *, fail_under: float | None) -> None:
    document = {"summary": summary.as_dict() | {"fail_under": fail_under}}
    json.dump(document, out, ensure_ascii=False, indent=2, default=repr)
    out.write("\n")


def render_jsonl_summary(summary: Summary, out: IO[str], *, fail_under: float | None) -> None:
    """The last line of ``--format jsonl`` (the examples were written as they came)."""
    line = {"type": "summary", **summary.as_dict(), "fail_under": fail_under}
    del line["worst"]  # already written, line by line
    out.write(json.dumps(line, ensure_ascii=False, default=repr) + "\n")


def _fmt(value: float | None) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.4g}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(
    summary: Summary, out: IO[str], *, title: str, fail_under: float | None
) -> None:
    verdict = ""
    if fail_under is not None:
        passed = summary.mean is not None and summary.mean >= fail_under
        verdict = f" — {'passed' if passed else 'FAILED'} (fail-under {fail_under:g})"
    warning = summary.count_warning()
    lines = [
        f"### {title}{verdict}",
        "",
        *([f"> **Warning:** {_md(warning)}", ""] if warning else []),
        f"**{summary.scored}** examples scored, **{summary.invalid}** invalid, "
        f"mean score **{_fmt(summary.mean)}**",
        "",
        "| key | mean | count |",
        "|---|---:|---:|",
    ]
    rows = summary.key_rows()
    lines += [
        f"| {_md(key)} | {_fmt(mean)} | {count} |" for key, mean, count in rows[:MAX_KEY_ROWS]
    ]
    if len(rows) > MAX_KEY_ROWS:
        lines.append(f"| … {len(rows) - MAX_KEY_ROWS} more | | |")
    if summary.worst:
        lines += ["", "#### Worst examples", "", "| example | score | why |", "|---|---:|---|"]
        lines += [f"| {_md(i.where)} | {_fmt(i.score)} | {_md(_why(i))} |" for i in summary.worst]
    if summary.problems:
        lines += ["", "#### Invalid input", ""]
        lines += [f"- `{_md(str(p.where))}`: {_md(p.message)}" for p in summary.problems]
    out.write("\n".join(lines) + "\n")


def render_table(
    summary: Summary, out: IO[str], *, title: str, fail_under: float | None, color: bool
) -> None:
    """The terminal summary, drawn with rich."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(file=out, force_terminal=color, no_color=not color, width=110)
    warning = summary.count_warning()
    if warning:
        console.print(Text(f"warning: {warning}", style="bold yellow"), soft_wrap=True)
    headline = (
        f"[bold]{title}[/bold]: {summary.scored} examples scored, "
        f"{summary.invalid} invalid, mean score [bold]{_fmt(summary.mean)}[/bold]"
    )
    if fail_under is not None:
        passed = summary.mean is not None and summary.mean >= fail_under
        headline += (
            f" — {'[green]passed' if passed else '[red]FAILED'}[/] (fail-under {fail_under:g})"
        )
    console.print(headline)
    keys = Table(title="mean score per key" if summary.kind == "json" else "mean score per check")
    keys.add_column("key")
    keys.add_column("mean", justify="right")
    keys.add_column("count", justify="right")
    rows = summary.key_rows()
    for key, mean, count in rows[:MAX_KEY_ROWS]:
        keys.add_row(Text(key), _fmt(mean), str(count))
    if len(rows) > MAX_KEY_ROWS:
        keys.add_row(f"… {len(rows) - MAX_KEY_ROWS} more (see --format json)", "", "")
    if rows:
        console.print(keys)
    if summary.worst:
        worst = Table(title="worst examples")
        worst.add_column("example")
        worst.add_column("score", justify="right")
        worst.add_column("why", overflow="fold")
        for item in summary.worst:
            worst.add_row(Text(item.where), _fmt(item.score), Text(_why(item)))
        console.print(worst)
    if summary.problems:
        console.print(f"[bold]invalid input[/bold] ({summary.invalid} examples):")
        for problem in summary.problems[:MAX_PROBLEM_ROWS]:
            console.print(f"  {problem}", markup=False, highlight=False)
        if len(summary.problems) > MAX_PROBLEM_ROWS:
            console.print(f"  … and {len(summary.problems) - MAX_PROBLEM_ROWS} more")
