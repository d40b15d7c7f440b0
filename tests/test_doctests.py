"""The examples in the public docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import matchevals

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(matchevals.__path__, prefix="matchevals.")
    if not info.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failed == 0, f"{failed} docstring example(s) of {name} failed"


def test_the_public_modules_have_docstring_examples() -> None:
    attempted = 0
    for name in MODULES:
        finder_results = doctest.testmod(importlib.import_module(name), report=False)
        attempted += finder_results.attempted
    assert attempted >= 30
