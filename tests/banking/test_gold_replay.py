"""Every reference call of τ²-bench's 97 banking tasks returns exactly what τ²-bench returns, and the
database after each task's reference actions has τ²-bench's hash, read from the task folder as τ²-bench
reads it and replayed through the world as its seats would call it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tau2 import World, initialize_world, load_task_file
from tau2.domains.tau_common.files import canonical_hash

DOMAIN = "banking_knowledge"


def _gold(data: Path) -> dict[str, Any]:
    gold: dict[str, Any] = json.loads((data / "gold_replay.json").read_text())
    return gold


def test_fresh_database_hash_matches_the_reference(banking_data: Path) -> None:
    from tau2 import get_domain

    world = World.create(get_domain(DOMAIN), banking_data)
    assert canonical_hash(world.state) == _gold(banking_data)["fresh_db_hash"]


def test_every_reference_call_and_end_state_agree_with_the_reference(banking_data: Path) -> None:
    gold = _gold(banking_data)["tasks"]
    tasks = load_task_file(banking_data / "tasks", DOMAIN)
    assert [task.id for task in tasks] == sorted(gold)
    mismatches: list[str] = []
    for task in tasks:
        expected = gold[task.id]
        world = initialize_world(task, banking_data)
        if canonical_hash(world.state) != expected["initial_db_hash"]:
            mismatches.append(f"{task.id}: the initial database differs")
        assert sorted(world.state.read_log_allowlist) == sorted(expected["read_log_allowlist"])
        for step, call in zip(task.evaluation.solution, expected["calls"], strict=True):
            result = world.call(step.side, step.name, step.arguments)
            if result.error is not None or result.content != call["content"]:
                mismatches.append(f"{task.id} {call['action_id']} {step.name}: {result.render()[:200]}")
        if canonical_hash(world.state) != expected["gold_db_hash"]:
            mismatches.append(f"{task.id}: the end state differs")
    assert mismatches == []
