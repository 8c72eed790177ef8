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

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from tau2.audit._findings import Severity
from tau2.audit._lint import lint_task
from tau2.audit._user_checks import NEEDS_TASK, USER_CHECKS, SeatTools, UserFinding, audit_trajectory
from tau2.episode import Mode
from tau2.errors import UserInputError
from tau2.metrics import Bootstrap, Estimate, rate_estimate
from tau2.personas import PersonaError, load_persona
from tau2.runner import suite_hash
from tau2.runs import Run, RunManifest, SimulationRecord
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


@dataclass(frozen=True, slots=True, kw_only=True)
class SimulationAudit:
    """One simulation's audit: the simulated-user findings, the task's error findings, and the cause its
    failure is attributed to (None when it passed). A slotted dataclass: a report holds one per simulation."""

    task_id: str
    trial: int
    success: bool
    findings: list[UserFinding] = field(default_factory=list)
    task_defects: list[str] = field(default_factory=list)
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
    auditor = RunAuditor(run.manifest, bootstrap)
    for record in run.records:
        auditor.add(record)
    return auditor.result()


_NONE_FOUND: Final[list[UserFinding]] = []
_NO_DEFECTS: Final[list[str]] = []
"""The empty lists every clean simulation's audit shares (audits are read, never changed)."""


class RunAuditor:
    """The audit of a run folded one record at a time: each record's trajectory is audited as it is added
    and only its findings are kept (per check, per-task counts of audited and fired simulations)."""

    def __init__(self, manifest: RunManifest, bootstrap: Bootstrap) -> None:
        self._notes: list[str] = []
        self._tasks = _run_tasks(manifest, self._notes)
        self._domain = _domain(manifest.domain, self._notes)
        self._data_dir = manifest.config.data_dir
        self._interactive = manifest.mode is Mode.INTERACTIVE
        self._bootstrap = bootstrap
        self._defects: dict[str, list[str]] = {}
        self._seats: dict[tuple[str, ...] | None, SeatTools] = {}
        self._audits: list[SimulationAudit] = []
        self._audited: dict[str, dict[str, list[int]]] = {check: {} for check in USER_CHECKS}
        """Per check, per task (in order of first appearance): [simulations audited, simulations fired]."""
        self._untraced = False

    def add(self, record: SimulationRecord) -> SimulationAudit:
        """Audit one record; returns its audit."""
        task = self._tasks.get(record.task_id) if self._tasks is not None else None
        findings: list[UserFinding] = []
        domain = self._domain
        if self._interactive and not record.excluded and record.trajectory is None:
            self._untraced = True
        if self._interactive and domain is not None and record.trajectory is not None and not record.excluded:
            offered = None if task is None or task.user_tools is None else tuple(task.user_tools)
            if offered not in self._seats:
                self._seats[offered] = SeatTools.of(domain, task)
            findings = audit_trajectory(record.trajectory, self._seats[offered], task)
            fired = {finding.check for finding in findings}
            for check in USER_CHECKS:
                if task is not None or check not in NEEDS_TASK:
                    counts = self._audited[check].setdefault(record.task_id, [0, 0])
                    counts[0] += 1
                    counts[1] += check in fired
        task_defects: list[str] = []
        if not record.success and not record.excluded and task is not None:
            if record.task_id not in self._defects:
                self._defects[record.task_id] = _task_defects(task, self._data_dir, self._notes)
            task_defects = self._defects[record.task_id]
        audit = SimulationAudit(
            task_id=record.task_id,
            trial=record.trial,
            success=record.success,
            findings=findings or _NONE_FOUND,
            task_defects=task_defects or _NO_DEFECTS,
            cause=attribute(record, findings, task_defects),
        )
        self._audits.append(audit)
        return audit

    def result(self) -> RunAudit:
        """The audit of the records added so far."""
        notes = list(self._notes)
        if self._untraced:
            notes.append("some records hold no trajectory: their simulated user is not audited")
        counts = Counter(audit.cause for audit in self._audits)
        return RunAudit(
            checks=[_rate(check, self._audited[check], self._bootstrap) for check in USER_CHECKS],
            attribution={cause.value: counts[cause] for cause in Cause},
            simulations=self._audits,
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


def _rate(check: str, by_task: dict[str, list[int]], bootstrap: Bootstrap) -> CheckRate:
    """The share of audited simulations the check fired on, per task then averaged over tasks."""
    rates = [fired / audited for audited, fired in by_task.values()]
    return CheckRate(
        check=check,
        severity=USER_CHECKS[check].severity,
        rule=USER_CHECKS[check].rule,
        audited=sum(audited for audited, _ in by_task.values()),
        fired=sum(fired for _, fired in by_task.values()),
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


def _run_tasks(manifest: RunManifest, notes: list[str]) -> dict[str, Task] | None:
    """The run's tasks by id as the run played them (persona override applied), when the suite file still
    has the hash the run recorded; None (with a note) otherwise."""
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
