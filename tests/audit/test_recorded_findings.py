"""Findings recorded when each simulation is judged: the simulated-user checks and task defects a run
writes into its records, counted by the report exactly as its own audit of the same records would find
them, without reading the suite again."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.actors import ActorKind
from tau2.actors._registry import _KINDS
from tau2.audit import RunAuditor, audit_run, user_checks
from tau2.cli import app
from tau2.config import ConfigLayer, RunConfig
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import ActorSpec, ActorTurn, Entry, Mode, SeatContext
from tau2.metrics import Bootstrap
from tau2.regrade import regrade_suite
from tau2.runner import prepare_run
from tau2.runs import RESULTS_FILE, RecordHead, load_run
from tau2.tasks import Suite, Task
from tau2.world import Side

from .conftest import broken_task, strip_findings

runner = CliRunner()
TASKS = [*MOCK_TASKS, broken_task()]


class RoleTaker:
    """A customer that answers with the agent's own line, claims a fix it never made, then hangs up."""

    def __init__(self, spec: ActorSpec, mode: Mode) -> None:
        self.spec = spec

    async def start(self, context: SeatContext) -> None:
        """Nothing to prepare."""

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The agent's line and a number it was never told, then the end of the call."""
        return ActorTurn(text="How can I help you? My ticket is ZX-9917, and I've plugged it in.", stop=True)


@pytest.fixture
def role_taker(monkeypatch: pytest.MonkeyPatch) -> str:
    kind = ActorKind("role-taker", {Side.USER: RoleTaker}, description="plays the agent")
    monkeypatch.setitem(_KINDS._entries, kind.name, kind)
    return kind.name


