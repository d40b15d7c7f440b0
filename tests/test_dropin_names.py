"""Every name a peer module defines or re-exports from its own package exists in its twin.

"Change the import, keep the code" holds for whole modules: the installed openevals and
agentevals modules are read (their source, to tell what they define or import from their own
package from what they import from elsewhere) and each public name is looked up in the
matchevals module at the matching path.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

TWINS = {
    "openevals.json": "matchevals.json_match",
    "openevals.json.match": "matchevals.json_match.match",
    **{
        f"{peer}.trajectory{suffix}": f"matchevals.trajectory{suffix}"
        for peer in ("openevals", "agentevals")
        for suffix in ("", ".match", ".llm", ".strict", ".unordered", ".subset", ".superset")
    },
    "agentevals.graph_trajectory.strict": "matchevals.graph_trajectory.strict",
    "agentevals.graph_trajectory.utils": "matchevals.graph_trajectory.utils",
    "agentevals.graph_trajectory.llm": "matchevals.graph_trajectory.llm",
}


def peer_public_names(module_name: str) -> set[str]:
    """Public names ``module_name`` defines, or imports from its own package."""
    module = importlib.import_module(module_name)
    package = module_name.split(".")[0]
    tree = ast.parse(Path(inspect.getfile(module)).read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            own = node.level > 0 or (node.module or "").split(".")[0] == package
            if own:
                names.update(alias.asname or alias.name for alias in node.names)
    names.update(getattr(module, "__all__", ()))
    return {name for name in names if not name.startswith("_")}


def test_the_walk_sees_what_the_issue_names() -> None:
    # the oracle of the walk: names known to be in the peers
    assert {"SYSTEM_PROMPT", "USER_PROMPT", "ModelClient", "SimpleEvaluator"} <= (
        peer_public_names("openevals.json.match")
    )
    assert {"ChatCompletionMessage", "ToolArgsMatchOverrides", "trajectory_strict_scorer"} <= (
        peer_public_names("openevals.trajectory.match")
    )
    assert "ExtractedLangGraphThreadTrajectory" in peer_public_names(
        "agentevals.graph_trajectory.utils"
    )
    assert {"FewShotExample", "TRAJECTORY_ACCURACY_PROMPT"} <= peer_public_names(
        "openevals.trajectory.llm"
    )
    assert "GraphTrajectory" in peer_public_names("agentevals.graph_trajectory.llm")


@pytest.mark.parametrize(("peer", "twin"), sorted(TWINS.items()))
def test_the_twin_exports_every_public_name_of_its_peer(peer: str, twin: str) -> None:
    module = importlib.import_module(twin)
    missing = sorted(name for name in peer_public_names(peer) if not hasattr(module, name))
    assert missing == [], f"{twin} lacks {missing} (from {peer})"
    listed = set(getattr(module, "__all__", ()))
    unlisted = sorted(peer_public_names(peer) - listed)
    assert unlisted == [], f"{twin}.__all__ lacks {unlisted}"


@pytest.mark.parametrize(
    ("twin", "name", "peer"),
    [
        ("matchevals.json_match.match", "SYSTEM_PROMPT", "openevals.json.match"),
        ("matchevals.json_match", "USER_PROMPT", "openevals.json"),
        ("matchevals.trajectory.match", "ChatCompletionMessage", "openevals.trajectory.match"),
        ("matchevals.trajectory.llm", "FewShotExample", "agentevals.trajectory.llm"),
        ("matchevals.trajectory.llm", "TRAJECTORY_ACCURACY_PROMPT", "openevals.trajectory.llm"),
        ("matchevals.graph_trajectory.utils", "GraphTrajectory", "agentevals.types"),
        (
            "matchevals.graph_trajectory.llm",
            "DEFAULT_REF_COMPARE_PROMPT",
            "agentevals.graph_trajectory.llm",
        ),
    ],
)
def test_types_and_prompts_are_the_peers_own(twin: str, name: str, peer: str) -> None:
    assert getattr(importlib.import_module(twin), name) is getattr(
        importlib.import_module(peer), name
    )


def test_agentevals_trajectory_prompts_are_the_same_text() -> None:
    import agentevals.trajectory.llm as theirs

    import matchevals.trajectory.llm as ours

    assert ours.TRAJECTORY_ACCURACY_PROMPT == theirs.TRAJECTORY_ACCURACY_PROMPT
    assert (
        ours.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
        == theirs.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
    )


def test_the_scoring_functions_are_matchevals_own() -> None:
    for twin in TWINS.values():
        module = importlib.import_module(twin)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value) and (
                name.startswith("create_") or name.startswith("trajectory_")
            ):
                assert value.__module__.startswith("matchevals"), f"{twin}.{name}"


def test_a_star_import_brings_every_name() -> None:
    namespace: dict[str, object] = {}
    exec("from matchevals.trajectory.superset import *", namespace)
    assert {"trajectory_superset", "trajectory_superset_async", "ToolArgsMatchOverrides"} <= set(
        namespace
    )


def test_an_unknown_name_is_an_attribute_error() -> None:
    import matchevals.json_match.match as twin

    with pytest.raises(AttributeError, match="no attribute 'SYSTEM_PROMPTS'"):
        twin.SYSTEM_PROMPTS  # noqa: B018
