"""The world state difference an episode records: leaf changes from start to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.runs import load_run
from tau2.tasks import get_domain, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import ChangeKind, StateChange, StateMark, shared_state_changes, state_changes


def pack_data(domain: str) -> Path:
    """The data folder a τ-bench domain pack ships (its own small database and tasks)."""
    return Path(__file__).resolve().parents[1] / "domains" / domain / "data"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


def test_changes_name_the_leaf_paths_with_before_and_after() -> None:
    start = {"crm": {"lines": [{"id": "L1", "roaming": False}]}, "device": {"apn": "x", "bars": 1}}
    end = {"crm": {"lines": [{"id": "L1", "roaming": True}, {"id": "L2"}]}, "device": {"bars": 4}}
    assert state_changes(dumps(start), dumps(end)) == [
        StateChange(path="crm.lines[0].roaming", kind=ChangeKind.CHANGED, before=False, after=True),
        StateChange(path="crm.lines[1]", kind=ChangeKind.ADDED, after={"id": "L2"}),
        StateChange(path="device.apn", kind=ChangeKind.REMOVED, before="x"),
        StateChange(path="device.bars", kind=ChangeKind.CHANGED, before=1, after=4),
    ]


@given(json_values)
def test_an_unchanged_state_has_no_changes(value: Any) -> None:
    assert state_changes(dumps(value), dumps(value)) == []


@given(json_values, json_values)
def test_a_changed_state_has_changes_that_really_differ(start: Any, end: Any) -> None:
    changes = state_changes(dumps(start), dumps(end))
    assert bool(changes) == (start != end)
    assert all(c.before != c.after for c in changes if c.kind is ChangeKind.CHANGED)


def test_a_run_records_what_each_episode_changed(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["run", "--suite", str(suite_file), "--agent", "oracle", "--user", "scripted", "--quiet"]
    result = CliRunner().invoke(app, [*arguments, "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = load_run(out).records
    assert records and all(record.success for record in records)
    assert any(record.state_changes for record in records), "the oracle fixes phones, so states change"
    assert all(change.path for record in records for change in record.state_changes)


@pytest.mark.parametrize(
    ("domain", "tasks"), [("airline", "tasks.json"), ("retail", "tasks.json"), ("banking_knowledge", "tasks")]
)
def test_changes_of_states_sharing_records_equal_those_of_whole_snapshots(domain: str, tasks: str) -> None:
    """Packs whose worlds share immutable records: comparing only what is not shared finds exactly the
    changes a comparison of whole snapshots finds, for every reference solution of the pack's tasks."""
    pack = get_domain(domain)
    assert pack.fresh_state is not None
    changed = 0
    for task in load_task_file(pack_data(domain) / tasks):
        world = initialize_world(task)
        start, snapshot = pack.fresh_state(world.state), world.snapshot()
        for step in task.evaluation.solution:
            world.call(step.side, step.name, step.arguments)
        expected = state_changes(snapshot, world.snapshot())
        assert shared_state_changes(start, world.state) == expected, task.id
        changed += bool(expected)
    assert changed


@pytest.mark.parametrize("domain", ["airline", "retail", "banking_knowledge", "telecom"])
def test_a_marked_state_gives_its_snapshot_and_the_changes_of_whole_snapshots(domain: str) -> None:
    """A mark (a copy sharing records where the pack shares them, else a snapshot) gives back the state's
    snapshot and, after each task's reference solution, exactly the changes whole snapshots give."""
    suite = get_domain(domain).default_suite
    assert suite is not None
    for task in load_task_file(suite, domain)[:20]:
        world = initialize_world(task)
        snapshot, mark = world.snapshot(), StateMark(world)
        for step in task.evaluation.solution:
            world.call(step.side, step.name, step.arguments)
        assert mark.snapshot() == snapshot, task.id
        assert mark.changes_to(world) == state_changes(snapshot, world.snapshot()), task.id
