"""The τ²-compatible export equals τ²-bench's small task file call for call, and tasks survive a round
trip through the τ²-bench format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2.generator.pipeline import Generation
from tau2.tasks import Task
from tau2.tau2bench import Tau2Task, task_from_tau2, task_to_tau2


def without_texts(record: dict[str, Any]) -> dict[str, Any]:
    """A τ²-bench task with its free texts blanked: scenario, ticket, purpose, assertion messages and the
    transfer summary (its `compare_args` is `[]`, so it is never compared)."""
    criteria = record["evaluation_criteria"]
    return {
        "id": record["id"],
        "persona_present": record["user_scenario"]["persona"] is not None,
        "initial_state": record["initial_state"],
        "actions": [
            {**action, "arguments": None} if action["compare_args"] == [] else action
            for action in criteria["actions"]
        ],
        "env_assertions": [{**check, "message": None} for check in criteria["env_assertions"]],
        "reward_basis": criteria["reward_basis"],
        "keys": sorted(record),
    }


@pytest.fixture(scope="module")
def small(tau2_pool: Generation) -> list[Task]:
    return [task for task in tau2_pool.tasks if len(task.subtasks) == 1 and "no_refuel" not in task.id]


def test_single_subtask_export_equals_the_reference_file(small: list[Task], tau2_data: Path) -> None:
    reference = json.loads((tau2_data / "tasks_small.json").read_text(encoding="utf-8"))
    ours = [task_to_tau2(task) for task in small]
    assert [without_texts(record) for record in ours] == [without_texts(record) for record in reference]
    assert all(record["ticket"] and record["user_scenario"]["instructions"]["known_info"] for record in ours)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_export_round_trip(tau2_pool: Generation, data: st.DataObject) -> None:
    task = data.draw(st.sampled_from(tau2_pool.tasks))
    exported = task_to_tau2(task)
    back = task_from_tau2(Tau2Task.model_validate(json.loads(json.dumps(exported))), "telecom")
    assert back == task.model_copy(update={"metadata": {}})
    assert task_to_tau2(back) == exported
