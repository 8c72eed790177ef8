"""Regrading a run with other judges: every stored transcript's natural-language assertions are judged
again by the new judges, without running a conversation, into a new run directory whose records are the
originals with the new verdicts and the rewards they give, and whose manifest names the run and the
judges. As in a run, a simulation whose reward a deterministic part has already made 0 is not judged (its
assertions are recorded as not needed) unless asked to judge always. A simulation whose judges keep failing
is recorded as an infrastructure error, as a run records it. The original run is only read; the new
directory appears whole, or not at all."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

from pydantic import BaseModel, ConfigDict

from tau2.config import ModelSpec
from tau2.episode import (
    JudgePanel,
    TerminationReason,
    gated_reward,
    judge_needed,
    not_needed,
    rejudged_checks,
    simulation_key,
)
from tau2.errors import UserInputError
from tau2.llm import (
    AuthenticationError,
    InfrastructureError,
    ModelCache,
    call_settings,
    default_limits,
    safe_text,
)
from tau2.regrade._output import claimed_output, require_new_output
from tau2.runner import Outcome, RunTotals, check_credentials, resolved_models
from tau2.runs import (
    RESULTS_FILE,
    RecordWriter,
    RegradedFrom,
    Run,
    RunManifest,
    SimulationRecord,
    load_run,
)
from tau2.tasks import RewardType


class RewardFlip(BaseModel):
    """A simulation whose reward the new judges changed."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    before: float
    after: float


class RegradeResult(BaseModel):
    """What a regrade did: the new run, how many simulations the new judges judged, the flips, and the
    simulations whose judges failed."""

    model_config = ConfigDict(frozen=True)

    manifest: RunManifest
    simulations: int
    judged: int
    """Simulations with natural-language assertions, judged again (those whose judges failed included)."""
    not_needed: int = 0
    """Simulations with natural-language assertions whose judges were not asked: a deterministic part of
    the reward had already failed."""
    flips: list[RewardFlip]
    judge_failures: int = 0
    """Simulations whose judges failed (the provider kept failing): recorded as infrastructure errors,
    as a run records them, which `tau2 run --resume` on the new run runs again."""
    most_common_failure: str | None = None
    """`the most common (K of N): <detail>` over those failures; None without any."""


def statements_of(record: SimulationRecord) -> list[str]:
    """The natural-language assertions a record's judges decided, in the order they were recorded."""
    checked = [c.item for c in record.checks if c.kind is RewardType.NL_ASSERTION and c.item is not None]
    paneled = [statement for judge in record.judges[:1] for statement in judge.verdicts]
    return list(dict.fromkeys([*checked, *paneled]))


async def regrade_judges(
    run_dir: Path, judges: Sequence[ModelSpec], out: Path, *, cache: Path | None = None, always: bool = False
) -> RegradeResult:
    """Judge the stored transcripts of the run in `run_dir` again with `judges` (the first decides the
    reward) into the new run directory `out`, asking the model cache in `cache` first when given; a
    simulation a deterministic part already failed is not judged unless `always`. Bad input (no run, `out`
    not new and empty, no judge, a key missing, records without transcripts, a cache this tau2 cannot
    read) is one `UserInputError` line before any model is asked."""
    if not judges:
        raise UserInputError("no judge given: give --judge-model MODEL (repeat it for more judges)")
    run = load_run(run_dir)
    require_new_output(out, run_dir)
    first, *others = resolved_models(judges)
    check_credentials(None, None, first, others)
    _require_transcripts(run)
    answers = None if cache is None else ModelCache.open(cache)
    manifest = _regraded_manifest(run, [first, *others], cache, always)
    for key, limit in manifest.config.rate_limits.items():
        default_limits().configure(key, limit)
    with claimed_output(out, run_dir):
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.regrade-", dir=out.parent))
        try:
            manifest.save(staging)
            with call_settings(cache=answers):
                flips, failures = await _write_records(run, manifest, staging / RESULTS_FILE)
            staging.rename(out)  # replaces the claimed, empty `out` as a whole: nobody sees half a run
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    asked = skipped = 0
    for record in run.records:
        if statements_of(record) and not record.excluded:
            asked += 1
            skipped += not always and not judge_needed(record.checks, record.termination, record.reward)
    return RegradeResult(
        manifest=manifest,
        simulations=len(run.records),
        judged=asked - skipped,
        not_needed=skipped,
        flips=flips,
        judge_failures=failures.records,
        most_common_failure=failures.most_common_failure(),
    )


