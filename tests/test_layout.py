"""The source stays easy to change: no import cycle (lazy imports included), types at the
bottom, public names that report their public module, ``docs/architecture.md`` listing every
module, and small functions. Files are split by concept, not by size: a file far past
:data:`FILE_LINES_GUIDANCE` is a hint that it holds two concepts, not a failure.

Static checks on the source text (``ast``); nothing here imports more than the public packages.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import matchevals

SOURCE = Path(matchevals.__file__).parent
ROOT = SOURCE.parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
FILE_LINES_GUIDANCE = 400
"""About where a module usually holds more than one concept (guidance, not a rule)."""
MAX_FILE_LINES = 800
"""Beyond this a module surely holds several concepts: split it by concept."""
MAX_FUNCTION_LINES = 60
PUBLIC_MODULES = [
    "matchevals.json_match",
    "matchevals.json_match.comparators",
    "matchevals.graph_trajectory",
    "matchevals.graph_trajectory.langgraph",
    "matchevals.trajectory",
    "matchevals.testing",
    "matchevals.pytest_plugin",
]
SHARED_PUBLIC_NAMES = {("matchevals.trajectory", "Repeat"): "matchevals.graph_trajectory"}
"""Public names one package re-exports from another, keeping their home module: ``Repeat`` is
one class for graph references and turn patterns (one definition, one ``__module__``)."""
TYPE_MODULES = [
    "matchevals._types",
    "matchevals.json_match._types",
    "matchevals.graph_trajectory._types",
    "matchevals.trajectory._types",
]


def _files() -> list[Path]:
    return sorted(SOURCE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in _files()}


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_file_is_far_past_the_guidance() -> None:
    long = {
        str(path.relative_to(SOURCE)): count
        for path in _files()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    }
    assert long == {}


def test_no_function_is_over_60_lines() -> None:
    long = [
        f"{path.relative_to(SOURCE)}:{node.lineno} {node.name} ({length} lines)"
        for path in _files()
        for node in _functions(ast.parse(path.read_text(encoding="utf-8")))
        if (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES  # type: ignore[operator]
    ]
    assert long == []


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import that runs, at module level or inside a function (lazy); not the ones
    under ``if TYPE_CHECKING:``, which never run."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The matchevals modules an import statement runs."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        names = [
            f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names
        ]
    for name in names:
        if name in MODULES:
            yield name


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def import_graph() -> dict[str, set[str]]:
    """module -> the matchevals modules importing it runs (a package's ``__init__`` included
    when the importer is outside that package)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        edges: set[str] = set()
        own = {module, *_ancestors(module)}
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(module, node):
                for runs in (*_ancestors(target), target):
                    if runs not in own and runs in MODULES:
                        edges.add(runs)
        graph[module] = edges
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_import_graph_is_read_correctly() -> None:
    graph = import_graph()
    assert "matchevals.json_match._core" in graph["matchevals.json_match._evaluators"]
    assert "matchevals.json_match._judge" in graph["matchevals.json_match._evaluators"]
    # a lazy import inside a function counts
    assert "matchevals.json_match._value_table" in graph["matchevals.json_match._pairing"]
    # importing a module of another package runs that package's __init__
    assert "matchevals.graph_trajectory" in graph["matchevals.report._model"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_lazy_imports_included() -> None:
    assert _cycle(import_graph()) is None


@pytest.mark.parametrize("module", TYPE_MODULES)
def test_types_sit_at_the_bottom(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    assert [target for node in _imports(tree) for target in _targets(module, node)] == []
    imported_by = [name for name, edges in import_graph().items() if module in edges]
    assert imported_by, f"{module} is imported by nothing"


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_names_report_their_public_module(name: str) -> None:
    module = importlib.import_module(name)
    reported = {
        public: getattr(module, public).__module__
        for public in module.__all__
        if inspect.isfunction(getattr(module, public)) or inspect.isclass(getattr(module, public))
    }
    assert reported, f"{name} exports no function or class"
    shared = set(importlib.import_module("matchevals").__all__)  # AnyOf: one class, one home
    expected = {
        public: SHARED_PUBLIC_NAMES.get((name, public), "matchevals" if public in shared else name)
        for public in reported
    }
    assert reported == expected


def test_create_json_match_evaluator_reports_matchevals_json_match() -> None:
    from matchevals.json_match import create_json_match_evaluator

    assert create_json_match_evaluator.__module__ == "matchevals.json_match"


def test_trajectory_match_is_the_same_functions_under_openevals_path() -> None:
    import matchevals.trajectory
    import matchevals.trajectory.match

    for name in ("create_trajectory_match_evaluator", "create_async_trajectory_match_evaluator"):
        function = getattr(matchevals.trajectory.match, name)
        assert function is getattr(matchevals.trajectory, name)
        assert function.__module__ == "matchevals.trajectory"


def _listed_paths(text: str) -> set[str]:
    return set(re.findall(r"`((?:[\w]+/)*[\w]+\.py)`", text))


def test_architecture_lists_every_module_and_nothing_else() -> None:
    listed = _listed_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    files = {str(path.relative_to(SOURCE)) for path in _files()}
    assert sorted(files - listed) == [], "modules missing from docs/architecture.md"
    assert sorted(listed - files) == [], "docs/architecture.md lists modules that do not exist"
