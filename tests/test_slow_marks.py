"""The `slow` list stays true: every entry names a test file (or folder) and test functions that exist, so
a renamed test cannot silently drop back into the quick loop, and the marker is registered."""

from __future__ import annotations

import ast
import tomllib

import pytest
from slow_tests import SLOW, TESTS, selector_parts

ROOT = TESTS.parent


def test_the_marker_is_registered() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    assert any(marker.startswith("slow:") for marker in markers)


@pytest.mark.parametrize("place", sorted(SLOW))
def test_every_listed_place_and_test_exists(place: str) -> None:
    path = TESTS / place
    assert path.is_dir() if place.endswith("/") else path.is_file(), f"tests/{place} does not exist"
    selectors = SLOW[place]
    if selectors is None:
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    missing = [selector for selector in selectors if selector_parts(selector)[0] not in defined]
    assert missing == [], f"tests/{place} has no such tests"