def run(tmp_path: Path, agent: str, user: str | None, tasks: list[Task] = TASKS) -> Path:
    """`tau2 run` of `tasks` (solo when `user` is None), one trial each; returns the run directory."""
    suite = tmp_path / "suite.json"
    Suite(name="audit", domain="mock", tasks=tasks).save(suite)
    out = tmp_path / f"run-{agent}-{user}"
    seats = ["--user", user] if user is not None else ["--mode", "solo"]
    arguments = ["run", "--suite", str(suite), "--agent", agent, *seats, "--out", str(out), "--quiet"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return out


def stored(run_dir: Path) -> list[dict[str, Any]]:
    """The records as the results file holds them."""
    lines = (run_dir / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def report_audit(run_dir: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["report", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    audit: dict[str, Any] = json.loads(result.stdout)["audit"]
    return audit


def without_findings(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run whose records carry no findings, as runs made before wrote them."""
    copy = tmp_path / f"{run_dir.name}-old"
    shutil.copytree(run_dir, copy)
    assert strip_findings(copy) > 0
    return copy


def test_an_interactive_run_records_each_simulations_findings_and_failed_ones_task_defects(
    tmp_path: Path,
) -> None:
    records = {record["task_id"]: record for record in stored(run(tmp_path, "null", "scripted"))}
    assert all(record["user_findings"] is not None for record in records.values())
    assert records["broken"]["task_defects"] == ["reference_action_fails", "verification_fails"]
    assert all(records[task.id]["task_defects"] == [] for task in MOCK_TASKS)
    passed = {record["task_id"]: record for record in stored(run(tmp_path, "oracle", "scripted"))}
    assert all("task_defects" not in record for record in passed.values() if record["reward"] == 1.0)
    (unverified,) = passed["power_cut"]["user_findings"]
    assert unverified["check"] == "ended_unverified"


@pytest.mark.parametrize(("agent", "user"), [("oracle", "scripted"), ("null", "scripted"), ("null", "role")])
def test_the_report_counts_recorded_findings_as_its_own_audit_finds_them(
    tmp_path: Path, role_taker: str, agent: str, user: str
) -> None:
    run_dir = run(tmp_path, agent, role_taker if user == "role" else user)
    recorded, audited = report_audit(run_dir), report_audit(without_findings(run_dir, tmp_path))
    assert recorded == audited
    assert [check["check"] for check in recorded["checks"]] == list(user_checks())
    assert all(check["audited"] == len(TASKS) for check in recorded["checks"])
    if user == "role":
        fired = {check["check"] for check in recorded["checks"] if check["fired"]}
        assert {"took_agent_role", "unfounded_fact"} <= fired
        assert recorded["attribution"]["simulated_user"] > 0


def test_recorded_findings_need_no_suite(tmp_path: Path, role_taker: str) -> None:
    run_dir = run(tmp_path, "null", role_taker)
    before = report_audit(run_dir)
    (tmp_path / "suite.json").unlink()
    after = report_audit(run_dir)
    assert after == before and after["notes"] == []
    assert after["attribution"]["task_defect"] == 1
    assert all(check["audited"] == len(TASKS) for check in after["checks"])
    old = report_audit(without_findings(run_dir, tmp_path))
    assert any("cannot be read" in note for note in old["notes"]), "records without findings need the suite"


def test_heads_without_findings_are_audited_from_the_run_records(tmp_path: Path, role_taker: str) -> None:
    run_dir = without_findings(run(tmp_path, "null", role_taker), tmp_path)
    run_ = load_run(run_dir)
    auditor = RunAuditor(run_.manifest, Bootstrap())
    for record in stored(run_dir):
        auditor.add(RecordHead.model_validate(record))
    assert auditor.result(run_.records) == audit_run(run_, Bootstrap())
    headless = RunAuditor(run_.manifest, Bootstrap())
    headless.add(RecordHead.model_validate(stored(run_dir)[0]))
    with pytest.raises(ValueError, match="give result the run's records"):
        headless.result()


def test_solo_records_carry_no_simulated_user_findings(tmp_path: Path) -> None:
    records = stored(run(tmp_path, "null", None))
    assert all("user_findings" not in record for record in records)
    assert {tuple(record["task_defects"]) for record in records} == {
        (),
        ("reference_action_fails", "verification_fails"),
    }
    audit = audit_run(load_run(tmp_path / "run-null-None"), Bootstrap())
    assert all(rate.audited == 0 for rate in audit.checks) and audit.attribution["task_defect"] == 1


def test_a_regrade_against_other_tasks_records_their_findings(tmp_path: Path) -> None:
    run_dir = run(tmp_path, "oracle", "scripted", MOCK_TASKS)
    assert not any("task_defects" in record for record in stored(run_dir))
    suite = tmp_path / "revised.json"
    revised = [broken_task().model_copy(update={"id": MOCK_TASKS[0].id}), *MOCK_TASKS[1:]]
    Suite(name="audit", domain="mock", tasks=revised).save(suite)
    regraded = tmp_path / "regraded"
    regrade_suite(run_dir, suite, regraded)
    records = {record["task_id"]: record for record in stored(regraded)}
    assert records[MOCK_TASKS[0].id]["task_defects"] == ["reference_action_fails", "verification_fails"]
    assert report_audit(regraded) == report_audit(without_findings(regraded, tmp_path))


def test_a_prepared_run_sends_its_findings_to_workers_empty(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    Suite(name="audit", domain="mock", tasks=TASKS).save(suite)
    config = RunConfig(suite=suite, agent=ActorSpec(kind="oracle"), user=ActorSpec(kind="scripted"))
    prepared = prepare_run([ConfigLayer.of(config)], tmp_path / "out", resume=False)
    prepared.findings.task_defects(prepared.tasks["broken"])
    copy = pickle.loads(pickle.dumps(prepared))
    assert copy.findings is not prepared.findings and copy.findings.domain is prepared.findings.domain
    assert copy.findings._defects == {} and copy.findings.task_defects(copy.tasks["broken"]) == [
        "reference_action_fails",
        "verification_fails",
    ]


def test_an_imported_tau2bench_run_records_the_findings_of_its_replayed_trajectories(
    tmp_path: Path, role_taker: str
) -> None:
    ours = run(tmp_path, "null", role_taker)
    exported, imported = tmp_path / "results.json", tmp_path / "imported"
    assert runner.invoke(app, ["export", "tau2bench", str(ours), "-o", str(exported)]).exit_code == 0
    result = runner.invoke(app, ["import", "tau2bench", str(exported), "--out", str(imported)])
    assert result.exit_code == 0, result.output
    records = stored(imported)
    assert all(record["user_findings"] for record in records)
    assert {tuple(record["task_defects"]) for record in records} == {
        (),
        ("reference_action_fails", "verification_fails"),
    }
    audit = report_audit(imported)
    assert audit == report_audit(without_findings(imported, tmp_path))
    assert audit["attribution"] == report_audit(ours)["attribution"]
