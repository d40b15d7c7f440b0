"""Runs and references as the matchers see them: checked, failing early with messages that name
the bad path, and read into the reference model (:class:`Reference` of :class:`Step` and
:class:`Loop`, the shared pattern engine's validated ``Repeat``) that matching and explanations
share.

Nothing here copies or mutates the caller's lists: runs keep their own ``steps`` list, and
references are read into small :class:`Step` / :class:`Loop` objects only when they are not
plain lists of node names. agentevals' trajectories, whose keys look alike but mean something
else, are refused with the way to convert them (:data:`AGENTEVALS_HELP`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from matchevals._patterns import Loop
from matchevals._values import counted
from matchevals.graph_trajectory._types import (
    MODES,
    GraphTrajectoryMatchMode,
    ReferenceStep,
    Repeat,
    check_repeat_fields,
    check_step_fields,
    describe,
)

__all__ = [
    "MODES",
    "WILDCARD",
    "Loop",
    "Pair",
    "Reference",
    "Step",
    "check_run",
    "describe",
    "pair_runs",
    "read_reference",
    "runs_of",
]

WILDCARD = "*"
_SEQUENCES = (list, tuple)
_LIST = frozenset({list})
_SUPERSTEP_TYPES = frozenset({list, tuple})
_STEP_KEYS = frozenset({"steps", "match_mode", "optional"})
_REPEAT_KEYS = frozenset({"repeat", "min", "max"})
_STEP_OPTIONS = (_STEP_KEYS | _REPEAT_KEYS) - {"steps"}
"""Keys meaning something inside one step or Repeat only: beside a reference's ``steps``
they would be ignored, so they are refused there (other keys, such as the fields of other
evaluators in a LangSmith example, are left alone)."""


@dataclass(slots=True)
class Step:
    """One reference superstep: its nodes, its mode, whether it may be absent, and its path."""

    nodes: Sequence[str]
    mode: GraphTrajectoryMatchMode
    optional: bool
    path: str


@dataclass(slots=True)
class Reference:
    """A validated reference run. ``plain`` holds the caller's list when every step is a bare
    list of node names (all unordered, no patterns); ``elements`` is then built on demand."""

    path: str
    results: Any
    plain: Sequence[Sequence[str]] | None
    _elements: list[Step | Loop[Step]] | None = field(default=None, repr=False)

    @property
    def elements(self) -> list[Step | Loop[Step]]:
        if self._elements is None:
            assert self.plain is not None
            steps = self.path + ".steps"
            self._elements = [
                Step(nodes, "unordered", False, f"{steps}[{index}]")
                for index, nodes in enumerate(self.plain)
            ]
        return self._elements

    @property
    def has_patterns(self) -> bool:
        return self.plain is None and any(
            isinstance(element, Loop) or element.optional for element in self.elements
        )


@dataclass(slots=True)
class Pair:
    """One run and its reference, both validated; ``same`` when the run equals a plain
    reference list for list."""

    index: int
    path: str
    steps: Sequence[Sequence[str]]
    results: Any
    reference: Reference
    same: bool = False


def runs_of(value: object, name: str) -> list[tuple[str, object]]:
    """The runs in ``value`` (one trajectory or a list of them) with their paths."""
    if type(value) is dict:
        return [(name, value)]
    if value is None:
        raise ValueError(f"{name} is None; expected a graph trajectory or a list of them")
    if isinstance(value, Mapping):
        return [(name, value)]
    if isinstance(value, _SEQUENCES):
        if not value:
            raise ValueError(f"{name} is an empty list; expected at least one run")
        return [(f"{name}[{index}]", run) for index, run in enumerate(value)]
    raise TypeError(
        f"{name} is {describe(value)}; expected a graph trajectory dict or a list of them"
    )


def pair_runs(outputs: object, reference_outputs: object) -> list[Pair]:
    """Validate both sides and pair them run by run: one reference (a dict) applies to every
    run; a list of references pairs with the runs one to one.

    >>> pair_runs({"steps": [["a"]]}, {"steps": [["a"]]})[0].steps
    [['a']]
    >>> [pair.path for pair in pair_runs([{"steps": [["a"]]}] * 2, {"steps": [["a"]]})]
    ['outputs[0]', 'outputs[1]']
    """
    if type(outputs) is dict and type(reference_outputs) is dict:  # one run: the common case
        reference = read_reference(reference_outputs, "reference_outputs")
        steps, results, same = check_run(outputs, "outputs", reference.plain)
        return [Pair(0, "outputs", steps, results, reference, same)]
    runs = runs_of(outputs, "outputs")
    if isinstance(reference_outputs, Mapping):  # one reference for every run of a thread
        shared = read_reference(reference_outputs, "reference_outputs")
        references = [shared] * len(runs)
    else:
        listed = runs_of(reference_outputs, "reference_outputs")
        if len(runs) != len(listed):
            raise ValueError(
                f"outputs has {counted(len(runs), 'run')} but reference_outputs has "
                f"{counted(len(listed), 'reference')}; a list of references pairs with the runs "
                "one to one (pass a single reference, not a list, to apply it to every run)"
            )
        references = [read_reference(value, path) for path, value in listed]
    pairs = []
    for index, ((path, run), reference) in enumerate(zip(runs, references, strict=True)):
        steps, results, same = check_run(run, path, reference.plain)
        pairs.append(Pair(index, path, steps, results, reference, same))
    return pairs


PSEUDO_NODES = frozenset({"__start__", "__end__", "__interrupt__"})
AGENTEVALS_HELP = (
    "matchevals runs hold one invocation each, as supersteps: convert it with "
    "matchevals.graph_trajectory.from_agentevals_trajectory, or score it as agentevals does "
    "with matchevals.graph_trajectory.strict.graph_trajectory_strict_match"
)


def _refuse_agentevals(value: Mapping[Any, Any], path: str) -> None:
    """agentevals' GraphTrajectory has the same keys with another meaning: never guess."""
    if "outputs" in value and isinstance(value["outputs"], Mapping):
        raise TypeError(
            f"{path} looks like agentevals' thread trajectory ({{'inputs': ..., 'outputs': "
            f"{{'results': ..., 'steps': ...}}}}, from extract_langgraph_trajectory_from_thread); "
            f"{AGENTEVALS_HELP}"
        )
    inputs, results = value.get("inputs"), value.get("results")
    if isinstance(inputs, _SEQUENCES) or isinstance(results, _SEQUENCES):
        which = "inputs" if isinstance(inputs, _SEQUENCES) else "results"
        raise TypeError(
            f"{path} looks like agentevals' GraphTrajectory ({path}.{which} is a list, one entry "
            "per invocation, and each entry of its steps is one invocation's flat node list, not "
            f"a superstep); {AGENTEVALS_HELP}"
        )


