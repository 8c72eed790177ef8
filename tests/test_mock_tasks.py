"""Every example task of the mock domain is a valid task."""

from __future__ import annotations

import pytest

from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode._verify import verify_task
from tau2.tasks._task import Task


@pytest.mark.parametrize("task", MOCK_TASKS, ids=lambda task: task.id)
def test_mock_task_is_valid(task: Task) -> None:
    verification = verify_task(task)
    assert verification.valid, verification.reason
