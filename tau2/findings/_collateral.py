"""Collateral damage: the records a simulation changed that its task's reference solution does not change
(extra writes), and, for a task scored by its database, the records the reference changes that the
simulation left alone or left with other values (missing writes). The reference's changes are found by
replaying it on the task's fresh world, once per task; the reward never reads any of this."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from tau2.tasks import RewardType, Task, initialize_world
from tau2.world import (
    RecordWrite,
    StateChange,
    record_name,
    record_paths,
    shared_state_changes,
    state_changes,
)

Fact = tuple[str, str, str]
"""One change inside a record: its path below the record, its kind, its new value as canonical JSON."""


@dataclass(frozen=True)
class Collateral:
    """What one simulation wrote beside its task's reference solution."""

    extra: list[RecordWrite]
    """Records the simulation changed that the reference does not change, with the calls that did."""
    missing: list[RecordWrite] | None
    """For a task scored by its database, records the reference changes that the simulation did not (no
    calls) or changed to other values (the calls that did); None for other tasks."""


@dataclass(frozen=True)
class ReferenceWrites:
    """The records a task's reference solution changes on its fresh world: by name, each one's path in the
    state and what it changes there."""

    records: dict[str, tuple[str, frozenset[Fact]]]
    database_scored: bool
    """Whether the task's reward compares the database (only then are missing writes told)."""

    @classmethod
    def of(cls, task: Task, data_dir: Path | None, base: BaseModel | None = None) -> ReferenceWrites:
        """Replay `task`'s reference actions on its fresh world (a failing action changes nothing; `base`:
        the world starts from that loaded state, a renamed database) and name the records they change;
        raises `TaskSetupError` when the task's world cannot be set up."""
        world = initialize_world(task, data_dir, base=base)
        copy = world.domain.fresh_state
        start = copy(world.state) if copy is not None else world.snapshot()
        for step in task.evaluation.solution:
            world.call(step.side, step.name, step.arguments)
        if isinstance(start, bytes):
            changes = state_changes(start, world.snapshot())
        else:
            changes = shared_state_changes(start, world.state)
        records = {
            record_name(world.state, place, changes): (path, _facts(path, changes))
            for path, place in record_paths(type(world.state), changes).items()
        }
        return cls(records, RewardType.DB in (task.evaluation.reward_basis or ()))

    def compare(self, writes: Mapping[str, RecordWrite], changes: Sequence[StateChange]) -> Collateral:
        """The collateral of a simulation whose `changes` touched the records `writes` (by path)."""
        extra = [write for write in writes.values() if write.record not in self.records]
        if not self.database_scored:
            return Collateral(extra, None)
        written = {write.record: (path, write) for path, write in writes.items()}
        missing: list[RecordWrite] = []
        for name, (_, facts) in self.records.items():
            done = written.get(name)
            if done is None:
                missing.append(RecordWrite(record=name))
            elif _facts(done[0], changes) != facts:
                missing.append(done[1])
        return Collateral(extra, missing)


def _facts(path: str, changes: Iterable[StateChange]) -> frozenset[Fact]:
    """The changes inside the record at `path`, relative to it (so one record compares with another at
    another position)."""
    return frozenset(
        (change.path[len(path) :], change.kind.value, json.dumps(change.after, sort_keys=True))
        for change in changes
        if change.path == path or change.path.startswith((f"{path}.", f"{path}["), 0)
    )
