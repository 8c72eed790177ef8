"""Every reference call of the official airline and retail tasks returns what τ²-bench returns, and the
database after each task's reference actions has τ²-bench's canonical hash."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tau2 import World, get_domain
from tau2.domains.tau_common.files import canonical_hash

from .conformance import conformance_dir, reference_content


def _gold(domain: str) -> dict[str, Any]:
    gold: dict[str, Any] = json.loads((conformance_dir(domain) / "gold_replay.json").read_text())
    return gold


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_fresh_database_hash_matches_the_reference(domain: str) -> None:
    world = World.create(get_domain(domain), conformance_dir(domain))
    assert canonical_hash(world.state) == _gold(domain)["initial_db_sha256"]


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_every_reference_call_and_end_state_agree_with_the_reference(domain: str) -> None:
    gold = _gold(domain)
    data_dir = conformance_dir(domain)
    mismatches: list[str] = []
    for task in gold["tasks"]:
        world = World.create(get_domain(domain), data_dir)
        for number, call in enumerate(task["calls"]):
            result = world.call("agent", call["name"], call["arguments"])
            if reference_content(result) != (call["error"], call["content"]):
                mismatches.append(f"task {task['task_id']} call {number} {call['name']}: {result.render()}")
        if canonical_hash(world.state) != task["final_db_sha256"]:
            mismatches.append(f"task {task['task_id']}: end state differs")
    assert mismatches == []
