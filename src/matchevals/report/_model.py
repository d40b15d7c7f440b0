"""What an HTML report holds: every example's score, the details of the worst, the summary.

Built one example at a time in bounded memory: every example keeps a row (its score, id, where it
came from and a short "why"), and only the ``details`` lowest-scoring examples keep their values,
located differences and swimlanes, in a heap. Values bigger than ``VALUES_LIMIT`` characters of
JSON, and values past a total of ``VALUES_BUDGET`` characters (given to the worst examples
first), are left out and said to be; the differences are kept either way.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from matchevals._scoring import Scored
from matchevals.graph_trajectory._side_by_side import trajectory_rows
from matchevals.report._examples import DEFAULT_DETAILS, NOT_GIVEN, ReportExample
from matchevals.report._locate import locate_differences, locate_divergences
from matchevals.report._stats import Tally, is_superstep, score_text, why

__all__ = ["DEFAULT_DETAILS", "VALUES_BUDGET", "ReportBuilder", "detail_within", "row_of"]

VALUES_LIMIT = 100_000
VALUES_BUDGET = 20_000_000
WHY_LIMIT = 240
PROBLEMS_LIMIT = 1000
METADATA_LIMIT = 20_000


def _size(value: Any) -> int:
    try:
        return len(json.dumps(value, ensure_ascii=False, default=repr))
    except (TypeError, ValueError, RecursionError):
        return VALUES_LIMIT + 1


def _small_metadata(metadata: Any) -> Any:
    """Result metadata kept when small (alignments of huge lists are cut, mismatches shown)."""
    if not isinstance(metadata, Mapping):
        return None
    if _size(metadata) <= METADATA_LIMIT:
        return metadata
    return {"note": "metadata too large to embed", "keys": sorted(map(str, metadata))}


def _runs_and_references(outputs: Any, reference: Any) -> tuple[list[Any], list[Any]]:
    runs = outputs if isinstance(outputs, list) else [outputs]
    references = reference if isinstance(reference, list) else [reference] * len(runs)
    return runs, references


def _steps(value: Any) -> list[Any] | None:
    steps = value.get("steps") if isinstance(value, Mapping) else None
    return steps if isinstance(steps, list) else None


def _swimlanes(example: ReportExample) -> list[dict[str, Any]]:
    """For every graph result, each run superstep by superstep beside its reference."""
    lanes: list[dict[str, Any]] = []
    given = example.outputs is not NOT_GIVEN and example.reference_outputs is not NOT_GIVEN
    runs, references = (
        _runs_and_references(example.outputs, example.reference_outputs) if given else ([], [])
    )
    for result in example.results:
        metadata = result.get("metadata")
        for run in (metadata.get("runs") if isinstance(metadata, Mapping) else None) or ():
            if not isinstance(run, Mapping):
                continue
            position = run.get("run", 0)
            steps = (
                _steps(runs[position])
                if isinstance(position, int) and position < len(runs)
                else None
            )
            reference = (
                _steps(references[position])
                if isinstance(position, int) and position < len(references)
                else None
            )
            verdicts = run.get("verdicts") or []
            if steps is None or reference is None:  # results alone: verdicts only
                steps, reference = [[] for _ in verdicts], []
                known = False
            else:
                known = True
            try:
                rows = trajectory_rows(steps, reference, run)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                continue  # values that do not fit the metadata: no swimlane, the rest stays
            lanes.append(
                {
                    "key": result.get("key"),
                    "run": position,
                    "match": run.get("match"),
                    "score": run.get("score"),
                    "values": known,
                    "divergence": (run.get("divergence") or {}).get("superstep"),
                    "columns": [
                        {
                            "superstep": row.superstep,
                            "expected": row.expected if known else None,
                            "nodes": None
                            if row.expected_nodes is None
                            else list(row.expected_nodes),
                            "mode": row.mode,
                            "actual": None if row.actual is None or not known else list(row.actual),
                            "verdict": row.verdict,
                            "first_divergence": row.first_divergence,
                        }
                        for row in rows
                    ],
                }
            )
    return lanes


def _detail(example: ReportExample) -> dict[str, Any]:
    given = example.outputs is not NOT_GIVEN and example.reference_outputs is not NOT_GIVEN
    outputs = example.outputs if given else None
    reference = example.reference_outputs if given else None
    differences = [
        *locate_differences(example.results, outputs, reference),
        *locate_divergences(example.results, outputs, reference),
    ]
    size = _size([example.outputs, example.reference_outputs]) if given else 0
    return {
        "index": example.index,
        "results": [
            {
                "key": r.get("key"),
                "score": r.get("score"),
                "comment": r.get("comment"),
                "metadata": _small_metadata(r.get("metadata")),
            }
            for r in example.results
        ],
        "differences": [
            {
                "key": d.key,
                "kind": d.kind,
                "path": d.path,
                "expected": d.expected,
                "actual": d.actual,
                "at_expected": d.at_expected,
                "at_actual": d.at_actual,
            }
            for d in differences
        ],
        "swimlanes": _swimlanes(example),
        "given": given,
        "size": size,
        "values": (example.outputs, example.reference_outputs) if given else None,
    }


@dataclass
class ReportBuilder:
    """Collects a run, one example at a time, into the document the HTML page embeds."""

    details: int = DEFAULT_DETAILS
    stats: Tally = field(default_factory=lambda: Tally(worst_count=0))
    _scores: list[float] = field(default_factory=list)
    _ids: list[Any] = field(default_factory=list)
    _wheres: list[str] = field(default_factory=list)
    _whys: list[int] = field(default_factory=list)  # into _why_texts: reasons repeat
    _why_texts: dict[str, int] = field(default_factory=dict)
    _indexes: list[int] = field(default_factory=list)
    _prefix: str | None = None
    _worst: list[tuple[float, int, int, ReportExample]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)
    problems: list[dict[str, Any]] = field(default_factory=list)
    invalid: int = 0
    kinds: set[str] = field(default_factory=set)

    def add(self, example: ReportExample) -> None:
        """Add one scored example."""
        self.stats.add(
            Scored(example.index, example.id, example.where, example.score, example.results)
        )
        for result in example.results:
            key = str(result.get("key"))
            self.kinds.add("graph" if key.startswith("graph_trajectory") else "json")
        self.add_row(
            *row_of(example.index, example.id, example.where, example.score, example.results)
        )
        self._keep(example)

    def add_row(self, index: int, ident: Any, where: str, score: float, reason: str) -> None:
        """Add one example's row of the table (what :func:`row_of` gives), without its
        details or its share of the statistics (the command line's workers send rows)."""
        self._indexes.append(index)
        self._scores.append(score)
        self._ids.append(ident)
        self._wheres.append(where)
        self._prefix = _common_prefix(self._prefix, where)
        self._whys.append(self._why_texts.setdefault(reason, len(self._why_texts)))

    def offer(self, example: ReportExample) -> None:
        """Keep ``example``'s details if it is among the ``details`` worst so far."""
        self._keep(example)

    def _keep(self, example: ReportExample) -> None:
        if self.details <= 0:
            return
        entry_key = (-example.score, -example.index)
        if len(self._worst) >= self.details:
            best_kept = self._worst[0]
            if entry_key <= (best_kept[0], best_kept[1]):
                return  # not worse than the best of the kept worst: no detail
        entry = (-example.score, -example.index, next(self._order), example)
        if len(self._worst) < self.details:
            heapq.heappush(self._worst, entry)
        else:
            heapq.heapreplace(self._worst, entry)

    def add_problem(self, where: str, message: str, *, counted: bool = True) -> None:
        """Add an example that could not be scored."""
        self.invalid += counted
        if len(self.problems) < PROBLEMS_LIMIT:
            self.problems.append({"where": where, "message": message})

    def document(
        self, *, key_rows: list[tuple[str, float, int, int]] | None = None, **summary: Any
    ) -> dict[str, Any]:
        """The data the page draws. ``summary`` overrides or adds summary facts (kind, title,
        files, warnings, passed, failed_because, thresholds, invalid, ...); ``key_rows``
        the per-key means (``(key, mean, count, unchecked)``, the command line's exact ones)."""
        details = _embedded_details(sorted(self._worst, key=lambda e: (-e[0], -e[1])))
        prefix = self._prefix or ""
        kind = "graph" if self.kinds == {"graph"} else "json" if self.kinds <= {"json"} else "mixed"
        rows = self.stats.key_rows() if key_rows is None else key_rows
        base: dict[str, Any] = {
            "kind": kind,
            "title": None,
            "examples_scored": self.stats.scored,
            "invalid": self.invalid,
            "mean_score": self.stats.mean,
            "below_threshold": self.stats.below_threshold,
            "warnings": [],
            "passed": None,
            "failed_because": [],
            "fail_under": None,
            "threshold": None,
            "files": [],
            "id_key": None,
        }
        base.update({k: v for k, v in summary.items() if v is not None or k not in base})
        base["mean_score_text"] = score_text(base["mean_score"])  # as every report writes it
        return {
            "format": "matchevals-report/1",
            "summary": base,
            "keys": [
                {
                    "key": key,
                    "mean": None if math.isnan(mean) else mean,
                    "mean_text": score_text(mean),
                    "count": count,
                    "unchecked": unchecked,
                    "superstep": is_superstep(key),
                }
                for key, mean, count, unchecked in rows
            ],
            "rows": {
                "index": self._indexes,
                "score": self._scores,
                "id": self._ids,
                "where_prefix": prefix,
                "where": [w[len(prefix) :] for w in self._wheres],
                "why": self._whys,
                "why_texts": list(self._why_texts),
            },
            "details": details,
            "details_limit": self.details,
            "problems": self.problems,
            "problems_total": self.invalid,
        }


def _embedded_details(kept: list[Any]) -> dict[str, Any]:
    """The kept worst examples' details, worst first, their values embedded while the page's
    budget lasts (and said to be left out when not)."""
    budget = VALUES_BUDGET
    details: dict[str, Any] = {}
    for _, _, _, example in kept:
        detail, budget = detail_within(example, budget)  # for the kept worst only, once
        details[str(detail["index"])] = detail
    return details


def detail_within(example: ReportExample, budget: int) -> tuple[dict[str, Any], int]:
    """An example's details for a page (results, located differences, swimlanes), its values
    embedded if they fit ``budget`` characters of JSON (and said to be left out if not); and
    the budget left."""
    detail = _detail(example)
    values = detail.pop("values")
    size = detail["size"]
    if values is not None and size <= VALUES_LIMIT and size <= budget:
        budget -= size
        detail["outputs"], detail["reference_outputs"] = values
        detail["omitted"] = None
    elif values is not None:
        detail["omitted"] = (
            f"values of {size:,} characters of JSON are larger than the "
            f"{VALUES_LIMIT:,} an example may embed"
            if size > VALUES_LIMIT
            else "values left out: the page's budget went to worse examples"
        )
    else:
        detail["omitted"] = "only results were given, not the values"
    return detail, budget


def row_of(
    index: int, ident: Any, where: str, score: float, results: list[dict[str, Any]]
) -> tuple[int, Any, str, float, str]:
    """An example's row of the page's table: its id as the page shows it, and its reason."""
    reason = why(results) if score < 1 else ""
    reason = reason if len(reason) <= WHY_LIMIT else reason[: WHY_LIMIT - 1] + "…"
    ident = ident if isinstance(ident, (str, int, float)) else str(ident)
    return index, ident, where, score, reason


def _common_prefix(prefix: str | None, text: str) -> str:
    """The longest common prefix so far, cut back to a path separator or ``:``."""
    if prefix is None:
        cut = max(text.rfind(":"), text.rfind("["), text.rfind("/"), text.rfind(" "))
        return text[: cut + 1] if cut >= 0 else ""
    if text.startswith(prefix):
        return prefix
    length = 0
    for left, right in zip(prefix, text, strict=False):
        if left != right:
            break
        length += 1
    return prefix[:length]
