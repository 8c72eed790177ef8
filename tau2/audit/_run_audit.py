"""The audit of a run: the simulated-user checks of every interactive simulation, the rate of each with an
interval (the machinery of pass^k: per-task rates averaged over tasks, bootstrap and Wilson), and the
attribution of every failed simulation to its first cause.

Attribution, in this order: an infrastructure failure (excluded from metrics); else a task defect (the
task has an error finding of `tau2 lint`); else the simulated user (an error finding of the simulated-user
audit); else the agent. The tasks are read again from the suite the run names, when its file still has the
hash the run recorded; otherwise the checks that need a task, and task defects, are left out (said in
`notes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.audit._findings import Severity
from tau2.audit._lint import lint_task
from tau2.audit._user_checks import NEEDS_TASK, USER_CHECKS, SeatTools, UserFinding, audit_trajectory
from tau2.episode import Mode
from tau2.errors import UserInputError
from tau2.metrics import Bootstrap, Estimate, rate_estimate
from tau2.personas import PersonaError, load_persona
from tau2.runner import suite_hash
from tau2.runs import Run, SimulationRecord
from tau2.tasks import Task
from tau2.tau2bench import load_task_file
from tau2.world import Domain, get_domain


class Cause(StrEnum):
    """What a failed simulation is attributed to."""

    AGENT = "agent"
    SIMULATED_USER = "simulated_user"
    TASK_DEFECT = "task_defect"
    INFRASTRUCTURE = "infrastructure"


class CheckRate(BaseModel):
    """How often one simulated-user check fired: over the audited simulations, and as a mean of per-task
    rates with its interval."""

    model_config = ConfigDict(frozen=True)

    check: str
    severity: Severity
    rule: str
    audited: int
    """Simulations the check ran on."""
    fired: int
    rate: Estimate


class SimulationAudit(BaseModel):
    """One simulation's audit: the simulated-user findings, the task's error findings, and the cause its
    failure is attributed to (None when it passed)."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    success: bool
    findings: list[UserFinding] = []
    task_defects: list[str] = []
    """Error checks of `tau2 lint` that fire on the task (looked up for failed simulations only)."""
    cause: Cause | None = None


class RunAudit(BaseModel):
    """Everything the audit says about a run."""

    model_config = ConfigDict(frozen=True)

    checks: list[CheckRate]
    attribution: dict[str, int]
    """Cause → failed simulations (infrastructure failures included), every cause listed."""
    simulations: list[SimulationAudit]
    notes: list[str] = []


def audit_run(run: Run, bootstrap: Bootstrap) -> RunAudit:
    """Audit every simulation of `run`: the simulated user in interactive ones, the cause of each failure."""
    manifest = run.manifest
    notes: list[str] = []
    tasks = _run_tasks(run, notes)
    domain = _domain(manifest.domain, notes)
    data_dir = manifest.config.data_dir
    interactive = manifest.mode is Mode.INTERACTIVE
    defects: dict[str, list[str]] = {}
    seats: dict[tuple[str, ...] | None, SeatTools] = {}
    audits = []
    audited: dict[str, list[tuple[str, bool]]] = {check: [] for check in USER_CHECKS}
    for record in run.records:
        task = tasks.get(record.task_id) if tasks is not None else None
        findings: list[UserFinding] = []
        if interactive and domain is not None and record.trajectory is not None and not record.excluded:
            offered = None if task is None or task.user_tools is None else tuple(task.user_tools)
            if offered not in seats:
                seats[offered] = SeatTools.of(domain, task)
            findings = audit_trajectory(record.trajectory, seats[offered], task)
            fired = {finding.check for finding in findings}
            for check in USER_CHECKS:
                if task is not None or check not in NEEDS_TASK:
                    audited[check].append((record.task_id, check in fired))
        task_defects: list[str] = []
        if not record.success and not record.excluded and task is not None:
            if record.task_id not in defects:
                defects[record.task_id] = _task_defects(task, data_dir, notes)
            task_defects = defects[record.task_id]
        audits.append(
            SimulationAudit(
                task_id=record.task_id,
                trial=record.trial,
                success=record.success,
                findings=findings,
                task_defects=task_defects,
                cause=attribute(record, findings, task_defects),
            )
        )
    if interactive and any(record.trajectory is None and not record.excluded for record in run.records):
        notes.append("some records hold no trajectory: their simulated user is not audited")
    counts = {cause.value: sum(audit.cause is cause for audit in audits) for cause in Cause}
    return RunAudit(
        checks=[_rate(check, audited[check], bootstrap) for check in USER_CHECKS],
        attribution=counts,
        simulations=audits,
        notes=list(dict.fromkeys(notes)),
    )


def attribute(
    record: SimulationRecord, findings: Sequence[UserFinding], task_defects: Sequence[str]
) -> Cause | None:
    """The first cause of a failed simulation (None for a success): infrastructure, a task defect, the
    simulated user (an error finding), else the agent."""
    if record.excluded:
        return Cause.INFRASTRUCTURE
    if record.success:
        return None
    if task_defects:
        return Cause.TASK_DEFECT
    if any(finding.severity is Severity.ERROR for finding in findings):
        return Cause.SIMULATED_USER
    return Cause.AGENT


def _rate(check: str, outcomes: list[tuple[str, bool]], bootstrap: Bootstrap) -> CheckRate:
    """The share of audited simulations the check fired on, per task then averaged over tasks."""
    by_task: dict[str, list[bool]] = {}
    for task_id, fired in outcomes:
        by_task.setdefault(task_id, []).append(fired)
    rates = [sum(fired) / len(fired) for fired in by_task.values()]
    return CheckRate(
        check=check,
        severity=USER_CHECKS[check].severity,
        rule=USER_CHECKS[check].rule,
        audited=len(outcomes),
        fired=sum(fired for _, fired in outcomes),
        rate=rate_estimate(rates, bootstrap),
    )


def _task_defects(task: Task, data_dir: Path | None, notes: list[str]) -> list[str]:
    """The error checks of `tau2 lint` that fire on the task (none when its data cannot be read)."""
    try:
        findings = lint_task(task, data_dir)
    except UserInputError as error:
        notes.append(f"task defects not looked up: {error}")
        return []
    return [finding.check for finding in findings if finding.severity is Severity.ERROR]


def _run_tasks(run: Run, notes: list[str]) -> dict[str, Task] | None:
    """The run's tasks by id as the run played them (persona override applied), when the suite file still
    has the hash the run recorded; None (with a note) otherwise."""
    manifest = run.manifest
    path = Path(manifest.suite_path)
    skipped = f"checks that read the task ({', '.join(sorted(NEEDS_TASK))}) and task defects are left out"
    try:
        if suite_hash(path) != manifest.suite_hash:
            notes.append(f"{path}: the suite changed since the run; {skipped}")
            return None
        tasks = load_task_file(path, manifest.domain)
        persona = None if manifest.config.persona is None else load_persona(manifest.config.persona)
    except (UserInputError, PersonaError, OSError) as error:
        notes.append(f"the run's suite cannot be read ({' '.join(str(error).split())}); {skipped}")
        return None
    if persona is not None:
        text = persona.prompt_text
        tasks = [
            task.model_copy(
                update={"user_scenario": task.user_scenario.model_copy(update={"persona_text": text})}
            )
            for task in tasks
        ]
    return {task.id: task for task in tasks}


def _domain(name: str, notes: list[str]) -> Domain[Any] | None:
    try:
        return get_domain(name)
    except UserInputError as error:
        notes.append(f"the simulated user is not audited: {error}")
        return None
