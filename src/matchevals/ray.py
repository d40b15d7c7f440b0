"""Score a Ray Dataset with any matchevals evaluator, and summarize it as the CLI does.

``pip install "matchevals[ray]"``. Cells hold **JSON text** (one JSON document per cell, as a
batch-inference step writes ``json.dumps(output)``) or plain scalars. Nested Arrow columns
(structs, lists, maps) are refused: Arrow gives every row of a block the union of the keys of
all its rows, filling the missing ones with nulls (and numpy batches turn integers into
floats), so ``{"a": 1}`` would be scored as ``{"a": 1, "b": None}``, a wrong score that says
nothing.

>>> import json, ray  # doctest: +SKIP
>>> from matchevals.json_match import create_json_match_evaluator
>>> ds = ray.data.from_items(
...     [{"id": 1, "outputs": json.dumps({"a": 1}), "reference_outputs": json.dumps({"a": 2})}]
... )  # doctest: +SKIP
>>> scored = score_dataset(ds, create_json_match_evaluator(), id_column="id")  # doctest: +SKIP
>>> scored.take_all()[0]["score"], summarize(scored)["mean_score"]  # doctest: +SKIP
(0.0, 0.0)

:func:`score_dataset` adds three columns to every row, through ``map_batches``: ``score`` (the
example's score, the mean of its results' scores; null when it could not be scored),
``results`` (the evaluator's results as JSON text, exactly the CLI's ``results``) and
``problem`` (why it could not be scored, else null). :func:`score_joined` first joins a
dataset of outputs with one of references on an id (a full outer join: an output without its
reference, or a reference without its output, is a problem row). :func:`summarize` reads a
scored dataset back (the score, results and problem columns only) and returns the CLI's
``--format json`` summary: the tallies are made in the workers, one per batch, and merged in
dataset order; means are exact sums, so they do not depend on how Ray split the rows. Score,
then ``materialize()`` (or write the scores and read them back) before summarizing, so the
evaluator does not run twice.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from matchevals._scoring import LineError, Problem, Scored, decode, score_example
from matchevals.report._stats import Tally
from matchevals.report._summary import Kind, Summary

__all__ = ["score_dataset", "score_joined", "summarize"]

SCORE, RESULTS, PROBLEM = "score", "results", "problem"
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=repr)


def _cell(value: Any) -> Any:
    """A cell's value: JSON text decoded (as the CLI decodes a line), a scalar as it is."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")
    if not isinstance(value, bytes):
        return value
    if not value.strip():
        raise LineError("empty (a cell holds one JSON document as text)")
    return decode(value)


def _check_flat(schema: Any, columns: tuple[str, ...]) -> None:
    """Each column exists and holds scalars or JSON text (``schema``: a pyarrow schema)."""
    import pyarrow as pa

    for name in columns:
        if name not in schema.names:
            raise ValueError(f"the dataset has no column {name!r} (it has {schema.names})")
        kind = schema.field(name).type
        if pa.types.is_nested(kind):
            raise ValueError(
                f"column {name!r} is {kind}: store JSON text there (json.dumps each value "
                "before the dataset is made), since Arrow fills the keys a row lacks with nulls"
            )


def _check_known_schema(dataset: Any, columns: tuple[str, ...]) -> None:
    """:func:`_check_flat` now, if the dataset knows its schema without executing anything."""
    import pyarrow as pa

    schema = dataset.schema(fetch_if_missing=False)
    base = getattr(schema, "base_schema", None)
    if isinstance(base, pa.Schema):
        _check_flat(base, columns)


class _ScoreBatch:
    """The ``map_batches`` function: one pyarrow batch in, the same with three columns more."""

    def __init__(
        self,
        evaluator: Callable[..., Any],
        outputs: str,
        reference_outputs: str,
        id_column: str | None,
        missing: bool,
    ) -> None:
        self.evaluator = evaluator
        self.columns = (outputs, reference_outputs)
        self.id_column = id_column
        self.missing = missing  # a null cell is a missing side (after a full outer join)

    def __call__(self, table: Any) -> Any:
        import pyarrow as pa

        for name in (SCORE, RESULTS, PROBLEM):
            if name in table.column_names:
                raise ValueError(f"the dataset already has a column {name!r}")
        _check_flat(table.schema, self.columns + ((self.id_column,) if self.id_column else ()))
        outputs = table.column(self.columns[0]).to_pylist()
        references = table.column(self.columns[1]).to_pylist()
        ids = table.column(self.id_column).to_pylist() if self.id_column else [None] * len(outputs)
        scores: list[float | None] = []
        results: list[str | None] = []
        problems: list[str | None] = []
        for ident, output, reference in zip(ids, outputs, references, strict=True):
            item = self._score(ident, output, reference)
            if isinstance(item, Problem):
                scores.append(None)
                results.append(None)
                problems.append(item.message)
            else:
                scores.append(item.score)
                results.append(_ENCODER.encode(item.results))
                problems.append(None)
        table = table.append_column(SCORE, pa.array(scores, type=pa.float64()))
        table = table.append_column(RESULTS, pa.array(results, type=pa.string()))
        return table.append_column(PROBLEM, pa.array(problems, type=pa.string()))

    def _score(self, ident: Any, output: Any, reference: Any) -> Scored | Problem:
        label = self.id_column or "row"
        if self.missing and (output is None or reference is None):
            side = "reference" if reference is None else "output"
            return Problem("", f"no {side} with {label} {ident!r}")
        values = []
        for column, cell in zip(self.columns, (output, reference), strict=True):
            try:
                values.append(_cell(cell))
            except LineError as error:
                return Problem("", f"{column}: {error}")
        output, reference = values
        return score_example(self.evaluator, 0, ident, "", output, reference)


