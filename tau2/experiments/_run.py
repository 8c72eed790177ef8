"""Running an experiment: every arm prepared as an ordinary run in its own directory, their units
interleaved through one executor (any of the runner's), the whole plan or adaptive rounds under a budget, a
spend cap enforced while running, and `--resume` running only what the arms' stores lack."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tau2.actors import pairing_warning
from tau2.api import RunResult, load_run_result
from tau2.config import EXECUTION_SETTINGS, ConfigLayer
from tau2.errors import UserInputError
from tau2.experiments._allocation import Allocation, Budget, StopReason, allocate
from tau2.experiments._config import ExperimentConfig
from tau2.experiments._cost import CostEstimate, estimate_cost
from tau2.experiments._directory import claim_directory, experiment_manifest
from tau2.experiments._manifest import ExperimentManifest, ExperimentStatus, ExperimentStop, arm_run_dir
from tau2.experiments._plan import ArmsState, record_cost
from tau2.experiments._rounds import Rounds
from tau2.experiments._tally import ArmsTally
from tau2.runner import ArmUnit, PreparedRun, RunProgress, Tally, drive_runs, prepare_run
from tau2.runs import MANIFEST_FILE, PYTHON, DirectoryWords, RunDirectoryLock, SimulationRecord, load_run

ROUND_SHARE = 10
"""An adaptive round gives one more trial to at least a tenth of the tasks (and enough to fill the
executor's concurrency), so rounds stay few while the allocation still follows the outcomes."""

_STOPS = {
    StopReason.TARGET: ExperimentStop.TARGET,
    StopReason.BUDGET: ExperimentStop.MAX_SIMULATIONS,
    StopReason.TRIALS: ExperimentStop.COMPLETE,
}


class ExperimentProgress(RunProgress):
    """What an experiment reports as it goes: a run's hooks (one tally over every arm) and, before the
    first simulation, its cost estimate."""

    def estimate(self, estimate: CostEstimate) -> None:
        """The likely cost of what is left to simulate (`estimate.line()` says it in one line)."""


class ExperimentResult:
    """An experiment directory's results: its manifest (with why the last session stopped) and one run
    per arm, read from the arms' stores when asked for."""

    def __init__(self, path: Path, manifest: ExperimentManifest, estimate: CostEstimate) -> None:
        self.path = path
        """The experiment directory."""
        self.manifest = manifest
        """The experiment's configuration (secrets redacted) and its status."""
        self.estimate = estimate
        """The cost estimate printed before the last session's first simulation."""

    @property
    def status(self) -> ExperimentStatus | None:
        """Why the last session stopped, what it had simulated and spent."""
        return self.manifest.status

    def arm(self, name: str) -> RunResult:
        """The run of arm `name`."""
        self.manifest.config.arm(name)  # a KeyError for an unknown arm
        return load_run_result(arm_run_dir(self.path, name))

    @property
    def arms(self) -> dict[str, RunResult]:
        """Every arm's run, by name, in the experiment's order."""
        return {arm.name: self.arm(arm.name) for arm in self.manifest.config.arms}

    def __repr__(self) -> str:
        return f"ExperimentResult({str(self.path)!r}, name={self.manifest.config.name!r})"


@dataclass(frozen=True)
class OpenExperiment:
    """An experiment whose directory and arms' directories are claimed and whose arms are prepared."""

    out: Path
    config: ExperimentConfig
    manifest: ExperimentManifest
    arms: list[PreparedRun]
    state: ArmsState
    max_cost_usd: float | None
    progress: ExperimentProgress
    tally: ArmsTally
    """The live counts, over what the arms' stores held when the experiment was opened."""

    @property
    def budgeted(self) -> bool:
        """Whether trials are allocated adaptively: the budget sets a limit or a target."""
        budget = self.config.budget
        limits = (budget.max_simulations, self.max_cost_usd, budget.target_half_width)
        return any(limit is not None for limit in limits)

    def allocation_budget(self) -> Budget:
        """The budget the adaptive allocation works to: the experiment's simulations cap, or every task's
        base trials in every arm."""
        budget = self.config.budget
        full = len(self.state.task_ids) * self.arms[0].manifest.trials * len(self.arms)
        return Budget(
            max_simulations=full if budget.max_simulations is None else min(full, budget.max_simulations),
            target_half_width=budget.target_half_width,
            initial_trials=budget.initial_trials,
        )

    def planned(self) -> int:
        """Simulations the experiment may still start in this session, as far as the plan says."""
        left = len(self.state.all_units(self.arms[0].manifest.trials))
        if not self.budgeted:
            return left
        done = len(self.state.ended())
        return max(0, min(left, self.allocation_budget().max_simulations - done))

    async def execute(self) -> ExperimentResult:
        """Print the cost estimate, then simulate until the plan, the target or a limit says stop; the
        experiment file records why."""
        arms = [(run.run_dir.name, run.manifest) for run in self.arms]
        observed = {arm: spent / ended for arm, (spent, ended) in enumerate(self.state.costs()) if spent}
        estimate = estimate_cost(arms, self.planned(), observed=observed)
        self.progress.estimate(estimate)
        if self.max_cost_usd is not None and estimate.unpriced:
            self.progress.warning(
                f"the spend cap counts priced models only; unpriced: {', '.join(estimate.unpriced)}"
            )
        stopped = ExperimentStop.INTERRUPTED
        tally = self.tally
        tally.total = self.allocation_budget().max_simulations
        try:
            stopped = await self._simulate(_SpendCap(self.max_cost_usd, tally, estimate, self.state), tally)
        finally:
            final = self._status_manifest(stopped)
            final.save(self.out)
        return ExperimentResult(self.out, final, estimate)

    async def _simulate(self, cap: _SpendCap, tally: ArmsTally) -> ExperimentStop:
        """Simulate round by round on the arms' executor; why it stopped."""
        state = self.state
        trials = self.arms[0].manifest.trials
        stop: StopReason | None = None  # why the allocation ended the rounds, if it did

        def finished(item: ArmUnit, record: SimulationRecord) -> None:
            state.add(item.arm, record)
            cap.finished(item, record)
            tally.arm_finished(item.arm, record)

        def next_round() -> list[ArmUnit] | None:
            nonlocal stop
            if not self.budgeted:
                return None
            allocation = self._allocate(trials)
            stop = allocation.stop
            return None if stop is not None else state.next_trials(allocation.tasks)

        first = state.unfinished() if self.budgeted else state.all_units(trials)
        rounds = Rounds(first, self.planned(), next_round=next_round, admit=cap.admit, finished=finished)
        await drive_runs(self.arms, rounds, tally, self.progress)
        if rounds.refused:
            return ExperimentStop.MAX_COST
        return ExperimentStop.COMPLETE if stop is None else _STOPS[stop]

    def _allocate(self, trials: int) -> Allocation:
        """The next adaptive round: one more trial of the tasks whose paired outcome is most uncertain (or
        the initial round's trials), or why to stop."""
        state = self.state
        baseline = next(i for i, arm in enumerate(self.config.arms) if arm.name == self.config.baseline)
        order = [baseline, *(i for i in range(len(self.arms)) if i != baseline)]
        counts = state.counts(order)
        budget = self.allocation_budget()
        initial = bool((counts[0].planned < budget.initial_trials).any())
        adaptive_round = max(
            1, len(state.task_ids) // ROUND_SHARE, self.arms[0].config.concurrency // len(order)
        )
        return allocate(
            counts,
            budget,
            round_size=len(state.task_ids) if initial else adaptive_round,
            seed=state.seed,
            max_trials=trials,
        )

    def _status_manifest(self, stopped: ExperimentStop) -> ExperimentManifest:
        ended = self.state.ended()
        status = ExperimentStatus(
            stopped=stopped,
            simulations=len(ended),
            cost_usd=sum(one.cost for one in ended),
            unpriced=any(one.unpriced for one in ended),
            max_cost_usd=self.max_cost_usd,
            updated_at=datetime.now(UTC),
        )
        return self.manifest.model_copy(update={"status": status})


class _SpendCap:
    """Admits a simulation only while what was spent, plus what the simulations in flight and this one
    will likely cost, stays within the cap. The likely cost of one simulation of an arm is the mean of
    that arm's so far, or the estimate's before it has one; one in flight counts as the dearest arm's."""

    def __init__(self, cap: float | None, tally: Tally, estimate: CostEstimate, state: ArmsState) -> None:
        self._cap = cap
        self._tally = tally
        self._prior = list(estimate.per_simulation_usd.values())
        costs = state.costs()
        self._spent = [cost for cost, _ in costs]
        self._ended = [count for _, count in costs]

    def finished(self, item: ArmUnit, record: SimulationRecord) -> None:
        """A simulation of `item.arm` ended with `record`."""
        self._spent[item.arm] += record_cost(record)
        self._ended[item.arm] += 1

    def admit(self, item: ArmUnit) -> bool:
        """Whether `item` may start."""
        if self._cap is None:
            return True
        likely = [
            spent / ended if ended and spent else prior
            for spent, ended, prior in zip(self._spent, self._ended, self._prior, strict=True)
        ]
        tally = self._tally
        return tally.cost + tally.running * max(likely) + likely[item.arm] <= self._cap


@contextmanager
def open_experiment(
    config: ExperimentConfig,
    out: Path,
    *,
    resume: bool = False,
    max_cost_usd: float | None = None,
    progress: ExperimentProgress | None = None,
    source: str = "experiment",
    session: Sequence[ConfigLayer] = (),
    words: DirectoryWords = PYTHON,
) -> Iterator[OpenExperiment]:
    """Claim `out` and every arm's directory (no other run may use them meanwhile), check the experiment
    (against the stored one with `resume`), prepare every arm as a run and pass their warnings on.
    `max_cost_usd` replaces the budget's spend cap for this session; `session` holds settings given for
    this session alone over every arm's (the command line's executor options), never stored in the
    experiment file; `source` names the file in messages, and a refused directory says the ways on in
    `words`."""
    progress = progress or ExperimentProgress()
    with ExitStack() as stack:
        _require_shared_executor(config, source)
        stack.enter_context(claim_directory(out, words))
        manifest = experiment_manifest(config, out, resume=resume, words=words)
        arms = []
        for arm in config.arms:
            arm_dir = arm_run_dir(out, arm.name)
            lock = stack.enter_context(RunDirectoryLock(arm_dir, words))
            lock.acquire()
            stored = resume and (arm_dir / MANIFEST_FILE).is_file()
            layers = [*config.arm_layers(arm.name, source=source), *session]
            arms.append(_prepared(layers, arm.name, arm_dir, resume=stored, source=source, words=words))
        for run in arms:
            pairing = pairing_warning(run.manifest.agent, run.manifest.user)
            for warning in [*run.warnings, *([pairing] if pairing else [])]:
                progress.warning(f"arm {run.run_dir.name}: {warning}")
        cap = config.budget.max_cost_usd if max_cost_usd is None else max_cost_usd
        held = [load_run(run.run_dir).records if run.stored else [] for run in arms]
        state = ArmsState(arms[0].manifest.task_ids, arms[0].manifest.seed, held)
        tally = ArmsTally(0, [(run.run_dir.name, records) for run, records in zip(arms, held, strict=True)])
        del held  # only their outcomes are kept
        manifest.save(out)  # new, or with the budget given now
        yield OpenExperiment(out, config, manifest, arms, state, cap, progress, tally)


def _prepared(
    layers: list[ConfigLayer], arm: str, arm_dir: Path, *, resume: bool, source: str, words: DirectoryWords
) -> PreparedRun:
    """Arm `arm` prepared as a run from its settings `layers`; a refusal that does not name where its
    setting was given names the arm."""
    try:
        return prepare_run(layers, arm_dir, resume=resume, words=words)
    except UserInputError as error:
        if str(error).startswith(f"{source}: "):
            raise
        raise UserInputError(f"arm {arm}: {error}") from None


def _require_shared_executor(config: ExperimentConfig, source: str) -> None:
    """The arms run through one executor (local, worker processes or Ray), with one model cache: those
    settings come from the base."""
    for arm in config.arms:
        for setting in EXECUTION_SETTINGS:
            if setting in arm.overrides:
                raise UserInputError(
                    f"{source}: arms.{arm.name}.{setting}: the arms share one executor; set it in [base]"
                )


def run_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    progress: ExperimentProgress | None = None,
    resume: bool = False,
    max_cost_usd: float | None = None,
) -> ExperimentResult:
    """Run the experiment `config` into the new directory `out` (one run directory per arm beside
    `experiment.json`), or with `resume` continue the one stored there, which `config` must match.
    Blocks until the plan is done, the budget's target is reached or a limit would be passed."""
    with open_experiment(
        config, Path(out), resume=resume, max_cost_usd=max_cost_usd, progress=progress
    ) as started:
        return asyncio.run(started.execute())


async def arun_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    progress: ExperimentProgress | None = None,
    resume: bool = False,
    max_cost_usd: float | None = None,
) -> ExperimentResult:
    """`run_experiment` on the running event loop."""
    with open_experiment(
        config, Path(out), resume=resume, max_cost_usd=max_cost_usd, progress=progress
    ) as started:
        return await started.execute()
