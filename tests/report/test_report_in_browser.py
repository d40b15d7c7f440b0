"""The HTML report opened in a real headless Chromium (Debian's ``chromium``, driven through
Debian's ``chromedriver`` by selenium; ``.ci/run`` installs both): it loads with no console
errors, the counts it shows equal the run's, filtering and sorting work, the differing paths of
a chosen example are highlighted on both sides, graph runs are drawn as swimlanes, and a
100,000-example page opens.

Each test saves a screenshot beside its page in its pytest temporary folder
(``/tmp/pytest-of-$USER/pytest-current/<test name>0/``, pytest keeps the last three runs), and
also in ``$MATCHEVALS_TEST_ARTIFACTS`` when that is set (CI collects that folder); the browser
and the screenshots come from ``tests/browser.py``.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from matchevals.report import write_html_report
from tests.browser import save_screenshot, until
from tests.report.runs import Run, graph_run, hundred_thousand, json_run


class Page:
    """One report open in the browser."""

    def __init__(self, driver: Any, path: Path) -> None:
        self.driver, self.path = driver, path
        driver.get_log("browser")  # drop what earlier pages logged
        started = time.perf_counter()
        driver.get(path.as_uri())
        until(lambda: self.attribute("html", "data-ready") == "true", "the page's script")
        self.seconds = time.perf_counter() - started
        self.log = driver.get_log("browser")

    def find(self, css: str) -> Any:
        return self.driver.find_element("css selector", css)

    def all(self, css: str) -> list[Any]:
        return list(self.driver.find_elements("css selector", css))

    def attribute(self, css: str, name: str) -> str | None:
        found = self.all(css)
        return found[0].get_attribute(name) if found else None

    def text(self, css: str) -> str:
        return str(self.find(css).text)

    def count(self) -> int:
        """How many examples the table says match its filters."""
        return int(self.attribute("#match-count", "data-count") or -1)

    def column(self, css: str) -> list[str]:
        return [cell.text for cell in self.all(f"#examples tbody tr.example {css}")]

    def scores(self) -> list[float]:
        return [float(row.get_attribute("data-score")) for row in self.all("tr.example")]

    def filter(self, text: str, expected: int) -> None:
        box = self.find("#filter")
        box.clear()
        if text:
            box.send_keys(text)
        else:  # clear() fires no input event
            self.driver.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
        until(lambda: self.count() == expected, f"{expected} rows for {text!r}")

    def errors(self) -> list[Any]:
        """Console errors (uncaught exceptions, refused loads, console.error)."""
        return [entry for entry in self.log if entry["level"] == "SEVERE"]

    def screenshot(self, name: str, record_property: Any) -> Path:
        return save_screenshot(self.driver, self.path.with_name(name), record_property)


def fmt(value: float) -> str:
    """A score as the page prints it (4 significant digits, no trailing zeros)."""
    return f"{float(f'{value:.4g}'):g}"


@pytest.fixture(scope="module")
def people(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return json_run(tmp_path_factory.mktemp("people"))


def test_a_json_run_in_the_browser(
    browser: Any, people: Run, tmp_path: Path, record_property: Any
) -> None:
    summary, lines = people.summary(), people.lines()
    scores = [line["score"] for line in lines]
    path = tmp_path / "people.html"
    shutil.copy(people.page(), path)
    page = Page(browser, path)
    assert page.errors() == []

    # the counts equal the run's
    assert page.text("#count-scored") == str(summary["examples_scored"]) == "60"
    assert page.text("#count-invalid") == "0"
    assert page.text("#mean-score") == fmt(summary["mean_score"])
    assert page.text("#verdict") == "FAILED (fail-under 0.9)"
    assert page.text("#failed-because") == summary["failed_because"][0]
    bars = {
        int(bar.get_attribute("data-bin")): int(bar.get_attribute("data-count"))
        for bar in page.all("#histogram rect.bar")
    }
    assert bars == {b: sum(min(10, int(score * 10)) == b for score in scores) for b in range(11)}
    assert page.count() == 60 and len(page.all("tr.example")) == 50  # a page of 50
    assert page.text("#page-info") == "page 1 of 2"
    per_key = {
        row.get_attribute("data-key"): row.find_elements("css selector", "td")[2].text
        for row in page.all("#keys tr[data-key]")
    }
    assert per_key == {key: fmt(entry["mean"]) for key, entry in summary["per_key"].items()}

    # sorting: by score (lowest first, as it opens), then highest first, then by id
    assert page.scores() == sorted(scores)[:50]
    page.find("th[data-sort=score]").click()
    assert page.scores() == sorted(scores, reverse=True)[:50]
    page.find("th[data-sort=id]").click()
    assert page.column("td.mono") == [f"p-{i:02}" for i in range(50)]
    page.find("#page-next").click()
    assert page.column("td.mono") == [f"p-{i:02}" for i in range(50, 60)]

    # filtering: by text, to failing examples, by a histogram bar
    page.filter("p-08", 1)
    assert page.column("td.mono") == ["p-08"]
    page.filter("Lyon", sum(line["outputs"]["address"]["city"] == "Lyon" for line in lines))
    page.filter("", 60)
    page.find("#only-failing").click()
    until(lambda: page.count() == sum(score < 1 for score in scores), "only failing examples")
    page.find("#only-failing").click()
    page.find("#histogram rect[data-bin='10']").click()
    until(lambda: page.count() == scores.count(1.0), "the examples scoring 1")
    assert set(page.scores()) == {1.0}
    page.find("#bin-filter").click()
    until(lambda: page.count() == 60, "the bar's filter cleared")

    # a chosen example: its differing path is highlighted on both sides
    chosen = next(line for line in lines if line["id"] == "p-08")  # its city is Lyon
    page.filter("p-08", 1)
    page.find("tr.example").click()
    until(lambda: page.attribute("#detail", "data-index") == str(chosen["index"]), "its detail")
    city = '["address","city"]'
    for side, value in (("#side-expected", '"Paris"'), ("#side-actual", '"Lyon"')):
        marked = page.all(f"{side} .node.diff")
        assert [node.get_attribute("data-path") for node in marked] == [city], side
        assert value in marked[0].text
        colour = marked[0].value_of_css_property("background-color")
        assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour  # it shows
    rows = page.all("#differences tr.difference")
    assert [row.text.split()[:3] for row in rows] == [
        ["json_match:address.city", "address.city", "address.city"]
    ]
    browser.execute_script("document.getElementById('detail').scrollIntoView()")
    page.screenshot("people.png", record_property)
    assert page.errors() == [] and browser.get_log("browser") == []


def test_a_graph_run_draws_swimlanes(browser: Any, tmp_path: Path, record_property: Any) -> None:
    graphs = graph_run(tmp_path)
    lines = graphs.lines()
    page = Page(browser, graphs.page("graph.html"))
    assert page.errors() == []
    assert page.text("#count-scored") == "3"
    unchecked = {
        row.get_attribute("data-key"): row.find_elements("css selector", "td")[4].text
        for row in page.all("#supersteps tr[data-key]")
    }
    assert unchecked == {"superstep 0": "0", "superstep 1": "0", "superstep 2": "1",
                         "superstep 3": "1", "superstep 4": "0"}  # fmt: skip
    page.find("tr.example[data-index='1']").click()
    until(lambda: page.attribute("#detail", "data-index") == "1", "run t-1's detail")
    lane = page.find(".lane")
    rows = lane.find_elements("css selector", "tr")
    kinds = [row.get_attribute("class") for row in rows]
    assert kinds.index("reference") + 1 == kinds.index("run")  # reference above run
    diverged = lines[1]["results"][0]["metadata"]["runs"][0]["divergence"]["superstep"]
    marked = lane.find_elements("css selector", "td.divergence")
    assert {cell.get_attribute("data-superstep") for cell in marked} == {str(diverged)}
    assert "first divergence" in lane.text
    reference_cells = lane.find_elements("css selector", "tr.reference td")
    assert [
        (
            [chip.text for chip in cell.find_elements("css selector", ".node-chip")],
            cell.find_element("css selector", ".mode").text,
        )
        for cell in reference_cells[:2]
    ] == [(["plan"], "exact"), (["tools"], "unordered")]  # the mode of each superstep
    run_cells = lane.find_elements("css selector", "tr.run td")
    assert [cell.get_attribute("data-verdict") for cell in run_cells] == [
        "match", "mismatch", "unchecked", "unchecked",
    ]  # fmt: skip
    highlighted = page.all("#side-actual .node.diff")
    assert [node.get_attribute("data-path") for node in highlighted] == ['["steps",1]']
    page.screenshot("graph.png", record_property)


def test_a_hundred_thousand_examples_open(
    browser: Any, tmp_path: Path, record_property: Any
) -> None:
    path = write_html_report(hundred_thousand(), tmp_path / "big.html", title="100,000")
    page = Page(browser, path)
    print(f"100,000 examples: {path.stat().st_size:,} bytes, ready in {page.seconds:.1f} s")
    assert page.errors() == []
    assert page.text("#count-scored") == "100000"
    assert page.text("#count-details") == "1000"
    assert page.count() == 100_000
    page.filter("ex-99998", 1)  # not among the worst: no details, its reason still there
    page.find("tr.example").click()
    until(lambda: page.all("#no-detail"), "the note that it has no details")
    assert "lowest-scoring examples only" in page.text("#no-detail")
    page.filter("ex-3", 1 + 10 + 100 + 1000 + 10000)  # ex-3, ex-30..39, ex-300..399, ...
    page.screenshot("big.png", record_property)
