"""The documentation site builds with ``mkdocs build --strict`` (no broken link or anchor, no
missing reference, no page outside the navigation), documents every public module, and the
README stays a short front page whose links lead somewhere."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from tests.docs.pages import DOCS, README, ROOT, pages

pytestmark = pytest.mark.docs
SOURCE = ROOT / "src" / "matchevals"
PUBLIC_MODULES = sorted(  # every module and package without a leading underscore
    ".".join(("matchevals", *path.relative_to(SOURCE).with_suffix("").parts[:-1]))
    if path.name == "__init__.py"
    else ".".join(("matchevals", *path.relative_to(SOURCE).with_suffix("").parts))
    for path in SOURCE.rglob("*.py")
    if not any(part.startswith("_") for part in path.relative_to(SOURCE).parts[:-1])
    and (path.name == "__init__.py" or not path.name.startswith("_"))
    and path.parent != SOURCE / "cli"
    and path != SOURCE / "__init__.py"
)
# what a user reads says what the library does, not how it was built
BUILD_HISTORY = re.compile(r"\bissue\s+\d|\bissue's\b|\bseed article|\bthe seed\b", re.I)


def test_the_site_builds_strictly(built_site: Path) -> None:
    assert (built_site / "index.html").is_file()
    for guide in (DOCS / "guides").glob("*.md"):
        assert (built_site / "guides" / guide.stem / "index.html").is_file(), guide.name


def test_every_public_module_has_an_api_reference(built_site: Path) -> None:
    reference = "".join(
        path.read_text(encoding="utf-8") for path in (DOCS / "reference").glob("*.md")
    )
    documented = set(re.findall(r"^::: ([\w.]+)", reference, flags=re.M))
    assert documented == set(PUBLIC_MODULES)
    page = (built_site / "reference" / "json_match" / "index.html").read_text(encoding="utf-8")
    assert "create_json_match_evaluator" in page
    assert '<span class="gp">&gt;&gt;&gt; </span>' in page  # doctests as highlighted code
    assert "<blockquote>" not in page  # not as Markdown quotes


def test_the_readme_is_a_short_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    commands = re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)
    assert [command.strip() for command in commands[:2]] == [
        "pip install -e . && matchevals demo",
        'pip install -e ".[dev]" && python -m pytest',
    ]


def test_the_readme_links_to_files_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [target for target in targets if "://" not in target]
    assert local, "the README links to the documentation"
    assert [target for target in local if not (ROOT / target).exists()] == []
    linked_pages = {str((ROOT / target).resolve()) for target in local}
    for guide in (DOCS / "guides").glob("*.md"):
        assert str(guide.resolve()) in linked_pages, f"the README does not link {guide.name}"


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_user_pages_say_what_the_library_does(page: Path) -> None:
    assert BUILD_HISTORY.findall(page.read_text(encoding="utf-8")) == []


def test_doctest_docstrings_become_markdown() -> None:
    spec = importlib.util.spec_from_file_location(
        "griffe_doctests", DOCS / "hooks" / "griffe_doctests.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("griffe_doctests", module)
    spec.loader.exec_module(module)
    docstring = (
        "Pairs items, see :func:`~matchevals.json_match.create_json_match_evaluator`.\n\n"
        '>>> evaluator(outputs=[1], reference_outputs=[1])[0]["score"]  # doctest: +SKIP\n'
        "1\n\n"
        "* a list item, with forms::\n\n"
        "      assert result['score']\n\n"
        "After."
    )
    assert module.to_markdown(docstring).splitlines() == [
        "Pairs items, see ``matchevals.json_match.create_json_match_evaluator``.",
        "",
        "",
        "```pycon",
        '>>> evaluator(outputs=[1], reference_outputs=[1])[0]["score"]',
        "1",
        "```",
        "",
        "",
        "* a list item, with forms:",
        "",
        "  ```text",
        "  assert result['score']",
        "  ```",
        "",
        "",
        "After.",
    ]
