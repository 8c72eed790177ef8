"""τ²-bench's official task sets, recognised by content: a leaderboard submission is standard only when
each of its runs covered one of them whole, as τ²-bench ships it.

A task set's hash is taken over its tasks in τ²-bench's format (as `task_to_tau2` writes them), sorted by
id, as canonical JSON: file layout, key order and task order do not change it; any change to a task's
content (instructions, persona, gold actions, assertions, reward basis) does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Final, NamedTuple

from tau2.tasks import Task
from tau2.tau2bench import task_to_tau2


class OfficialTaskSet(NamedTuple):
    """A task set τ²-bench's leaderboard is scored on."""

    domain: str
    name: str


OFFICIAL_TASK_SETS: Final = {
    "sha256:6bfecb4963512d9d4a7d68c4343320c6a365c2b44e9c50235ed9ca098a87cf15": OfficialTaskSet(
        "airline", "τ²-bench airline tasks.json, 2025-06 release (50 tasks)"
    ),
    "sha256:74fef590b33bfd079d29d190cca62da9fcd0ee977bcf8190a3f9fffce5562a6f": OfficialTaskSet(
        "airline", "τ²-bench airline tasks.json, revised v1.0 (50 tasks)"
    ),
    "sha256:4db5b514a81d2df6bab473273b5e6c55da9bac6126dbb4abde4c0ef47ceee2d7": OfficialTaskSet(
        "retail", "τ²-bench retail tasks.json, 2025-06 release (114 tasks)"
    ),
    "sha256:ec2f910f7d667c0d4eb5c6f0e901ed01c3ee39b8082bec7e3bc352c3579fa8b0": OfficialTaskSet(
        "retail", "τ²-bench retail tasks.json, revised v1.0 (114 tasks)"
    ),
    "sha256:de4ec4108ed17baf62ae3d8c74d340cf481cc03d12485ff679ea4250fd72651b": OfficialTaskSet(
        "telecom", "τ²-bench telecom tasks.json, base split (114 tasks)"
    ),
    "sha256:fc487fafcc1e725a1a9873d5f63bbd01329033026397a3eae5539f7802968ae5": OfficialTaskSet(
        "banking_knowledge", "τ²-bench banking_knowledge tasks/ folder, v1.0.1 (97 tasks)"
    ),
}
"""Hashes (`task_set_hash`) of the airline and retail task files (the first release and the current
revised one), of telecom's `base` split, and of banking's task folder (τ²-bench reads its `task_*.json`
files; the aggregate `tasks.json` beside them is stale and another set), the sets the leaderboard
reports."""


def task_set_hash(tasks: Iterable[Task]) -> str:
    """`sha256:<hex>` of the tasks' content in τ²-bench's format, independent of file layout and order."""
    canonical = [task_to_tau2(task) for task in sorted(tasks, key=lambda task: task.id)]
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def official_task_set(domain: str, tasks: Iterable[Task]) -> OfficialTaskSet | None:
    """The official task set of `domain` that `tasks` are, whole and unchanged; None for any other set."""
    official = OFFICIAL_TASK_SETS.get(task_set_hash(tasks))
    return official if official is not None and official.domain == domain else None
