"""Shared pytest setup: keep litellm offline by making it use its bundled model cost map, and the mock suite
file the CLI tests run."""

import os
from pathlib import Path

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    """The mock domain's example tasks saved as a suite file."""
    from tau2.domains.mock.tasks import MOCK_TASKS
    from tau2.tasks._suite import Suite

    path = tmp_path / "mock-suite.json"
    Suite(name="mock", domain="mock", tasks=MOCK_TASKS).save(path)
    return path
