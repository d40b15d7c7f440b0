"""Every example of the README and of the site runs, page by page, in order, and shows what it
prints (see ``tests/docs/pages.py`` for how each kind of block runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.pages import README, examples, fence_languages, page_id, pages, skips

pytestmark = pytest.mark.docs
RUN = {"python", "console"}
SHOWN_ONLY = {"text", "json", "jsonl", "toml", "yaml"}
MAX_SKIPPED = 3


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_the_examples_of_the_page_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    monkeypatch.syspath_prepend(str(tmp_path))  # and modules they write are importable
    for example in examples(page):
        example.evaluate()


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_code_is_in_blocks_that_run(page: Path) -> None:
    """Python and shell appear only in blocks that run (or that a titled fence writes as a
    file); the README's two ``bash`` commands are run by CI and the fresh-clone test."""
    text = page.read_text(encoding="utf-8")
    titled = text.count(' title="')
    languages = [language for language in fence_languages(page) if language]
    allowed = RUN | SHOWN_ONLY | ({"bash"} if page == README else set())
    assert [language for language in languages if language not in allowed] == []
    assert titled <= len(languages)


def test_few_blocks_are_left_unrun() -> None:
    skipped = {page_id(page): count for page in pages() if (count := skips(page))}
    assert sum(skipped.values()) <= MAX_SKIPPED, skipped