def score_dataset(
    dataset: Any,
    evaluator: Callable[..., Any],
    *,
    outputs: str = "outputs",
    reference_outputs: str = "reference_outputs",
    id_column: str | None = None,
    batch_size: int = 256,
    concurrency: int | None = None,
) -> Any:
    """A lazy Dataset: every row of ``dataset`` with ``score``, ``results`` and ``problem``.

    ``evaluator`` is any matchevals evaluator (it is pickled to the workers with its options);
    ``outputs`` and ``reference_outputs`` name the columns it is called with. A missing or
    nested column is a ValueError here when the dataset's schema is known without running it
    (else in the first batch).
    """
    columns = (outputs, reference_outputs, *((id_column,) if id_column else ()))
    _check_known_schema(dataset, columns)
    return dataset.map_batches(
        _ScoreBatch(evaluator, outputs, reference_outputs, id_column, missing=False),
        batch_format="pyarrow",
        batch_size=batch_size,
        concurrency=concurrency,
    )


def score_joined(
    outputs: Any,
    references: Any,
    evaluator: Callable[..., Any],
    *,
    on: str = "id",
    outputs_column: str = "outputs",
    reference_column: str = "reference_outputs",
    num_partitions: int = 8,
    batch_size: int = 256,
    sort: bool = True,
) -> Any:
    """Join two datasets on ``on`` (full outer, Ray 2.46+) and score the pairs, sorted by ``on``.

    Ids must be unique on each side: a join pairs every copy of an id with every copy on the
    other side. A join's rows come in an order Ray decides, so the scored rows are sorted by
    id (``sort=False`` skips that shuffle), which makes :func:`summarize` reproducible.
    """
    _check_known_schema(outputs, (on, outputs_column))
    _check_known_schema(references, (on, reference_column))
    joined = outputs.join(
        references,
        join_type="full_outer",
        num_partitions=num_partitions,
        on=(on,),
    )
    scored = joined.map_batches(
        _ScoreBatch(evaluator, outputs_column, reference_column, on, missing=True),
        batch_format="pyarrow",
        batch_size=batch_size,
    )
    return scored.sort(on) if sort else scored


class _TallyBatch:
    """Per batch of a scored dataset: its pickled tally and its number of rows."""

    def __init__(self, kind: Kind, worst: int, id_column: str | None) -> None:
        self.kind, self.worst, self.id_column = kind, worst, id_column

    def __call__(self, table: Any) -> dict[str, list[Any]]:
        scores = table.column(SCORE).to_pylist()
        results = table.column(RESULTS).to_pylist()
        problems = table.column(PROBLEM).to_pylist()
        ids = table.column(self.id_column).to_pylist() if self.id_column else [None] * len(scores)
        tally = Tally(self.worst)
        for index, (ident, score, result, problem) in enumerate(
            zip(ids, scores, results, problems, strict=True)
        ):
            where = self._where(ident, index)
            if problem is not None:
                tally.add(Problem(where, problem))
            else:
                tally.add(Scored(index, ident, where, score, json.loads(result)))
        return {"tally": [pickle.dumps(tally)], "rows": [len(scores)]}

    def _where(self, ident: Any, index: int) -> str:
        return f"{self.id_column} {ident!r}" if self.id_column else f"row +{index}"


def summarize(
    scored: Any, *, kind: Kind = "json", worst: int = 5, id_column: str | None = None
) -> dict[str, Any]:
    """The CLI's ``--format json`` summary of a dataset :func:`score_dataset` made.

    ``index`` is the row's position in the dataset; examples are named by ``id_column``
    (``"id 17"``) or by position (``"row 16"``).
    """
    import ray.data

    columns = [SCORE, RESULTS, PROBLEM, *([id_column] if id_column else [])]
    tallies = scored.select_columns(columns).map_batches(
        _TallyBatch(kind, worst, id_column), batch_format="pyarrow"
    )
    context = ray.data.DataContext.get_current()
    preserve = context.execution_options.preserve_order
    context.execution_options.preserve_order = True  # tallies in dataset order
    summary = Summary(kind, worst_count=worst)
    summary.counts.references = None
    offset = 0
    try:
        for row in tallies.iter_rows():
            tally: Tally = pickle.loads(row["tally"])
            summary.merge(_shifted(tally, offset, id_column is None))
            offset += row["rows"]
    finally:
        context.execution_options.preserve_order = preserve
    summary.counts.outputs = offset
    summary.files = ("rows", "rows")
    return summary.as_dict()


def _shifted(tally: Tally, offset: int, by_position: bool) -> Tally:
    """A batch's tally with its rows numbered from ``offset``."""

    def where(text: str) -> str:
        if by_position and text.startswith("row +"):
            return f"row {offset + int(text[5:])}"
        return text

    tally.renumber(
        lambda item: Scored(
            item.index + offset, item.id, where(item.where), item.score, item.results
        )
    )
    tally.problems = [replace(problem, where=where(problem.where)) for problem in tally.problems]
    return tally
