"""A graph's runs as text for an LLM judge: agentevals' thread format, or native supersteps.

agentevals' trajectories (``{"results": [...], "steps": [[node, ...], ...]}`` with one flat node
list per invocation, and ``inputs`` beside them) render exactly as agentevals renders them, so
the judge is shown the same thread. Native runs (:class:`GraphRunTrajectory`, one or a list)
render one line per superstep, so the judge sees which nodes ran together; reference steps
(bare lists, :class:`ReferenceStep`, :class:`Repeat`) render in the same way.

>>> print(native_thread({"inputs": {"q": "hi"}, "results": None, "steps": [["a"], ["b", "c"]]}))
Each line "superstep N: ..." lists the nodes that ran together (concurrently) in that superstep.
<BLANKLINE>
<input>
{'q': 'hi'}
</input>
<BLANKLINE>
<trajectory>
superstep 0: a
superstep 1: b, c
</trajectory>
<BLANKLINE>
<result>
None
</result>
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matchevals.graph_trajectory._types import ReferenceStep, Repeat

__all__ = [
    "agentevals_inputs",
    "agentevals_thread",
    "is_agentevals_trajectory",
    "native_thread",
    "reference_text",
]

NOTE = (
    'Each line "superstep N: ..." lists the nodes that ran together (concurrently) in that '
    "superstep.\n"
)


def is_agentevals_trajectory(outputs: Any) -> bool:
    """agentevals' format: one entry of ``results`` per invocation (a list)."""
    return isinstance(outputs, Mapping) and isinstance(outputs.get("results"), list)


def agentevals_thread(inputs: Any, outputs: Mapping[str, Any]) -> str:
    """The thread text agentevals' graph judge shows (input, node list, result per invocation)."""
    text = ""
    for given, result, step in zip(inputs, outputs["results"], outputs["steps"], strict=False):
        text += f"\n<input>\n{given}\n</input>\n" if given else ""
        text += f"\n<trajectory>\n{step}\n</trajectory>\n"
        text += f"\n<result>\n{result}\n</result>\n"
    return text


def agentevals_inputs(inputs: Any, outputs: Mapping[str, Any]) -> Any:
    """``inputs`` checked as agentevals checks them (a list, or a dict with an ``inputs`` list)."""
    if isinstance(inputs, Mapping):
        if "inputs" not in inputs:
            raise ValueError("inputs must be a list or a dict with an 'inputs' key")
        inputs = inputs["inputs"]
    if inputs is None:
        raise ValueError(
            "inputs is None: pass inputs= (the thread's inputs, one per invocation, as "
            "extract_langgraph_trajectory_from_thread returns them)"
        )
    if len(inputs) != len(outputs["results"]):
        raise ValueError(
            "Provided `inputs` and `results` within provided `outputs` must have the same length"
        )
    if len(inputs) != len(outputs["steps"]):
        raise ValueError(
            "Provided `inputs` and `steps` within provided `outputs` must have the same length"
        )
    return inputs


def _runs(value: Any, name: str) -> list[Mapping[str, Any]]:
    runs = [value] if isinstance(value, Mapping) else value
    if not isinstance(runs, Sequence) or isinstance(runs, str):
        raise TypeError(f"{name} is {type(value).__name__}; expected a run or a list of runs")
    for index, run in enumerate(runs):
        steps = run.get("steps") if isinstance(run, Mapping) else None
        if not isinstance(steps, Sequence) or isinstance(steps, str):
            where = name if isinstance(value, Mapping) else f"{name}[{index}]"
            raise TypeError(f"{where} has no 'steps' list: expected a run {{'steps': [[node]]}}")
    return list(runs)


def _step_text(step: Any) -> str:
    if isinstance(step, Repeat):
        upper = "any number of" if step.max is None else str(step.max)
        inner = "; then ".join(_step_text(inner) for inner in step.steps)
        return f"repeated {step.min} to {upper} times: {inner}"
    if isinstance(step, ReferenceStep):
        extra = ", optional" if step.optional else ""
        return f"{', '.join(step.steps)} ({step.match_mode}{extra})"
    return ", ".join(str(node) for node in step)


def native_thread(runs: Any, name: str = "outputs") -> str:
    """Native runs as text, one line per superstep (reference steps and patterns too)."""
    text = NOTE
    for run in _runs(runs, name):
        given = run.get("inputs")
        text += f"\n<input>\n{given}\n</input>\n" if given else ""
        lines = "\n".join(
            f"superstep {index}: {_step_text(step)}" for index, step in enumerate(run["steps"])
        )
        text += f"\n<trajectory>\n{lines}\n</trajectory>\n"
        text += f"\n<result>\n{run.get('results')}\n</result>\n"
    return text


def reference_text(reference: Any, native: bool) -> str:
    """The reference part of the prompt, as agentevals words it ("" without a reference)."""
    if not reference:
        return ""
    if native or not is_agentevals_trajectory(reference):
        thread = native_thread(reference, "reference_outputs")
    else:
        given = reference.get("inputs")
        if not isinstance(given, Sequence) or isinstance(given, str):
            raise ValueError(
                "reference_outputs in agentevals' format needs its 'inputs' list (one per "
                "invocation), as the judge shows each invocation's input"
            )
        thread = agentevals_thread(given, reference)
    return (
        "\nUse the following trajectory as an example reference when grading:\n"
        f"<reference_thread>\n{thread}\n</reference_thread>\n"
    )
