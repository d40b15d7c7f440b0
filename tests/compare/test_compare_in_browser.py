"""The comparison page opened in a real headless Chromium (``tests/browser.py``): it loads with
no console errors, shows the numbers the JSON comparison holds, lists regressions first (the
biggest first), and shows a chosen example's two runs side by side: what newly fails, each run's
differences located in its outputs, graph runs as swimlanes; repeated trials' pass^k.

Each test saves a screenshot beside its page (see ``tests/browser.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browser import save_screenshot, until
from tests.cli.helpers import run, write_jsonl
from tests.compare.helpers import person, save_run, scored


class Page:
    """One comparison page open in the browser."""

    def __init__(self, driver: Any, path: Path) -> None:
        self.driver = driver
        driver.get_log("browser")
        driver.get(path.as_uri())
        until(lambda: self.attribute("html", "data-ready") == "true", "the page's script")
        self.log = driver.get_log("browser")

    def all(self, css: str) -> list[Any]:
        return list(self.driver.find_elements("css selector", css))

    def text(self, css: str) -> str:
        return str(self.driver.find_element("css selector", css).text)

    def attribute(self, css: str, name: str) -> str | None:
        found = self.all(css)
        return found[0].get_attribute(name) if found else None

    def errors(self) -> list[Any]:
        return [entry for entry in self.log if entry["level"] == "SEVERE"]


def _html_and_json(base: Path, new: Path, target: Path, *flags: str) -> dict[str, Any]:
    completed = run("compare", base, new, "--format", "html", "-o", target, *flags)
    assert completed.returncode in (0, 1), completed.stderr
    as_json = run("compare", base, new, "--format", "json", *flags)
    document: dict[str, Any] = json.loads(as_json.stdout)
    return document


def test_a_comparison_regressions_first_both_runs_side_by_side(
    browser: Any, tmp_path: Path, record_property: Any
) -> None:
    base = [person(f"p{i}", *(["city"] if i in (3, 4) else [])) for i in range(12)]
    new = [person(f"p{i}", *{0: ["age", "city"], 1: ["name"], 2: ["age"], 3: []}.get(i, []))
           for i in range(12)]  # fmt: skip
    document = _html_and_json(save_run(tmp_path / "base.jsonl", base),
                              save_run(tmp_path / "new.jsonl", new), tmp_path / "c.html",
                              "--fail-on-regression")  # fmt: skip
    comparison = document["comparison"]
    page = Page(browser, tmp_path / "c.html")
    assert page.errors() == []

    # the numbers are the JSON comparison's
    counts = comparison["counts"]
    for name in ("regressed", "improved", "unchanged", "added", "removed"):
        assert page.text(f"#count-{name}") == str(counts[name]), name
    assert page.text("#count-paired") == str(comparison["paired"]) == "12"
    assert page.text("#verdict") == ("passed" if document["passed"] else "FAILED")
    assert page.text("#headline").startswith(("WORSE", "better", "no significant difference"))
    assert page.text("#mcnemar") == f"{comparison['pass_fail']['p_value']:.3g}"
    deltas = {row.get_attribute("data-key"): row.find_elements("css selector", "td")[3].text
              for row in page.all("#key-deltas tr[data-key]")}  # fmt: skip
    assert deltas == {"json_match:age": "-0.1667", "json_match:city": "+0.08333",
                      "json_match:name": "-0.08333"}  # fmt: skip

    # regressions first, the biggest first, then improvements
    rows = page.all("#changes tr.change")
    order = [(row.get_attribute("data-verdict"), row.get_attribute("data-id")) for row in rows]
    expected = [("regressed", c["id"]) for c in comparison["regressions"]]
    expected += [("improved", c["id"]) for c in comparison["improvements"]]
    assert order == expected
    assert order[0] == ("regressed", "p0") and {v for v, _ in order[-1:]} == {"improved"}
    assert rows[0].get_attribute("class").split().count("selected") == 1

    # the chosen regression: what newly fails, each run's differences side by side
    until(lambda: page.attribute("#detail", "data-id") == "p0", "the biggest regression")
    newly = [item.text for item in page.all("#newly-failing li")]
    assert newly == ["JSON age", "JSON city"]
    assert page.all("#side-base #differences-base") == []  # the base run matched
    new_rows = page.all("#differences-new tr.difference")
    assert sorted(row.text.split()[0] for row in new_rows) == ["json_match:age", "json_match:city"]
    marked = [node.get_attribute("data-path") for node in page.all("#side-new .node.diff")]
    assert sorted(marked) == ['["age"]', '["city"]']
    assert page.all("#side-base .node.diff") == []

    # an improvement: what now passes, and its base run's difference
    improved = next(row for row in page.all("#changes tr.change")
                    if row.get_attribute("data-verdict") == "improved")  # fmt: skip
    improved.click()
    until(lambda: page.attribute("#detail", "data-id") == "p3", "the improvement's detail")
    assert [item.text for item in page.all("#now-passing li")] == ["JSON city"]
    assert len(page.all("#differences-base tr.difference")) == 1

    # the filter
    box = browser.find_element("css selector", "#filter")
    box.send_keys("name")
    until(lambda: page.attribute("#match-count", "data-count") == "1", "one change about name")
    browser.execute_script("window.scrollTo(0, 0)")
    save_screenshot(browser, tmp_path / "comparison.png", record_property)
    assert browser.get_log("browser") == []


def test_graph_runs_compare_superstep_by_superstep(
    browser: Any, tmp_path: Path, record_property: Any
) -> None:
    reference = {"steps": [["plan"], ["search"], ["write"]]}
    (tmp_path / "reference.json").write_text(json.dumps(reference))
    saved = {}
    for name, second in (("base", "search"), ("new", "browse")):
        write_jsonl(tmp_path / f"{name}_runs.jsonl",
                    [{"id": "t-0", "steps": [["plan"], [second], ["write"]]},
                     {"id": "t-1", "steps": [["plan"], ["search"], ["write"]]}])  # fmt: skip
        saved[name] = tmp_path / f"{name}.jsonl"
        completed = run("graph", tmp_path / f"{name}_runs.jsonl", tmp_path / "reference.json",
                        "--id-key", "id", "--partial-credit", "--format", "jsonl", "-o",
                        saved[name])  # fmt: skip
        assert completed.returncode == 0, completed.stderr
    document = _html_and_json(saved["base"], saved["new"], tmp_path / "graph.html")
    assert document["comparison"]["regressions"][0]["newly_failing"] == {
        "supersteps": ["superstep 1"]
    }
    page = Page(browser, tmp_path / "graph.html")
    assert page.errors() == []
    until(lambda: page.attribute("#detail", "data-id") == "t-0", "t-0's detail")
    assert [item.text for item in page.all("#newly-failing li")] == ["supersteps superstep 1"]
    for side, verdicts in (("base", ["match"] * 3), ("new", ["match", "mismatch", "match"])):
        cells = page.all(f"#side-{side} .lane tr.run td")
        assert [cell.get_attribute("data-verdict") for cell in cells] == verdicts, side
    chips = [chip.text for chip in page.all("#side-new .lane tr.run td .node-chip")]
    assert chips == ["plan", "browse", "write"]
    save_screenshot(browser, tmp_path / "graph-comparison.png", record_property)


def test_repeated_trials_show_pass_hat_k(browser: Any, tmp_path: Path) -> None:
    base = save_run(tmp_path / "base.jsonl", [scored(i, 1) for i in range(3)])
    new = tmp_path / "new.jsonl"
    for trial in range(3):
        save_run(new, [scored(i, 0 if i == trial == 0 else 1) for i in range(3)], append=trial > 0)
    document = _html_and_json(base, new, tmp_path / "trials.html")
    page = Page(browser, tmp_path / "trials.html")
    assert page.errors() == []
    rows = {
        row.get_attribute("data-k"): [cell.text for cell in row.find_elements("css selector", "td")]
        for row in page.all("#trials tr[data-k]")
    }
    repeated = document["comparison"]["repeated"]["new"]
    assert list(rows) == ["1", "2", "3"]
    assert rows["3"] == ["3", "—", "—", f"{repeated['pass_at_k']['3']:g}",
                         f"{repeated['pass_hat_k']['3']:.4g}"]  # fmt: skip
    assert rows["3"][4] == "0.6667"  # two of three examples pass all three trials
