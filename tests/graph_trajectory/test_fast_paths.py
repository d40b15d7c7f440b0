"""graph_trajectory's fast paths agree with the general path run with them switched off.

A reference without patterns takes two fast paths: strict matching superstep ``i`` against step
``i`` (``_match.match_positional``) and partial credit as a trimmed numpy table
(``_partial._align_plain``). The oracle is the same evaluator built with ``fast=False``, which
sends every reference through the automaton of positions (``match_pattern``) and the
best-first alignment over a pattern's paths (``_alignment.align_pattern``). They agree on the
score, on whether each run matched and on where it diverged; the fast path's own extras
(``extra`` verdicts past the end, no ``alignment``) are the documented difference.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matchevals.graph_trajectory import ReferenceStep
from matchevals.graph_trajectory._evaluators import _compute, _Options
from matchevals.graph_trajectory._match import match_pattern, match_run
from matchevals.graph_trajectory._reference import pair_runs

NODES = st.sampled_from(["a", "b", "c", "*"])
RUN_NODES = st.sampled_from(["a", "b", "c"])
MODES = st.sampled_from(["exact", "unordered", "subset", "superset"])
SUPERSTEPS = st.lists(st.lists(RUN_NODES, max_size=3), max_size=7)
BARE_STEPS = st.lists(st.lists(RUN_NODES, max_size=3), max_size=7)
MODE_STEPS = st.lists(
    st.one_of(
        st.builds(ReferenceStep, st.lists(NODES, max_size=3), MODES, st.just(False)),
        st.lists(RUN_NODES, max_size=3),
    ),
    max_size=7,
)
REFERENCE_STEPS = st.one_of(BARE_STEPS, MODE_STEPS)


@st.composite
def run_and_reference(draw: Any) -> tuple[list[list[str]], list[Any]]:
    """A reference without patterns and a run that often follows it closely."""
    reference = draw(REFERENCE_STEPS)
    if draw(st.booleans()):
        return draw(SUPERSTEPS), reference
    run = [list(step.steps if isinstance(step, ReferenceStep) else step) for step in reference]
    run = [[node for node in step if node != "*"] for step in run]
    if run and draw(st.booleans()):
        run[draw(st.integers(0, len(run) - 1))] = draw(st.lists(RUN_NODES, max_size=3))
    if draw(st.booleans()):
        run = run[: draw(st.integers(0, len(run)))] + draw(SUPERSTEPS)[:2]
    return run, reference


def _shared(result: dict[str, Any]) -> tuple[list[tuple[Any, ...]], list[float]]:
    """What the fast and the general path must agree on: each run's verdict and divergence,
    and the scores (overall first, then each run's partial score)."""
    runs = result["metadata"]["runs"]
    verdicts = [
        (run["match"], run["steps_match"], run["divergence"], run["expected_supersteps"])
        for run in runs
    ]
    scores = [float(result["score"])] + [run["score"] for run in runs if "score" in run]
    return verdicts, scores


@settings(max_examples=400, deadline=None)
@given(case=run_and_reference(), partial=st.booleans())
def test_fast_paths_score_as_the_general_path(
    case: tuple[list[list[str]], list[Any]], partial: bool
) -> None:
    steps, reference = case
    outputs = {"inputs": None, "results": None, "steps": steps}
    reference_outputs = {"inputs": None, "results": None, "steps": reference}
    fast = _compute(_Options(partial_credit=partial), outputs, reference_outputs)
    general = _compute(_Options(partial_credit=partial, fast=False), outputs, reference_outputs)
    fast_verdicts, fast_scores = _shared(fast)
    general_verdicts, general_scores = _shared(general)
    assert fast_verdicts == general_verdicts
    assert fast_scores == pytest.approx(general_scores, abs=1e-9)
    assert type(fast["score"]) is type(general["score"])
    assert (fast["comment"] == "the run matched its reference") is (
        general["comment"] == "the run matched its reference"
    )


def test_the_switch_really_takes_the_general_path() -> None:
    # The general path reports an alignment; the positional fast path does not.
    pair = pair_runs({"steps": [["a"], ["b"]]}, {"steps": [["a"], ["c"]]})[0]
    assert match_run(pair.steps, pair.reference).alignment is None
    general = match_run(pair.steps, pair.reference, fast=False)
    assert general == match_pattern(pair.steps, pair.reference.elements)
    assert general.alignment == ["reference_outputs.steps[0]", None]
    assert general.divergence is not None and general.divergence.superstep == 1


def test_several_runs_agree_too() -> None:
    outputs = [{"steps": [["a"], ["b", "c"]]}, {"steps": [["a"], ["b"], ["x"]]}]
    references = [{"steps": [["a"], ["c", "b"]]}, {"steps": [["a"], ["b"]]}]
    for partial in (False, True):
        fast = _compute(_Options(partial_credit=partial), outputs, references)
        general = _compute(_Options(partial_credit=partial, fast=False), outputs, references)
        assert _shared(fast)[0] == _shared(general)[0]
        assert _shared(fast)[1] == pytest.approx(_shared(general)[1], abs=1e-9)
    strict = _compute(_Options(), outputs, references)
    assert strict["score"] is False
    assert [run["match"] for run in strict["metadata"]["runs"]] == [True, False]
