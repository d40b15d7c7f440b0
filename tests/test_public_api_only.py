"""matchevals uses only public APIs of its dependencies, but for one guarded function.

The scan below looks at every module under ``src/``: imports of a private module or name of
another package (``_pytest``, ``langsmith._internal``, ``from x import _y``), private module
paths in strings (``importlib.import_module("a._b")``), ``getattr(x, "_name")`` and attribute
reads such as ``module._NAME`` on something that is not ``self``/``cls``. The only place allowed
to do any of it are ``matchevals._langsmith.tracing_check``, which falls back to the public API,
and ``matchevals.cli._engine._release_results``, which does nothing where the executor's result
pipe is not where it looks.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from langsmith.run_helpers import tracing_context
from langsmith.utils import get_env_var, tracing_is_enabled

import matchevals
from matchevals import _langsmith
from tests.langsmith_offline import run_traced

SOURCE = Path(matchevals.__file__).parent
ALLOWED = {
    ("_langsmith.py", "tracing_check"),
    ("_langsmith.py", "check"),
    ("cli/_engine.py", "_release_results"),
}
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}  # documented
PRIVATE_PATH = re.compile(r"^[A-Za-z_][\w]*(\.\w+)*$")


def _private_part(dotted: str) -> bool:
    return any(
        part.startswith("_") and not part.endswith("__") and part not in NAMEDTUPLE_API
        for part in dotted.split(".")
    )


def _private_uses(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """(line, enclosing function, what) for every private use of another package."""

    def visit(node: ast.AST, function: str) -> Iterator[tuple[int, str, str]]:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            yield from check(child, name)
            yield from visit(child, name)

    def check(node: ast.AST, function: str) -> Iterator[tuple[int, str, str]]:
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not alias.name.startswith("matchevals") and _private_part(alias.name):
                    yield line, function, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("matchevals") or node.module == "__future__":
                return
            if _private_part(node.module):
                yield line, function, f"from {node.module} import ..."
            for alias in node.names:
                if _private_part(alias.name):
                    yield line, function, f"from {node.module} import {alias.name}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if "." in text and PRIVATE_PATH.match(text) and _private_part(text):
                yield from [] if text.startswith("matchevals") else [(line, function, repr(text))]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
            if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                attribute = str(node.args[1].value)
                if _private_part(attribute):
                    yield line, function, f"getattr(..., {attribute!r})"
        elif isinstance(node, ast.Attribute) and _private_part(node.attr):
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else None
            if name is None or not (name in ("self", "cls") or name.startswith("_")):
                yield line, function, f"the attribute {ast.unparse(node)}"

    yield from visit(tree, "<module>")


def _own_private_names() -> set[str]:
    """Private names matchevals defines itself: using those is fine."""
    names: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.alias):
                names.add(node.asname or node.name.split(".")[-1])
        names.update(p.stem for p in SOURCE.rglob("_*.py"))
    return names


def test_no_module_uses_a_private_name_of_another_package_outside_the_guarded_place() -> None:
    own = _own_private_names()
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        for line, function, what in _private_uses(ast.parse(path.read_text())):
            if (relative, function) in ALLOWED:
                continue
            attribute = what.removeprefix("the attribute ").rsplit(".", 1)[-1]
            if what.startswith("the attribute") and attribute in own:
                continue  # one of matchevals' own private names, reached through a module
            found.append(f"{relative}:{line} ({function}): {what}")
    assert found == []


def test_the_scan_finds_what_it_looks_for() -> None:
    source = (
        "from _pytest.assertion.util import assertrepr_compare\n"
        "from langsmith.testing._internal import _TEST_CASE\n"
        "import langsmith._internal._context\n"
        "def f(m):\n"
        "    importlib.import_module('langsmith._internal._context')\n"
        "    return getattr(m, '_TRACING_ENABLED'), m._GLOBAL\n"
    )
    whats = [what for _, _, what in _private_uses(ast.parse(source))]
    assert whats == [
        "from _pytest.assertion.util import ...",
        "from langsmith.testing._internal import ...",
        "from langsmith.testing._internal import _TEST_CASE",
        "import langsmith._internal._context",
        "'langsmith._internal._context'",
        "getattr(..., '_TRACING_ENABLED')",
        "the attribute m._GLOBAL",
    ]


# -- the guarded function and its fallback --------------------------------------------------


@contextlib.contextmanager
def _environment(value: str | None) -> Iterator[None]:
    saved = os.environ.get("LANGSMITH_TRACING")
    if value is None:
        os.environ.pop("LANGSMITH_TRACING", None)
    else:
        os.environ["LANGSMITH_TRACING"] = value
    get_env_var.cache_clear()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("LANGSMITH_TRACING", None)
        else:
            os.environ["LANGSMITH_TRACING"] = saved
        get_env_var.cache_clear()


STATES = [
    (env, context) for env in (None, "true", "false") for context in (None, True, False, "local")
]


@pytest.mark.parametrize(("env", "context"), STATES)
def test_fast_check_and_fallback_agree_with_tracing_is_enabled(
    env: str | None, context: bool | str | None
) -> None:
    fast = _langsmith.tracing_check()
    fallback = _langsmith.tracing_check("langsmith.no_such_module")
    assert fallback is _langsmith._public_tracing_check
    with _environment(env), tracing_context(enabled=context):
        expected = bool(tracing_is_enabled())
        assert fast() is expected
        assert fallback() is expected


def test_the_fast_check_is_used_where_langsmith_has_its_context_module() -> None:
    _langsmith.langsmith_active()  # built on first use
    try:
        import langsmith._internal._context  # noqa: F401  # a test may look; src/ may not
    except ImportError:  # older langsmith (0.3.45) has none: the public check is all there is
        assert _langsmith.langsmith_active is _langsmith._public_tracing_check
    else:
        assert _langsmith.langsmith_active is not _langsmith._public_tracing_check


def test_inside_a_traced_run_both_checks_see_tracing() -> None:
    seen: list[tuple[bool, bool]] = []
    fast, fallback = _langsmith.tracing_check(), _langsmith.tracing_check("json")
    assert fallback is _langsmith._public_tracing_check  # json has no such names
    run_traced(lambda: seen.append((fast(), fallback())))
    assert seen == [(True, True)]


def test_the_adapter_works_with_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the private names gone, the adapter decides through the public API and still traces."""
    monkeypatch.setattr(_langsmith, "langsmith_active", _langsmith.tracing_check("gone"))
    from matchevals.graph_trajectory import create_graph_trajectory_rules_evaluator

    evaluator = create_graph_trajectory_rules_evaluator(forbidden=["b"])
    run = {"steps": [["a"], ["b"]]}
    with tracing_context(enabled=False):
        untraced = evaluator(outputs=run)
    parent = run_traced(lambda: evaluator(outputs=run))
    assert untraced[0]["score"] is False
    assert [child.name for child in parent.child_runs] == ["graph_trajectory_rules"]
    assert parent.child_runs[0].inputs == {"outputs": run}
    assert parent.child_runs[0].outputs == {"output": untraced}
