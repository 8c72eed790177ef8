"""Turning what an episode produced (or why it could not run) into the store's `SimulationRecord`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import Any

from pydantic import BaseModel

from tau2.episode import EpisodeConfig, EpisodeResult, Mode, TerminationReason
from tau2.errors import UserInputError
from tau2.findings import Collateral, RunFindings
from tau2.runs import Provenance, SimulationRecord
from tau2.tasks import Task
from tau2.world import RecordWrite, StateChange


def episode_record(
    task: Task,
    trial: int,
    result: EpisodeResult,
    *,
    run_id: str | None = None,
    provenance: Provenance | None = None,
    findings: RunFindings | None = None,
) -> SimulationRecord:
    """The record of a finished episode of `task` (already carrying any persona override) in run `run_id`,
    scored against `provenance`; with the run's `findings`, it records what they find on it."""
    evaluation = result.evaluation
    trajectory = result.trajectory
    record = SimulationRecord(
        **_unit_fields(task, trial, result.config, run_id, provenance),
        reward=result.reward,
        termination=result.termination,
        termination_detail=trajectory.termination_detail,
        expects_transfer=evaluation.expects_transfer,
        assertions=evaluation.assertions,
        actions=evaluation.actions,
        tool_errors=evaluation.tool_errors,
        format_failures=trajectory.format_failures(),
        steps=trajectory.steps,
        usage=trajectory.usage,
        checks=evaluation.checks,
        judge_usage=evaluation.judge_usage,
        judges=evaluation.judges,
        judge_skipped=evaluation.judge_skipped,
        duration_s=result.timing.setup_s + result.timing.conversation_s + result.timing.evaluation_s,
        state_changes=result.state_changes,
        retrieval=evaluation.retrieval,
        perturbation=result.perturbation,
        trajectory=trajectory,
    )
    return (
        record
        if findings is None
        else with_findings(
            record, task, findings, result.record_writes, played=result.played, played_base=result.played_base
        )
    )


def with_findings(
    record: SimulationRecord,
    task: Task,
    findings: RunFindings,
    writes: Mapping[str, RecordWrite] | None = None,
    *,
    played: Task | None = None,
    played_base: BaseModel | None = None,
) -> SimulationRecord:
    """`record` of a simulation of `task` with its findings: the simulated-user checks that fired, for an
    interactive simulation, read against the task as played (`played`, when a perturbation changed it: the
    brief the customer was given), its task's defects, for a failed one (none for infrastructure failures,
    and none when the task's data cannot be read: the report looks them up again), and, given the records
    its changes touched (`writes`, by path), its collateral damage beside the task's reference solution (as
    played: on a renamed world, `played_base`, the renamed reference)."""
    if record.excluded:
        return record
    update: dict[str, Any] = {}
    if writes is not None:
        collateral = _collateral(task, findings, writes, record.state_changes, played, played_base)
        if collateral is not None:
            update = {"collateral": collateral.extra, "missing_writes": collateral.missing}
    user_findings = None
    if record.mode is Mode.INTERACTIVE and record.trajectory is not None:
        user_findings = findings.user_findings(record.trajectory, played or task)
    task_defects = None
    if not record.success:
        with suppress(UserInputError):
            task_defects = findings.task_defects(task)
    return record.model_copy(update={**update, "user_findings": user_findings, "task_defects": task_defects})


def crash_record(
    task: Task,
    trial: int,
    config: EpisodeConfig,
    error: BaseException,
    *,
    run_id: str | None = None,
    provenance: Provenance | None = None,
) -> SimulationRecord:
    """The record of an episode the framework itself failed to run: an infrastructure error, re-run on
    resume, so one broken simulation never stops the hundreds beside it."""
    return SimulationRecord(
        **_unit_fields(task, trial, config, run_id, provenance),
        reward=0.0,
        termination=TerminationReason.INFRASTRUCTURE_ERROR,
        termination_detail=f"runner: {type(error).__name__}: {error}",
        expects_transfer=task.evaluation.expects_transfer,
    )


def _unit_fields(
    task: Task, trial: int, config: EpisodeConfig, run_id: str | None, provenance: Provenance | None
) -> dict[str, Any]:
    """The fields every record of a (task, trial) carries, whether or not its episode ran."""
    assert config.seed is not None, "the runner always seeds its episodes"
    return {
        "run_id": run_id,
        "task_id": task.id,
        "trial": trial,
        "seed": config.seed,
        "intent": task.intent,
        "subtasks": task.subtasks,
        "persona": task.persona,
        "mode": config.mode,
        "oracle_plan": config.oracle_plan,
        "provenance": provenance,
    }


def _collateral(
    task: Task,
    findings: RunFindings,
    writes: Mapping[str, RecordWrite],
    changes: Sequence[StateChange],
    played: Task | None,
    played_base: BaseModel | None,
) -> Collateral | None:
    """The collateral damage of a simulation beside the reference solution it was played against: on a
    renamed world, the renamed task's on the renamed state; otherwise the task's own (cached per task). A
    task played with another reference but no state to replay it on is not measured (None)."""
    if played_base is not None:
        return findings.collateral(played or task, writes, changes, base=played_base)
    if played is None or (played.evaluation == task.evaluation and played.initial_data == task.initial_data):
        return findings.collateral(task, writes, changes)
    return None
