"""Shared pytest setup: litellm kept offline (its bundled cost map), output laid out as on a pipe whatever
width the shell or a test runner set, a hypothesis profile without deadlines,
the rule that CI must have the τ²-bench conformance data, the `slow` marks, and the mock suite file the CLI
tests run."""

import os
from pathlib import Path

import pytest
from hypothesis import settings
from slow_tests import is_slow

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
for width in ("COLUMNS", "TERMINAL_WIDTH"):  # tests that want a width give it; pytest-xdist sets COLUMNS
    os.environ.pop(width, None)

settings.register_profile("tau2", deadline=None)
settings.load_profile("tau2")
"""A loaded machine (two cores shared with a CI build) must not turn a slow example into a failure."""

SHARED_CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
"""The public τ²-bench data beside the repository; tests that need it skip without it, except on CI."""


def pytest_sessionstart(session: pytest.Session) -> None:
    """On CI (CI=true) the conformance data must be present: its absence fails the run instead of
    silently skipping every reference-data test."""
    if os.environ.get("CI") == "true" and not SHARED_CONFORMANCE.is_dir():
        pytest.exit(f"CI=true but the conformance data is missing: {SHARED_CONFORMANCE}", returncode=1)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `slow` the tests `slow_tests.SLOW` lists: real processes, servers, browsers, the reliability
    suite."""
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def plugins_named_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new process does: no `module:attribute` plugin named or declared yet (what
    one test names, declares or resolves must not let another's files name it, nor run in another)."""
    import tau2._registry

    monkeypatch.setattr(tau2._registry, "_TRUSTED", set())
    monkeypatch.setattr(tau2._registry, "_DECLARED", {})


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    """The mock domain's example tasks saved as a suite file."""
    from tau2.domains.mock.tasks import MOCK_TASKS
    from tau2.tasks import Suite

    path = tmp_path / "mock-suite.json"
    Suite(name="mock", domain="mock", tasks=MOCK_TASKS).save(path)
    return path