def _require_transcripts(run: Run) -> None:
    """Every simulation with assertions to judge needs its stored transcript."""
    missing = [
        record
        for record in run.records
        if not record.excluded and record.trajectory is None and statements_of(record)
    ]
    if missing:
        first = missing[0]
        raise UserInputError(
            f"{run.path}: {len(missing)} simulations have no stored transcript to judge again "
            f"(first: task {first.task_id!r}, trial {first.trial})"
        )
    if not any(statements_of(record) for record in run.records if not record.excluded):
        raise UserInputError(f"{run.path}: no simulation has natural-language assertions to judge")


def _regraded_manifest(run: Run, judges: list[ModelSpec], cache: Path | None, always: bool) -> RunManifest:
    """The original manifest under a new identity, with the new judges (asked always, or when needed; and
    the model cache they asked) and where it was regraded from."""
    original = run.manifest
    update = {"judge": judges[0], "extra_judges": judges[1:], "cache": cache, "judge_always": always}
    config = original.config.model_copy(update=update)
    return original.model_copy(
        update={
            "run_id": uuid4().hex[:12],
            "created_at": datetime.now(UTC),
            "config": config,
            "regraded_from": RegradedFrom(
                run_id=original.run_id,
                path=str(run.path.resolve()),
                judges=[judge.name for judge in judges],
            ),
        }
    )


async def _write_records(
    run: Run, manifest: RunManifest, results: Path
) -> tuple[list[RewardFlip], RunTotals]:
    """Judge the records `concurrency` at a time, appending each in the original order; the flips, and the
    tally of the simulations whose judges failed."""
    panel = JudgePanel.of(manifest.config.judges)
    assert panel is not None
    slots = asyncio.Semaphore(manifest.config.concurrency)

    async def regraded(record: SimulationRecord) -> SimulationRecord:
        async with slots:
            return await _regraded(panel, record, manifest.run_id, manifest.config.judge_always)

    pending = [asyncio.create_task(regraded(record)) for record in run.records]
    flips: list[RewardFlip] = []
    failures = RunTotals(len(run.records))
    try:
        async with RecordWriter(results) as writer:
            for original, task in zip(run.records, pending, strict=True):
                record = await task
                writer.write(record)
                if record.excluded and not original.excluded:
                    failures.add(Outcome.of(record))
                elif record.reward != original.reward:
                    flips.append(
                        RewardFlip(
                            task_id=record.task_id,
                            trial=record.trial,
                            before=original.reward,
                            after=record.reward,
                        )
                    )
    finally:
        for task in pending:
            task.cancel()
    return flips, failures


async def _regraded(
    panel: JudgePanel, record: SimulationRecord, run_id: str, always: bool
) -> SimulationRecord:
    """The record with the panel's verdicts on its assertions and the reward they give; a simulation
    without assertions to judge (or an infrastructure error) only changes runs, one a deterministic part
    already failed has its assertions not needed (unless `always`)."""
    statements = statements_of(record)
    if record.excluded or not statements or record.trajectory is None:
        return record.model_copy(update={"run_id": run_id})
    if not always and not judge_needed(record.checks, record.termination, record.reward):
        skipped = not_needed(statements)
        return record.model_copy(
            update={
                "run_id": run_id,
                "checks": rejudged_checks(record.checks, skipped.verdicts),
                "judge_usage": None,
                "judges": [],
                "judge_skipped": skipped.skipped,
            }
        )
    try:
        judgement = await panel.judge(
            simulation_key(record.task_id, record.seed), record.trajectory, statements
        )
    except AuthenticationError:
        raise  # refused credentials stop the regrade at once, as they stop a run
    except InfrastructureError as error:  # as in a run: recorded, excluded from metrics, run on resume
        detail = safe_text(f"judge: {type(error).__name__}: {error}")
        return record.model_copy(
            update={
                "run_id": run_id,
                "reward": 0.0,
                "termination": TerminationReason.INFRASTRUCTURE_ERROR,
                "termination_detail": detail,
            }
        )
    checks = rejudged_checks(record.checks, judgement.verdicts)
    gated = any(check.gating for check in checks if check.kind is RewardType.NL_ASSERTION)
    reward = gated_reward(checks, record.termination) if gated else record.reward
    return record.model_copy(
        update={
            "run_id": run_id,
            "checks": checks,
            "reward": reward,
            "judge_usage": judgement.usage,
            "judges": judgement.judges,
            "judge_skipped": None,
            # the same transcript of the same task: its findings stand; task defects belong to failures
            "task_defects": record.task_defects if reward < 1.0 else None,
        }
    )
