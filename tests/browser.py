"""Headless Chromium for the tests that look at pages: Debian's ``chromium``, driven through
Debian's ``chromedriver`` by selenium (in the ``dev`` extra; ``.ci/run`` apt-installs both).

The ``browser`` fixture (``tests/conftest.py``) opens one per test module with a fresh profile;
without Chromium, chromedriver or selenium it skips, except under CI (``CI`` set), where it
fails. :func:`save_screenshot` keeps what a test looked at: beside the page in the test's
temporary folder, recorded as a JUnit property, and copied to ``$MATCHEVALS_TEST_ARTIFACTS``
when that is set (CI collects that folder).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",  # we run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1600",
)
WAIT = 60.0


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for name, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)):
        if not os.access(path, os.X_OK):
            return f"{name} is not installed (apt-get install chromium chromium-driver)"
    return None


def open_browser(profile: Path) -> Iterator[Any]:
    """A headless Chromium with a fresh profile in ``profile``, quit when the caller is done."""
    missing = _missing()
    if missing and os.environ.get("CI"):
        pytest.fail(f"the browser tests must run in CI: {missing}")
    if missing:
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver's path given, Selenium Manager is skipped (it would download one otherwise);
    # SE_OFFLINE keeps it offline should a selenium version consult it anyway.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def until(condition: Any, what: str, timeout: float = WAIT) -> Any:
    """Poll ``condition()`` until it is truthy; fail saying ``what`` did not happen."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def save_screenshot(driver: Any, target: Path, record_property: Any) -> Path:
    """What the browser shows, as ``target`` (a PNG), kept as a test artifact."""
    driver.save_screenshot(str(target))
    assert target.stat().st_size > 10_000  # a picture, not an empty frame
    shared = os.environ.get("MATCHEVALS_TEST_ARTIFACTS")
    if shared:
        Path(shared).mkdir(parents=True, exist_ok=True)
        shutil.copy(target, Path(shared) / target.name)
    record_property("screenshot", str(target))
    print(f"screenshot: {target}")
    return target
