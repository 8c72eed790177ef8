"""The audit of a run: the simulated-user checks of every interactive simulation, the rate of each with an
interval (the machinery of pass^k: per-task rates averaged over tasks, bootstrap and Wilson), and the
attribution of every failed simulation to its first cause.

Attribution, in this order: an infrastructure failure (excluded from metrics); else a task defect (the
task has an error finding of `tau2 lint`); else the simulated user (an error finding of the simulated-user
audit); else the agent. The runner records each simulation's findings and task defects as it is judged,
and the audit counts those. Records without them (made before runs recorded them) are audited here: the
tasks are read again from the suite the run names, when its file still has the hash the run recorded;
otherwise the checks that need a task, and task defects, are left out (said in `notes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any, Final

import numpy as np
from pydantic import BaseModel, ConfigDict

from tau2.audit._conversations import conversation_key
from tau2.episode import Mode, Trajectory
from tau2.errors import UserInputError
from tau2.findings import Severity, UserFinding, user_checks
from tau2.metrics import NO_ESTIMATE, Bootstrap, Estimate, rate_estimates
from tau2.runs import (
    RecordFile,
    RecordHead,
    Run,
    RunManifest,
    SimulationRecord,
    TrajectoryRecord,
    require_named_domain,
)
from tau2.tasks import Domain, Task, get_domain
from tau2.tau2bench import load_task_file


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


class _Scope(IntEnum):
    """The simulated-user checks a simulation was audited on."""

    NONE = 0
    WITHOUT_TASK = 1
    """The checks that need no task (the run's suite changed or cannot be read)."""
    ALL = 2


class RunAuditor:
    """The audit of a run folded one record at a time, keeping only each simulation's findings.

    A record that carries its findings (the runner records them as each simulation is judged) is counted
    as it is: nothing is read or checked again. A record without them (made before runs recorded them) is
    audited here, which needs the run's tasks and domain (loaded on the first such record, never for a
    run whose records all carry findings) and, for the simulated user, the trajectory: a `RecordHead`
    without one is set aside when added, and its trajectory read from the run's records given to `result`
    (a `RecordFile` reads only those lines, and only their trajectories). Conversations that differ only in
    timing get the same findings, so each is checked once per task (`conversation_key`).
    """

    def __init__(self, manifest: RunManifest, bootstrap: Bootstrap) -> None:
        self._manifest = manifest
        self._interactive = manifest.mode is Mode.INTERACTIVE
        self._bootstrap = bootstrap
        self._fallback: _ReportTimeAudit | None = None
        self._audits: list[SimulationAudit] = []
        self._scopes: list[_Scope] = []
        self._set_aside: dict[tuple[str, int], int] = {}
        """Heads whose trajectory the audit needs, by unit: their place in `_audits`."""
        self._untraced = False

    def add(self, record: RecordHead) -> None:
        """Add one record (a full record, or only its head) to the audit."""
        needs_trajectory = self._interactive and not record.excluded and record.user_findings is None
        if needs_trajectory and not isinstance(record, SimulationRecord):
            self._set_aside[record.task_id, record.trial] = len(self._audits)
            self._audits.append(_audit(record, _NONE_FOUND, self._task_defects(record)))  # findings: `result`
            self._scopes.append(_Scope.NONE)
            return
        audit, scope = self._audited(record)
        self._audits.append(audit)
        self._scopes.append(scope)

    def result(self, records: Sequence[SimulationRecord] | None = None) -> RunAudit:
        """The audit of the records added so far; `records` (the run's) are needed when heads without
        recorded findings were added."""
        self._audit_set_aside(records)
        notes = [] if self._fallback is None else list(self._fallback.notes)
        if self._untraced:
            notes.append("some records hold no trajectory: their simulated user is not audited")
        counts = Counter(audit.cause for audit in self._audits)
        return RunAudit(
            checks=self._rates(),
            attribution={cause.value: counts[cause] for cause in Cause},
            simulations=self._audits,
            notes=list(dict.fromkeys(notes)),
        )

    def _report_time(self) -> _ReportTimeAudit:
        """What auditing records without findings needs, loaded on first use."""
        if self._fallback is None:
            self._fallback = _ReportTimeAudit(self._manifest)
        return self._fallback

    def _audited(self, record: RecordHead) -> tuple[SimulationAudit, _Scope]:
        """The record's audit, from its recorded findings or, without them, audited here (a record without
        recorded simulated-user findings in an interactive run is a full one); and the checks it ran."""
        user_findings, scope = _NONE_FOUND, _Scope.NONE
        if self._interactive and not record.excluded:
            if record.user_findings is not None:
                user_findings, scope = record.user_findings, _Scope.ALL
            else:
                assert isinstance(record, SimulationRecord), "a head without findings is set aside"
                user_findings, scope = self._audit_user(record.task_id, record.trajectory)
        return _audit(record, user_findings, self._task_defects(record)), scope

    def _task_defects(self, record: RecordHead) -> list[str]:
        """The task defects of a failed valid record: recorded, or looked up."""
        if record.success or record.excluded:
            return _NO_DEFECTS
        recorded = record.task_defects
        return recorded if recorded is not None else self._looked_up_defects(record)

    def _audit_user(self, task_id: str, trajectory: Trajectory | None) -> tuple[list[UserFinding], _Scope]:
        """The simulated-user checks of a record without recorded findings, and the checks it ran."""
        if trajectory is None:
            self._untraced = True
            return _NONE_FOUND, _Scope.NONE
        fallback = self._report_time()
        if fallback.findings is None:
            return _NONE_FOUND, _Scope.NONE
        task = fallback.task(task_id)
        findings = fallback.findings.user_findings(trajectory, task)
        return findings, _Scope.ALL if task is not None else _Scope.WITHOUT_TASK

    def _looked_up_defects(self, record: RecordHead) -> list[str]:
        """The task defects of a failed record without recorded ones."""
        fallback = self._report_time()
        task = fallback.task(record.task_id)
        return _NO_DEFECTS if task is None else fallback.task_defects(task)

    def _audit_set_aside(self, records: Sequence[SimulationRecord] | None) -> None:
        """Audit the simulated user of the heads set aside, their trajectories read from the run's records
        (from a `RecordFile`, only their lines and only their trajectories; a conversation seen before in
        the same task is not checked again)."""
        places = self._set_aside
        if not places:
            return
        if records is None:
            raise ValueError("heads without recorded findings were added: give result the run's records")
        if isinstance(records, RecordFile):
            seen: dict[bytes, tuple[list[UserFinding], _Scope]] = {}
            for line, data in records.where(lambda line: (line.task_id, line.trial) in places).objects():
                key = conversation_key(line.task_id, data)
                found = None if key is None else seen.get(key)
                if found is None:
                    trajectory = records.validate(line, data, TrajectoryRecord).trajectory
                    found = self._audit_user(line.task_id, trajectory)
                    if key is not None:
                        seen[key] = found
                self._complete(places[line.task_id, line.trial], *found)
        else:
            for record in records:
                place = places.get((record.task_id, record.trial))
                if place is not None:
                    self._complete(place, *self._audit_user(record.task_id, record.trajectory))
        places.clear()

    def _complete(self, place: int, findings: list[UserFinding], scope: _Scope) -> None:
        """Give the audit set aside at `place` its simulated-user findings (and the cause they make)."""
        audit = self._audits[place]
        self._audits[place] = SimulationAudit(
            task_id=audit.task_id,
            trial=audit.trial,
            success=audit.success,
            findings=findings or _NONE_FOUND,
            task_defects=audit.task_defects,
            cause=_cause(audit.success, findings, audit.task_defects),
        )
        self._scopes[place] = scope

    def _rates(self) -> list[CheckRate]:
        """Each check's rate: per task (in order of the task's first audited simulation), the simulations
        audited on the check and those it fired on."""
        known = user_checks()
        audited: dict[_Scope, dict[str, int]] = {_Scope.WITHOUT_TASK: {}, _Scope.ALL: {}}
        fired: dict[str, Counter[str]] = {check: Counter() for check in known}
        for audit, scope in zip(self._audits, self._scopes, strict=True):
            if scope is _Scope.NONE:
                continue
            for at in (_Scope.WITHOUT_TASK, _Scope.ALL) if scope is _Scope.ALL else (_Scope.WITHOUT_TASK,):
                audited[at][audit.task_id] = audited[at].get(audit.task_id, 0) + 1
            for finding in audit.findings:
                if finding.check in fired:  # a check recorded by a run that had it installed, unknown here
                    fired[finding.check][audit.task_id] += 1
        rates: dict[str, Estimate] = {}
        for scope in (_Scope.WITHOUT_TASK, _Scope.ALL):
            checks = [name for name, check in known.items() if check.needs_task is (scope is _Scope.ALL)]
            estimates = _rate_estimates(checks, audited[scope], fired, self._bootstrap)
            rates.update(zip(checks, estimates, strict=True))
        return [
            CheckRate(
                check=check,
                severity=known[check].severity,
                rule=known[check].rule,
                audited=sum(audited[_Scope.ALL if known[check].needs_task else _Scope.WITHOUT_TASK].values()),
                fired=sum(fired[check].values()),
                rate=rates[check],
            )
            for check in known
        ]


def _audit(record: RecordHead, findings: list[UserFinding], task_defects: list[str]) -> SimulationAudit:
    return SimulationAudit(
        task_id=record.task_id,
        trial=record.trial,
        success=record.success,
        findings=findings or _NONE_FOUND,
        task_defects=task_defects or _NO_DEFECTS,
        cause=attribute(record, findings, task_defects),
    )


class _ReportTimeAudit:
    """What the audit of records without findings needs: the run's tasks as played and its domain."""

    def __init__(self, manifest: RunManifest) -> None:
        self.notes: list[str] = []
        named = _named_domain(manifest, self.notes)
        self._tasks = _run_tasks(manifest, self.notes) if named else None
        domain = _domain(manifest.domain, self.notes) if named else None
        from tau2.findings import RunFindings  # the lint checks load only for records without findings

        self.findings = None if domain is None else RunFindings(domain, manifest.config.data_dir)

    def task(self, task_id: str) -> Task | None:
        """The task as the run played it; None when the suite cannot tell."""
        return None if self._tasks is None else self._tasks.get(task_id)

    def task_defects(self, task: Task) -> list[str]:
        """The error checks of `tau2 lint` that fire on the task (none, with a note, when its data cannot
        be read)."""
        if self.findings is None:
            return _NO_DEFECTS
        try:
            return self.findings.task_defects(task)
        except UserInputError as error:
            self.notes.append(f"task defects not looked up: {error}")
            return _NO_DEFECTS


def attribute(
    record: RecordHead, findings: Sequence[UserFinding], task_defects: Sequence[str]
) -> Cause | None:
    """The first cause of a failed simulation (None for a success): infrastructure, a task defect, the
    simulated user (an error finding), else the agent."""
    return Cause.INFRASTRUCTURE if record.excluded else _cause(record.success, findings, task_defects)


def _cause(success: bool, findings: Sequence[UserFinding], task_defects: Sequence[str]) -> Cause | None:
    """The first cause of a valid simulation's failure (None for a success)."""
    if success:
        return None
    if task_defects:
        return Cause.TASK_DEFECT
    if any(finding.severity is Severity.ERROR for finding in findings):
        return Cause.SIMULATED_USER
    return Cause.AGENT


def _rate_estimates(
    checks: list[str], audited: dict[str, int], fired: dict[str, Counter[str]], bootstrap: Bootstrap
) -> list[Estimate]:
    """Each check's share of the audited simulations it fired on, per task then averaged over tasks: the
    checks audited on the same simulations estimated together (each as it would be alone)."""
    if not audited:
        return [NO_ESTIMATE] * len(checks)
    shares = [[fired[check][task_id] / count for task_id, count in audited.items()] for check in checks]
    return rate_estimates(np.asarray(shares, dtype=np.float64).reshape(len(checks), -1), bootstrap)


def _run_tasks(manifest: RunManifest, notes: list[str]) -> dict[str, Task] | None:
    """The run's tasks by id as the run played them (persona override applied), when the suite file still
    has the hash the run recorded; None (with a note) otherwise."""
    from tau2.personas import PersonaError  # these load only for records made before runs recorded findings
    from tau2.runner import suite_hash

    path = Path(manifest.suite_path)
    needing = sorted(name for name, check in user_checks().items() if check.needs_task)
    skipped = f"checks that read the task ({', '.join(needing)}) and task defects are left out"
    try:
        if suite_hash(path) != manifest.suite_hash:
            notes.append(f"{path}: the suite changed since the run; {skipped}")
            return None
        tasks = as_played(load_task_file(path, manifest.domain), manifest.config.persona)
    except (UserInputError, PersonaError, OSError) as error:
        notes.append(f"the run's suite cannot be read ({' '.join(str(error).split())}); {skipped}")
        return None
    return {task.id: task for task in tasks}


def as_played(tasks: list[Task], persona: str | None) -> list[Task]:
    """`tasks` as the customer of a run with the persona override `persona` plays them (its text in their
    scenario); raises `PersonaError` when the persona cannot be read."""
    if persona is None:
        return tasks
    from tau2.personas import load_persona  # only a run with a persona override needs the personas

    loaded = load_persona(persona)
    return [task.played_as(loaded.label, loaded.prompt_text) for task in tasks]


def _named_domain(manifest: RunManifest, notes: list[str]) -> bool:
    """Whether the run's domain may be looked up (no reference the user has not named); a note if not."""
    try:
        require_named_domain(manifest, "the run's manifest")
    except UserInputError as error:
        notes.append(f"the run's tasks and simulated user are not audited: {error}")
        return False
    return True


def _domain(name: str, notes: list[str]) -> Domain[Any] | None:
    try:
        return get_domain(name)
    except UserInputError as error:
        notes.append(f"the simulated user is not audited: {error}")
        return None
