"""The built site opened in headless Chromium (``tests/browser.py``): the home page and a guide
render with their navigation and code, with no console error, and their screenshots are kept as
test artifacts. The screenshot shown in the HTML reports guide is taken here too, from the
report that guide's example writes; ``MATCHEVALS_UPDATE_DOCS_IMAGES=1`` saves it into
``docs/images/``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.browser import save_screenshot, until
from tests.docs.pages import DOCS, examples

pytestmark = pytest.mark.docs
REPORT_IMAGE = DOCS / "images" / "html-report.png"


def open_page(browser: Any, path: Path) -> list[Any]:
    """Open ``path`` and wait for Material's script; return the console's errors."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(path.as_uri())
    until(lambda: browser.find_elements("css selector", "nav.md-nav"), "the navigation")
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def test_the_home_page_in_the_browser(
    browser: Any, built_site: Path, tmp_path: Path, record_property: Any
) -> None:
    assert open_page(browser, built_site / "index.html") == []
    title = browser.find_element("css selector", "article h1").text
    assert title == "matchevals"
    links = [link.text for link in browser.find_elements("css selector", "nav.md-nav--primary a")]
    assert "Getting started" in links and "JSON outputs" in links
    assert browser.find_elements("css selector", "article .highlight code")
    save_screenshot(browser, tmp_path / "docs-home.png", record_property)


def test_a_guide_in_the_browser(
    browser: Any, built_site: Path, tmp_path: Path, record_property: Any
) -> None:
    guide = built_site / "guides" / "json-outputs" / "index.html"
    assert open_page(browser, guide) == []
    assert browser.find_element("css selector", "article h1").text == "JSON outputs"
    headings = [h.text for h in browser.find_elements("css selector", "article h2")]
    assert "Nested paths and globs" in headings and "Comparators" in headings
    tables = browser.find_elements("css selector", "article table")
    assert len(tables) >= 2
    save_screenshot(browser, tmp_path / "docs-guide.png", record_property)


def test_the_report_screenshot_of_the_html_reports_guide(
    browser: Any, tmp_path: Path, record_property: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for example in examples(DOCS / "guides" / "html-reports.md"):
        example.evaluate()  # writes report.html, as the guide shows
    browser.get_log("browser")
    browser.get((tmp_path / "report.html").as_uri())
    until(
        lambda: browser.execute_script("return document.documentElement.dataset.ready"),
        "the report's script",
    )
    rows = browser.find_elements("css selector", "tr.example")
    assert len(rows) == 4
    rows[0].click()  # the lowest score first: its differences open below
    until(lambda: browser.find_elements("css selector", "#detail .diff, #detail mark"), "detail")
    browser.execute_script("window.scrollTo(0, 0)")
    shot = save_screenshot(browser, tmp_path / "html-report.png", record_property)
    if os.environ.get("MATCHEVALS_UPDATE_DOCS_IMAGES") == "1":
        shutil.copy(shot, REPORT_IMAGE)
    assert REPORT_IMAGE.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
