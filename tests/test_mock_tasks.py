"""Every example task of the mock domain is a valid task."""

from __future__ import annotations

import pytest

from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import verify_task
from tau2.tasks import Task


@pytest.mark.parametrize("task", MOCK_TASKS, ids=lambda task: task.id)
def test_mock_task_is_valid(task: Task) -> None:
    verification = verify_task(task)
    assert verification.valid, verification.reason


def test_default_suite_file_holds_the_example_tasks() -> None:
    """The default suite of `--domain mock` (`suites/examples.json`) is the tasks above, saved."""
    from pathlib import Path

    from tau2.tasks import Suite, get_domain

    path = Path(get_domain("mock").default_suite)
    expected = Suite(name="mock-examples", domain="mock", tasks=MOCK_TASKS).to_json()
    assert path.read_text(encoding="utf-8") == expected
