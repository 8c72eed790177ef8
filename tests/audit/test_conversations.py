"""Records made before runs recorded their findings are audited by the report, each conversation once: two
records of one task whose conversations differ only in timing share their findings, any other difference
keeps them apart, and the audit equals the one of every record on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.actors import ActorKind
from tau2.actors._registry import _KINDS
from tau2.audit import RunAuditor, SeatTools, audit_run, audit_trajectory
from tau2.audit._conversations import conversation_key
from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import ActorSpec, ActorTurn, Entry, Mode, SeatContext, Trajectory
from tau2.metrics import Bootstrap
from tau2.report import read_report
from tau2.runs import RESULTS_FILE, RecordHead, load_run
from tau2.tasks import Suite, get_domain
from tau2.world import Side

from .conftest import broken_task, strip_findings

runner = CliRunner()
TASKS = [*MOCK_TASKS, broken_task()]


class Claimer:
    """A customer that plays the agent, states a number it was never told and claims a fix, then hangs up."""

    def __init__(self, spec: ActorSpec, mode: Mode) -> None:
        self.spec = spec

    async def start(self, context: SeatContext) -> None:
        """Nothing to prepare."""

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The agent's line, a ticket number and a claimed fix, then the end of the call."""
        return ActorTurn(text="How can I help you? My ticket is ZX-9917, and I've plugged it in.", stop=True)


@pytest.fixture
def claimer(monkeypatch: pytest.MonkeyPatch) -> str:
    kind = ActorKind("claimer", {Side.USER: Claimer}, description="plays the agent")
    monkeypatch.setitem(_KINDS._entries, kind.name, kind)
    return kind.name


def old_run(tmp_path: Path, agent: str, user: str, trials: int) -> Path:
    """`tau2 run` of the mock tasks and a broken one, its records then stripped of their findings."""
    suite = tmp_path / "suite.json"
    Suite(name="audit", domain="mock", tasks=TASKS).save(suite)
    out = tmp_path / f"run-{agent}-{user}"
    arguments = ["run", "--suite", str(suite), "--agent", agent, "--user", user, "--trials", str(trials)]
    result = runner.invoke(app, [*arguments, "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert strip_findings(out) > 0
    return out


def stored(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def store(run_dir: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(record) + "\n" for record in records)
    (run_dir / RESULTS_FILE).write_text(text, encoding="utf-8")


def retimed(record: dict[str, Any], shift: float) -> dict[str, Any]:
    """The record with every time in its conversation moved by `shift` seconds."""
    trajectory = record["trajectory"]
    entries = [{**entry, "elapsed_s": entry["elapsed_s"] + shift} for entry in trajectory["entries"]]
    changed = {**trajectory, "entries": entries, "duration_s": trajectory["duration_s"] + shift}
    return {**record, "trajectory": changed}


def test_a_conversation_differing_only_in_timing_shares_its_key_and_nothing_else_does(
    tmp_path: Path, claimer: str
) -> None:
    record = stored(old_run(tmp_path, "oracle", claimer, 1))[0]
    key = conversation_key(record["task_id"], record)
    assert key is not None and conversation_key(record["task_id"], retimed(record, 2.5)) == key
    trajectory = record["trajectory"]
    reworded = [{**trajectory["entries"][0], "text": "Hello."}, *trajectory["entries"][1:]]
    others = [
        conversation_key("another task", record),
        conversation_key(record["task_id"], {**record, "trajectory": {**trajectory, "entries": reworded}}),
        conversation_key(record["task_id"], {**record, "termination": "max_steps"}),
        conversation_key(record["task_id"], {**record, "termination_detail": "user actor failed"}),
    ]
    assert len({key, *others}) == 1 + len(others)
    assert conversation_key(record["task_id"], {**record, "trajectory": None}) is None
    assert conversation_key(record["task_id"], {**record, "trajectory": {"entries": [1, 2]}}) is None


@pytest.mark.parametrize("agent", ["oracle", "null"])
def test_the_report_audits_repeated_conversations_as_it_audits_each_record(
    tmp_path: Path, claimer: str, agent: str
) -> None:
    run_dir = old_run(tmp_path, agent, claimer, 3)
    records = stored(run_dir)
    first = records[0]
    innocent = {**first["trajectory"]["entries"][1], "text": "Thanks, it works now."}
    changed = {**first["trajectory"], "entries": [first["trajectory"]["entries"][0], innocent]}
    records[0] = {**first, "trajectory": changed}  # a conversation unlike its task's other trials
    records[1] = retimed(records[1], 1.0)  # one like them but for its timing
    store(run_dir, records)
    _, report = read_report(run_dir, Bootstrap())
    alone = audit_run(load_run(run_dir), Bootstrap())  # every record read and audited in full
    assert report.audit == alone
    findings = {(audit.task_id, audit.trial): audit.findings for audit in alone.simulations}
    assert findings[first["task_id"], 0] != findings[first["task_id"], 1] == findings[first["task_id"], 2]
    assert all(findings[first["task_id"], 1]), "the claims are found in the unchanged trials"


def test_heads_with_records_in_memory_are_audited_as_from_the_file(tmp_path: Path, claimer: str) -> None:
    run_ = load_run(old_run(tmp_path, "null", claimer, 2))
    from_file, in_memory = RunAuditor(run_.manifest, Bootstrap()), RunAuditor(run_.manifest, Bootstrap())
    for record in stored(run_.path):
        from_file.add(RecordHead.model_validate(record))
        in_memory.add(RecordHead.model_validate(record))
    expected = audit_run(run_, Bootstrap())
    assert from_file.result(run_.records) == in_memory.result(list(run_.records)) == expected


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Trajectory, str]]:
    """Trajectories of real offline runs of the mock tasks (with a customer that breaks several rules)."""
    kind = ActorKind("claimer", {Side.USER: Claimer}, description="plays the agent")
    _KINDS._entries[kind.name] = kind
    try:
        runs = [old_run(tmp_path_factory.mktemp(user), "oracle", user, 1) for user in ("scripted", "claimer")]
        runs.append(old_run(tmp_path_factory.mktemp("null"), "null", "scripted", 1))
    finally:
        del _KINDS._entries[kind.name]
    found = []
    for run_dir in runs:
        for record in load_run(run_dir).records:
            assert record.trajectory is not None
            found.append((record.trajectory, record.task_id))
    return found


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_no_simulated_user_check_reads_the_timing(
    trajectories: list[tuple[Trajectory, str]], data: st.DataObject
) -> None:
    """What lets the report audit a repeated conversation once: findings never depend on when entries
    happened (a check that reads timing must also change `conversation_key`)."""
    trajectory, task_id = data.draw(st.sampled_from(trajectories))
    task = next(task for task in TASKS if task.id == task_id)
    times = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)
    entries = [entry.model_copy(update={"elapsed_s": data.draw(times)}) for entry in trajectory.entries]
    moved = trajectory.model_copy(update={"entries": entries, "duration_s": data.draw(times)})
    tools = SeatTools.of(get_domain("mock"), task)
    assert audit_trajectory(moved, tools, task) == audit_trajectory(trajectory, tools, task)