def _trajectory(value: object, path: str) -> tuple[Any, Any]:
    if type(value) is dict:
        steps = value.get("steps")
        if type(steps) is list and "outputs" not in value:
            results = value.get("results")
            if type(results) is not list and type(value.get("inputs")) is not list:
                return steps, results
    if isinstance(value, Mapping):
        _refuse_agentevals(value, path)
    if value is None:
        raise ValueError(f"{path} is None; expected a graph trajectory dict")
    if not isinstance(value, Mapping):
        raise TypeError(f"{path} is {describe(value)}; expected a graph trajectory dict")
    if "steps" not in value:
        raise ValueError(f'{path} has no "steps"; expected a list of supersteps')
    steps = value["steps"]
    if not isinstance(steps, _SEQUENCES):
        raise TypeError(f"{path}.steps is {describe(steps)}; expected a list of supersteps")
    return steps, value.get("results")


def check_run(
    value: object, path: str, plain: Sequence[Sequence[str]] | None = None
) -> tuple[Sequence[Sequence[str]], Any, bool]:
    """The steps and results of a run, and whether they equal ``plain`` (a validated reference,
    which spares checking the run)."""
    steps, results = _trajectory(value, path)
    if plain is not None and steps == plain:
        return steps, results, True
    if not set(map(type, steps)) <= _SUPERSTEP_TYPES:
        for index, superstep in enumerate(steps):
            if not isinstance(superstep, _SEQUENCES):
                raise TypeError(
                    f"{path}.steps[{index}] is {describe(superstep)}, expected a list of node names"
                )
    _check_names(steps, path)
    return steps, results, False


