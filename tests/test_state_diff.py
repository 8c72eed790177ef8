"""The world state difference an episode records: leaf changes from start to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.runs._rundir import load_run
from tau2.world import ChangeKind, StateChange, state_changes

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
