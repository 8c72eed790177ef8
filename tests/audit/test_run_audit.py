"""The audit of real offline runs and its place in `tau2 report`: rates with intervals, each failed
simulation attributed to the agent, the simulated user, a task defect or the infrastructure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.actors import ActorKind
from tau2.actors._registry import _KINDS
from tau2.audit import Cause, Severity, UserFinding, attribute, audit_run, user_checks
from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import GREETING, ActorSpec, ActorTurn, Entry, Mode, SeatContext, TerminationReason
from tau2.metrics import Bootstrap
from tau2.report import RunReport, build_report, run_page
from tau2.runs import SimulationRecord, load_run
from tau2.tasks import Suite, Task
from tau2.world import Side

from .conftest import broken_task, strip_findings

runner = CliRunner()


class RoleTaker:
    """A customer that answers the agent's greeting with the agent's own line, then hangs up."""

    def __init__(self, spec: ActorSpec, mode: Mode) -> None:
        self.spec = spec

    async def start(self, context: SeatContext) -> None:
        """Nothing to prepare."""

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The agent's line, and the end of the call."""
        return ActorTurn(text="Hello! How can I assist you today?", stop=True)


@pytest.fixture
def role_taker(monkeypatch: pytest.MonkeyPatch) -> str:
    """The role-taking customer as an actor kind, registered for one test only."""
    kind = ActorKind("role-taker", {Side.USER: RoleTaker}, description="plays the agent")
    monkeypatch.setitem(_KINDS._entries, kind.name, kind)
    return kind.name


class Parrot:
    """A customer that says hello, then repeats the agent's lines word for word and hangs up on the
    second: it never says why it called, and never in the agent's words of greeting."""

    def __init__(self, spec: ActorSpec, mode: Mode) -> None:
        self.spec = spec
        self._echoes = 0

    async def start(self, context: SeatContext) -> None:
        self._echoes = 0

    async def act(self, observation: list[Entry]) -> ActorTurn:
        said = [entry.text for entry in observation if entry.seat is Side.AGENT and entry.text]
        if self._echoes == 0 and said == [GREETING]:
            self._echoes = 1
            return ActorTurn(text="Hello.")
        self._echoes += 1
        return ActorTurn(text=said[-1] if said else "Hello.", stop=self._echoes > 2)


@pytest.fixture
def parrot(monkeypatch: pytest.MonkeyPatch) -> str:
    """The parrot as an actor kind, registered for one test only."""
    kind = ActorKind("parrot", {Side.USER: Parrot}, description="repeats the agent")
    monkeypatch.setitem(_KINDS._entries, kind.name, kind)
    return kind.name


