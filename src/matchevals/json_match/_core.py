"""The general path of every json_match evaluation, in two pure steps around the judge call.

1. :func:`prepare` normalizes and validates the inputs, pairs list items and scores every key
   that needs no judge; keys in the rubric are left pending as ``JudgeRequest`` objects.
2. :func:`finish` takes the judge's verdicts for those requests and aggregates everything into
   openevals-shaped ``EvaluatorResult`` dicts.

:func:`score` is both steps for options without a rubric. The evaluator edges call the judge
between the steps; the hot paths of :mod:`._fast` return exactly what :func:`score` returns.

- Two objects are compared key by key (:mod:`._keys`), or leaf by leaf with ``nested=True``
  (:mod:`._leaves`); lists of objects are paired first (:mod:`._pairing`).
- Lists of plain values are lists of one-key items keyed ``[]`` (whose rules are those of
  ``[*]``), compared as multisets in set modes and by index in ordered mode.
- The judge's verdicts are filled in by :mod:`._verdicts`; scores are combined by
  :mod:`._aggregate` and explained by :mod:`._explanation`.

>>> from matchevals.json_match._options import JsonMatchOptions
>>> prepare({"a": 1}, {"a": 2}, JsonMatchOptions()).items[0].scores
{'a': 0}
>>> score(JsonMatchOptions(aggregator="all"), {"a": 1}, {"a": 2})[0]["score"]
0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matchevals._types import EvaluatorResult
from matchevals.json_match._aggregate import results
from matchevals.json_match._evaluation import Evaluation
from matchevals.json_match._inputs import input_kind
from matchevals.json_match._keys import key_rules, requests_of, score_keys
from matchevals.json_match._leaves import score_documents
from matchevals.json_match._options import JsonMatchOptions
from matchevals.json_match._pairing import pair_with_options
from matchevals.json_match._types import MAX_DEPTH, VALUE_LIST_KEY, JudgeVerdict
from matchevals.json_match._verdicts import apply_verdicts

__all__ = ["finish", "prepare", "score"]

_EMPTY: Mapping[str, Any] = {}


def score(options: JsonMatchOptions, outputs: Any, reference_outputs: Any) -> list[EvaluatorResult]:
    """The results for options without rubric keys: ``finish(prepare(...))``."""
    return finish(prepare(outputs, reference_outputs, options))


def prepare(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Evaluation:
    """Validate, pair and score everything that needs no judge."""
    try:
        return _prepare(outputs, reference_outputs, options)
    except RecursionError:
        raise ValueError(
            f"outputs or reference_outputs are nested too deeply to compare "
            f"(more than about {MAX_DEPTH} levels)"
        ) from None


def _prepare(outputs: Any, reference_outputs: Any, options: JsonMatchOptions) -> Evaluation:
    kind = input_kind(outputs, reference_outputs)
    if kind == "values":
        outputs = [{VALUE_LIST_KEY: value} for value in outputs]
        reference_outputs = [{VALUE_LIST_KEY: value} for value in reference_outputs]
    elif options.nested:
        items, pairs, requests = score_documents(outputs, reference_outputs, options)
        return Evaluation(options, kind != "object", items, pairs, requests)
    if kind == "object":
        item = score_keys(outputs, reference_outputs, 0, 0, options, None, False)
        return Evaluation(options, False, [item], None, requests_of([item], options, False))
    value_list = kind == "values"
    pairs = pair_with_options(
        outputs,
        reference_outputs,
        options,
        key_rules(outputs, reference_outputs, options, value_list),
        key_prefix=VALUE_LIST_KEY if value_list else None,
    )
    items = [
        score_keys(
            _EMPTY if o is None else outputs[o],
            _EMPTY if r is None else reference_outputs[r],
            o,
            r,
            options,
            position,
            value_list,
        )
        for position, (o, r) in enumerate(pairs)
    ]
    requests = requests_of(items, options, value_list)
    return Evaluation(options, True, items, pairs, requests, value_list)


def finish(
    evaluation: Evaluation, verdicts: Mapping[str, JudgeVerdict] | None = None
) -> list[EvaluatorResult]:
    """Fill in the judge's verdicts and aggregate into openevals-shaped results."""
    return results(evaluation, apply_verdicts(evaluation, verdicts or {}))