def _check_names(supersteps: Sequence[Any], path: str) -> None:
    """Every node name in ``path.steps`` is a str: ``str.join`` checks that at C speed, else we
    find the culprit."""
    try:
        joined = "".join(map("".join, supersteps))
    except TypeError:
        joined = None
    if joined is not None and "__" not in joined:  # no pseudo-node can be among them
        return
    for index, superstep in enumerate(supersteps):
        _check_nodes(superstep, f"{path}.steps[{index}]")


def _check_nodes(nodes: Sequence[object], path: str) -> None:
    for index, name in enumerate(nodes):
        if not isinstance(name, str):
            raise TypeError(f"{path}[{index}] is {describe(name)}, expected a node name (str)")
        if name.rpartition(":")[2] in PSEUDO_NODES:
            raise TypeError(
                f"{path}[{index}] is {name!r}, a LangGraph pseudo-node that agentevals' flat "
                "trajectories list; matchevals runs list only the nodes that ran, so this "
                f"looks like agentevals' format; {AGENTEVALS_HELP}"
            )


def read_reference(value: object, path: str) -> Reference:
    """A reference trajectory read into the reference model (ValueError/TypeError naming the
    bad path).

    >>> read_reference({"steps": [["a"], {"repeat": [["b"]], "max": 2}]}, "r").elements[1].max
    2
    """
    steps, results = _trajectory(value, path)
    _refuse_step_options(value, path)
    if set(map(type, steps)) <= _LIST:
        _check_names(steps, path)
        return Reference(path, results, steps)
    elements: list[Step | Loop[Step]] = []
    for index, item in enumerate(steps):
        item_path = f"{path}.steps[{index}]"
        if isinstance(item, Repeat) or (isinstance(item, Mapping) and "repeat" in item):
            elements.append(_loop(item, item_path))
        else:
            elements.append(_step(item, item_path))
    return Reference(path, results, None, elements)


def _step(item: object, path: str) -> Step:
    """One reference step (a Repeat's own steps are checked for nesting by ``_loop``)."""
    if isinstance(item, ReferenceStep):
        nodes, mode, optional = item.steps, item.match_mode, item.optional
    elif isinstance(item, Mapping):
        _check_keys(item, _STEP_KEYS, path)
        if "steps" not in item:
            raise ValueError(f'{path} has no "steps"; expected a list of node names')
        nodes = item["steps"]
        mode = item.get("match_mode", "unordered")
        optional = item.get("optional", False)
    elif isinstance(item, list):
        nodes, mode, optional = item, "unordered", False
    else:
        raise TypeError(
            f"{path} is {describe(item)}, expected a list of node names, "
            "a ReferenceStep or a Repeat"
        )
    check_step_fields(nodes, mode, optional, path)
    _check_nodes(nodes, f"{path}.steps")
    return Step(nodes, mode, optional, path)


def _loop(item: object, path: str) -> Loop[Step]:
    if isinstance(item, Repeat):
        body, low, high = item.steps, item.min, item.max
    else:
        assert isinstance(item, Mapping)
        _check_keys(item, _REPEAT_KEYS, path)
        body, low, high = item["repeat"], item.get("min", 1), item.get("max")
    check_repeat_fields(body, low, high, path)
    steps = tuple(_step(step, f"{path}.steps[{index}]") for index, step in enumerate(body))
    return Loop(steps, low, high, path)


def _refuse_step_options(reference: Any, path: str) -> None:
    """A step's option beside the reference's ``steps`` (``"match_mode": "exact"`` meant for
    every step, say) is a ValueError: ignored, it would score with the defaults."""
    misplaced = sorted(key for key in _STEP_OPTIONS if key in reference)
    if misplaced:
        they = "it is an option" if len(misplaced) == 1 else "they are options"
        raise ValueError(
            f"{path} has {', '.join(map(repr, misplaced))} beside its steps: {they} of one "
            "step or Repeat, which would be ignored here; write each step as "
            f'{{"steps": [...], "match_mode": "exact"}} in {path}.steps'
        )


def _check_keys(item: Mapping[Any, Any], allowed: frozenset[str], path: str) -> None:
    unknown = sorted(str(key) for key in item if key not in allowed)
    if unknown:
        raise ValueError(f"{path} has unknown keys {unknown}; expected only {sorted(allowed)}")