def run(tmp_path: Path, agent: str, user: str, tasks: list[Task] | None = None) -> Path:
    """`tau2 run` of mock tasks (default: the examples), one trial each; returns the run directory."""
    suite = tmp_path / "suite.json"
    Suite(name="audit", domain="mock", tasks=tasks or MOCK_TASKS).save(suite)
    out = tmp_path / f"run-{agent}-{user}"
    result = runner.invoke(
        app, ["run", "--suite", str(suite), "--agent", agent, "--user", user, "--out", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    return out


def audit_of(run_dir: Path) -> dict[str, object]:
    result = runner.invoke(app, ["report", str(run_dir), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    RunReport.model_validate(document)
    audit: dict[str, object] = document["audit"]
    return audit


def test_the_scripted_user_with_the_oracle_breaks_no_rule_but_leaves_a_fix_unchecked(tmp_path: Path) -> None:
    audit = audit_of(run(tmp_path, "oracle", "scripted"))
    checks = audit["checks"]
    assert isinstance(checks, list) and [check["check"] for check in checks] == list(user_checks())
    assert all(check["audited"] == 5 for check in checks)
    fired = {check["check"]: check["fired"] for check in checks if check["fired"]}
    assert fired == {"ended_unverified": 1}, "it hangs up on the oracle's word after the agent's own fix"
    (unverified,) = [s for s in audit["simulations"] if s["findings"]]  # type: ignore[union-attr]
    assert unverified["task_id"] == "power_cut"
    assert all(check["rate"]["ci_high"] > 0 for check in checks), "an interval, even at zero"
    assert audit["attribution"] == {"agent": 0, "simulated_user": 0, "task_defect": 0, "infrastructure": 0}
    assert audit["notes"] == []


def test_failures_of_an_idle_agent_are_the_agents_and_a_broken_task_is_a_task_defect(tmp_path: Path) -> None:
    audit = audit_of(run(tmp_path, "null", "scripted", [*MOCK_TASKS, broken_task()]))
    assert audit["attribution"] == {"agent": 5, "simulated_user": 0, "task_defect": 1, "infrastructure": 0}
    simulations = audit["simulations"]
    assert isinstance(simulations, list)
    (defect,) = [s for s in simulations if s["cause"] == "task_defect"]
    assert defect["task_id"] == "broken"
    assert defect["task_defects"] == ["reference_action_fails", "verification_fails"]


def test_a_customer_playing_the_agent_is_blamed(tmp_path: Path, role_taker: str) -> None:
    run_dir = run(tmp_path, "oracle", role_taker)
    audit = audit_of(run_dir)
    assert audit["attribution"] == {"agent": 0, "simulated_user": 5, "task_defect": 0, "infrastructure": 0}
    rates = {check["check"]: check for check in audit["checks"]}  # type: ignore[attr-defined]
    assert rates["took_agent_role"]["fired"] == 5 and rates["took_agent_role"]["rate"]["value"] == 1.0
    full = runner.invoke(app, ["report", str(run_dir), "--full"], env={"COLUMNS": "160"})
    assert "Simulated-user audit" in full.stdout and "Failures by cause" in full.stdout
    assert (
        "failures by cause: agent 0 · simulated user 5" in runner.invoke(app, ["report", str(run_dir)]).stdout
    )
    page = run_page(build_report(load_run(run_dir), Bootstrap()), load_run(run_dir).records)
    assert "Simulated-user audit and failures by cause" in page and "took_agent_role" in page


def test_a_customer_repeating_the_agents_lines_is_blamed(tmp_path: Path, parrot: str) -> None:
    audit = audit_of(run(tmp_path, "null", parrot))
    assert audit["attribution"] == {"agent": 0, "simulated_user": 5, "task_defect": 0, "infrastructure": 0}
    errors = {
        finding["check"]
        for simulation in audit["simulations"]  # type: ignore[attr-defined]
        for finding in simulation["findings"]
        if user_checks()[finding["check"]].severity is Severity.ERROR
    }
    assert errors == {"never_stated_problem"}, "nothing else it does is wrong"


def test_a_changed_suite_leaves_the_task_checks_out_of_records_without_findings(tmp_path: Path) -> None:
    run_dir = run(tmp_path, "oracle", "scripted")
    assert strip_findings(run_dir) == 5
    Suite(name="audit", domain="mock", tasks=MOCK_TASKS[:2]).save(tmp_path / "suite.json")
    audit = audit_run(load_run(run_dir), Bootstrap())
    assert any("the suite changed since the run" in note for note in audit.notes)
    audited = {rate.check: rate.audited for rate in audit.checks}
    assert audited["unfounded_fact"] == audited["ended_unverified"] == 0
    assert audited["took_agent_role"] == 5


def test_solo_runs_have_no_simulated_user_to_audit(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    Suite(name="audit", domain="mock", tasks=MOCK_TASKS).save(suite)
    out = tmp_path / "solo"
    arguments = ["run", "--suite", str(suite), "--agent", "oracle", "--mode", "solo", "--out", str(out)]
    assert runner.invoke(app, [*arguments, "--quiet"]).exit_code == 0
    audit = audit_run(load_run(out), Bootstrap())
    assert all(rate.audited == 0 and rate.rate.value is None for rate in audit.checks)


def record(success: bool, termination: TerminationReason = TerminationReason.USER_STOP) -> SimulationRecord:
    return SimulationRecord(
        task_id="t", trial=0, seed=0, mode=Mode.INTERACTIVE, reward=float(success), termination=termination
    )


ROLE = UserFinding(check="took_agent_role", detail="said it")
NEVER_ENDED = UserFinding(check="never_ended", detail="step limit")


@pytest.mark.parametrize(
    ("simulation", "findings", "defects", "cause"),
    [
        (record(True), [ROLE], ["reference_action_fails"], None),
        (record(False, TerminationReason.INFRASTRUCTURE_ERROR), [ROLE], ["x"], Cause.INFRASTRUCTURE),
        (record(False), [ROLE], ["reference_action_fails"], Cause.TASK_DEFECT),
        (record(False), [ROLE], [], Cause.SIMULATED_USER),
        (record(False), [NEVER_ENDED], [], Cause.AGENT),
        (record(False), [], [], Cause.AGENT),
    ],
)
def test_attribution_takes_the_first_cause(
    simulation: SimulationRecord, findings: list[UserFinding], defects: list[str], cause: Cause | None
) -> None:
    assert attribute(simulation, findings, defects) is cause
