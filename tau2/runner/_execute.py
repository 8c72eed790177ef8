"""Executing runs in this process: up to `concurrency` simulations in flight on one event loop, each record
handed to the recorder the moment its simulation ends; and the pieces every executor shares (one simulation,
the manifest written first, the model cache in scope)."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.actors import make_actor
from tau2.episode import EpisodeConfig, JudgePanel, run_episode
from tau2.errors import StorageError
from tau2.llm import AuthenticationError, ModelCache, call_settings, default_limits
from tau2.runner._convert import crash_record, episode_record
from tau2.runner._lanes import run_lanes
from tau2.runner._plan import ArmUnit, Unit, UnitStream
from tau2.runner._prepare import PreparedRun
from tau2.runner._recorder import Recorder
from tau2.runs import MANIFEST_FILE, RunManifest, SimulationRecord, record_provenance
from tau2.world import Side


async def execute_locally(runs: Sequence[PreparedRun], units: UnitStream, recorder: Recorder) -> None:
    """Simulate the stream's units on this event loop, the runs' concurrency at a time, under their rate
    limits and with their model cache.

    Cancelling (Ctrl-C) stops the simulations in flight; the records already finished are written.
    Refused credentials stop every run the same way and raise `AuthenticationError`: no other simulation
    could succeed.
    """
    settings = runs[0].config
    for key, limit in settings.rate_limits.items():
        default_limits().configure(key, limit)

    async def simulate_here(worker: int, item: ArmUnit) -> SimulationRecord:
        run = runs[item.arm]
        return await simulate(run, item.unit, judge_of(run.manifest))

    with call_settings(on_usage=recorder.follow_calls(), cache=model_cache(runs)):
        await run_lanes([min(settings.concurrency, len(units))], units, recorder, simulate_here)


def model_cache(runs: Sequence[PreparedRun]) -> ModelCache | None:
    """The model cache the runs share (their first's setting), or None without one."""
    directory = runs[0].config.cache
    return None if directory is None else ModelCache.open(directory)


def judge_of(manifest: RunManifest) -> JudgePanel | None:
    """The run's judges of natural-language assertions, made for one simulation (their verdicts are cached
    per simulation, so judges shared by a run would keep every verdict of the run); None when the run has
    none."""
    return JudgePanel.of(manifest.config.judges)


def ensure_manifest(prepared: PreparedRun) -> None:
    """Write a new run's manifest (or a resumed one that adds trials) before its first simulation; a
    failed write (a full disk) leaves the directory as it was and says how to go on."""
    run_dir = prepared.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    if prepared.stored and not prepared.manifest_changed:
        return
    try:
        prepared.manifest.save(run_dir)
    except OSError as error:
        recovery = (
            "the run is unchanged: free space and resume again"
            if prepared.stored
            else "nothing was recorded: free space and run the same command again"
        )
        reason = error.strerror or str(error)
        raise StorageError(f"{run_dir / MANIFEST_FILE}: cannot write: {reason}; {recovery}") from None


def episode_config(manifest: RunManifest, seed: int) -> EpisodeConfig:
    """The episode configuration of one unit of the run."""
    return manifest.episode.model_copy(update={"seed": seed})


async def simulate(prepared: PreparedRun, unit: Unit, judge: JudgePanel | None = None) -> SimulationRecord:
    """Run one unit with fresh actors and the run's judges; a failure of the framework itself becomes an
    infrastructure record."""
    manifest = prepared.manifest
    task = prepared.tasks[unit.task_id]
    config = episode_config(manifest, unit.seed)
    user_spec = manifest.user
    provenance = record_provenance(manifest, task.id)
    try:
        agent = make_actor(manifest.agent, Side.AGENT, manifest.mode)
        user = None if user_spec is None else make_actor(user_spec, Side.USER, manifest.mode)
        result = await run_episode(
            task,
            agent,
            user,
            config,
            data_dir=prepared.data_dir,
            agent_label=manifest.agent.label(),
            user_label=None if user_spec is None else user_spec.label(),
            judge=judge,
            judge_always=manifest.config.judge_always,
        )
    except AuthenticationError:
        raise  # no simulation of the run can succeed: the executor stops the run
    except Exception as error:
        return crash_record(task, unit.trial, config, error, run_id=manifest.run_id, provenance=provenance)
    return episode_record(
        task, unit.trial, result, run_id=manifest.run_id, provenance=provenance, findings=prepared.findings
    )
