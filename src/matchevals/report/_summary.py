"""The summary of a run: its tally, how many examples each file held, the gates that decide
whether it passed, and the verdict; as the document ``--format json`` writes and
``matchevals.ray.summarize`` returns.

>>> from matchevals._scoring import Scored
>>> summary = Summary("json", gates=Gates(fail_under=0.9))
>>> summary.add(Scored(0, None, "out.jsonl:1", 0.5, [{"key": "a", "score": 0.5}]))
>>> document = summary.document()
>>> document["passed"], document["failed_because"], document["summary"]["mean_score"]
(False, ['the mean score 0.5 is below --fail-under 0.9'], 0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from matchevals._scoring import Problem, Scored
from matchevals.report._stats import Tally, is_superstep, verdict

__all__ = ["Counts", "Gates", "Kind", "Summary"]

Kind = Literal["json", "graph", "trajectory"]


@dataclass(slots=True)
class Counts:
    """How many examples (valid or not) each side held, as far as it was read.

    ``references`` stays None when one reference serves every output.
    """

    outputs: int = 0
    references: int | None = 0


@dataclass(frozen=True)
class Gates:
    """What decides whether a run passed: ``--fail-under``, graph ``--threshold``, and
    ``--skip-invalid``."""

    fail_under: float | None = None
    threshold: float | None = None
    skip_invalid: bool = False

    def words(self) -> str:
        """``fail-under 0.9, threshold 0.8`` (empty without gates)."""
        parts = []
        if self.fail_under is not None:
            parts.append(f"fail-under {self.fail_under:g}")
        if self.threshold is not None:
            parts.append(f"threshold {self.threshold:g}")
        return ", ".join(parts)


@dataclass
class Summary:
    """Everything reported at the end, kept in memory bounded by keys and ``worst`` rows.

    Its numbers are a :class:`~matchevals.report._stats.Tally` (``stats``): the tallies of the
    parts of a run, scored wherever, merge into it exactly, so every engine reports the same
    bytes.
    """

    kind: Kind
    worst_count: int = 5
    stats: Tally = field(init=False)
    counts: Counts = field(default_factory=Counts)
    files: tuple[str, str] = ("outputs", "references")
    gates: Gates = field(default_factory=Gates)
    id_key: str | None = None

    def __post_init__(self) -> None:
        self.stats = Tally(self.worst_count)

    def add(self, item: Scored | Problem) -> None:
        self.stats.add(item)

    def merge(self, part: Tally) -> None:
        """Add a chunk's tally (chunks are merged in input order; the means are exact sums)."""
        self.stats.merge(part)

    @property
    def scored(self) -> int:
        return self.stats.scored

    @property
    def problems(self) -> list[Problem]:
        return self.stats.problems

    @property
    def invalid(self) -> int:
        return self.stats.invalid

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
        return self.stats.mean

    @property
    def worst(self) -> list[Scored]:
        """The lowest-scoring examples (below 1), lowest first, ties in input order."""
        return self.stats.worst_examples

    def verdict(self) -> tuple[bool, list[str]]:
        """Whether the run passed its gates, and why not."""
        return verdict(
            mean=self.mean,
            invalid=self.invalid or len(self.problems),
            fail_under=self.gates.fail_under,
            threshold=self.gates.threshold,
            below_threshold=self.stats.below_threshold,
            skip_invalid=self.gates.skip_invalid,
        )

    def key_rows(self) -> list[tuple[str, float, int, int]]:
        """``(key, mean, count, unchecked)``: keys by name, then supersteps by position."""
        return self.stats.key_rows()

    def as_dict(self) -> dict[str, Any]:
        warning = self.count_warning()
        per_file = {self.files[0]: self.counts.outputs}
        if self.counts.references is not None:
            per_file[self.files[1]] = self.counts.references
        passed, reasons = self.verdict()
        document: dict[str, Any] = {
            "warnings": [warning] if warning else [],
            "kind": self.kind,
            "files": list(self.files),
            "passed": passed,
            "failed_because": reasons,
            "fail_under": self.gates.fail_under,
        }
        if self.kind == "graph":
            document["threshold"] = self.gates.threshold
            if self.gates.threshold is not None:
                document["below_threshold"] = self.stats.below_threshold
        document |= {
            "examples_scored": self.scored,
            "invalid": self.invalid,
            "examples_per_file": per_file,
            "id_key": self.id_key,
            "mean_score": self.mean,
            "per_key": {row[0]: _key_entry(*row) for row in self.key_rows()},
            "worst": [_scored_dict(item) for item in self.worst],
            "problems": [{"where": p.where, "message": p.message} for p in self.problems],
        }
        return document

    def document(self) -> dict[str, Any]:
        """The ``--format json`` document: the verdict at the top (``jq .passed``), then the
        whole summary."""
        summary = self.as_dict()
        return {
            "passed": summary["passed"],
            "failed_because": summary["failed_because"],
            "summary": summary,
        }


def _key_entry(key: str, mean: float, count: int, unchecked: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"mean": None if math.isnan(mean) else mean, "count": count}
    if is_superstep(key):
        entry["unchecked"] = unchecked
    return entry


def _scored_dict(item: Scored) -> dict[str, Any]:
    return {
        "index": item.index,
        "id": item.id,
        "where": item.where,
        "score": item.score,
        "results": item.results,
    }
