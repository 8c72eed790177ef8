"""`tau2 import tau2bench`: a τ²-bench results file becomes a run directory. Each recorded trajectory is
replayed in our world from its task's initial state on the given data and evaluated by our evaluator;
the reward τ²-bench recorded is kept beside ours in a sidecar file.

The file is read one simulation at a time and each record is written as soon as it is judged, so memory
stays bounded by the largest simulation, not the file. What would make a run its own reader rejects is
refused first: trial numbers outside 0 … `MAX_TRIALS` - 1; a (task, trial) pair that repeats is
renumbered to the task's first free trial, with a warning naming it.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import IO, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tau2._jsonfile import read_json, validation_error, write_json
from tau2._registry import refuse_data_reference
from tau2.config import MAX_TRIALS, RunConfig
from tau2.episode import ActorSpec, EpisodeConfig, Mode
from tau2.errors import UnknownDomainError, UserInputError
from tau2.findings import RunFindings
from tau2.llm import ModelSpec
from tau2.runner import NewRun, check_new_run_dir, episode_record, sha256_text
from tau2.runs import SimulationRecord
from tau2.tasks import Domain, Task, TaskSetupError, get_domain
from tau2.tau2bench import task_from_tau2
from tau2.tau2bench_results._format import SimulationRun
from tau2.tau2bench_results._read import ResultsFile, open_results
from tau2.tau2bench_results._replay import CallMismatch, replay
from tau2.world import RetrievalConfig, Side

SIDECAR: Final = "tau2bench.json"
"""File in an imported run directory with the rewards τ²-bench recorded beside ours."""
IMPORTED_KIND: Final = "tau2bench"
"""Actor kind of both seats of an imported run; the spec's model is the model τ²-bench names (or, without
one, its implementation), so labels read e.g. `tau2bench:gpt-4.1`."""
DATA_HINT: Final = "τ²-bench's tasks run on τ²-bench's data: give its folder with --data-dir"
_RENUMBERED: Final = "renumbered.jsonl"
"""Records whose (task, trial) repeated, held aside until every trial number of the file is known."""


class ImportedSimulation(BaseModel):
    """One imported simulation: the reward τ²-bench recorded and ours, and how far the replay agreed."""

    model_config = ConfigDict(frozen=True)

    simulation_id: str
    task_id: str
    trial: int
    recorded_reward: float | None
    reward: float
    tool_calls: int
    mismatches: list[CallMismatch] = Field(default_factory=list)
    """Replayed calls whose outcome differs from the recorded one (one succeeded, the other failed, or no
    result was recorded); the wording of results is each implementation's own and is not compared."""
    kept: int = 0
    """Retrieval calls whose recorded answers were kept rather than replayed."""
    policy: str | None = None
    """The hash of the agent instructions τ²-bench recorded for this simulation (their text is kept once
    in `Tau2BenchImport.policies`); None when it recorded none."""

    @property
    def agrees(self) -> bool:
        """Whether our reward equals the recorded one (no recorded reward cannot disagree)."""
        return self.recorded_reward is None or self.recorded_reward == self.reward


class Tau2BenchImport(BaseModel):
    """The sidecar of an imported run."""

    model_config = ConfigDict(frozen=True)

    source: str
    domain: str
    policy: str | None = None
    """The agent policy τ²-bench recorded for the run (an export of the imported run writes it back)."""
    policies: dict[str, str] = Field(default_factory=dict)
    """The agent instructions τ²-bench recorded per simulation, each text once, by its hash."""
    simulations: list[ImportedSimulation] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def disagreements(self) -> list[ImportedSimulation]:
        """Simulations whose recorded reward differs from ours."""
        return [simulation for simulation in self.simulations if not simulation.agrees]

    @property
    def tool_calls(self) -> int:
        """Replayed tool calls over every simulation."""
        return sum(simulation.tool_calls for simulation in self.simulations)

    @property
    def mismatches(self) -> int:
        """Replayed tool calls whose outcome differs from the recorded one."""
        return sum(len(simulation.mismatches) for simulation in self.simulations)

    @property
    def kept(self) -> int:
        """Retrieval calls whose recorded answers were kept, over every simulation."""
        return sum(simulation.kept for simulation in self.simulations)

    def simulation_policies(self) -> dict[tuple[str, int], str]:
        """The agent instructions τ²-bench recorded, by (task, trial) of the simulations that have them."""
        return {
            (simulation.task_id, simulation.trial): self.policies[simulation.policy]
            for simulation in self.simulations
            if simulation.policy is not None and simulation.policy in self.policies
        }


def import_results(path: Path, run_dir: Path, data_dir: Path | None = None) -> Tau2BenchImport:
    """Import the results file at `path` into the new run directory `run_dir`; returns the comparison."""
    check_new_run_dir(run_dir)
    results = open_results(path)
    info = results.info
    domain = info.environment_info.domain_name
    refuse_data_reference(domain, "domain", f"{path}: info.environment_info.domain_name")
    try:
        pack = get_domain(domain)
    except UnknownDomainError as error:
        raise UserInputError(f"{path}: info.environment_info.domain_name: {error}") from None
    tasks = _tasks(results, domain)
    mode = Mode.INTERACTIVE if results.has_user_messages() else Mode.SOLO
    agent = ActorSpec(
        kind=IMPORTED_KIND, model=ModelSpec(name=info.agent_info.llm or info.agent_info.implementation)
    )
    user = ActorSpec(
        kind=IMPORTED_KIND, model=ModelSpec(name=info.user_info.llm or info.user_info.implementation)
    )
    try:
        config = RunConfig(
            mode=mode,
            max_steps=info.max_steps,
            max_errors=info.max_errors,
            agent=agent,
            user=user,
            seed=info.seed or 0,
            data_dir=data_dir,
            retrieval=_retrieval(results, pack),
        )
    except ValidationError as error:
        raise validation_error(path, error, ("info",)) from None
    labels = {Side.AGENT: agent.label(), Side.USER: user.label() if mode is Mode.INTERACTIVE else None}
    with NewRun(run_dir) as run:
        findings = RunFindings(pack, data_dir)
        importer = _Importer(results, tasks, config.episode, data_dir, labels, run, findings)
        comparisons, warnings = importer.run_all()
        trials = importer.trials
        used = [task for task in tasks.values() if trials.get(task.id)]
        imported = Tau2BenchImport(
            source=str(path),
            domain=domain,
            policy=info.environment_info.policy,
            policies=importer.policies,
            simulations=comparisons,
            warnings=warnings,
        )
        write_json(run.path(SIDECAR), imported.model_dump(mode="json"))
        planned = max(max(numbers) for numbers in trials.values() if numbers) + 1
        run.finish(
            tasks=used,
            task_ids=[task.id for task in used],
            config=config.model_copy(update={"trials": planned}),
            hashes={"policy": sha256_text(info.environment_info.policy)},
        )
    return imported


class _Importer:
    """Replays a file's simulations into a new run, one at a time, and renumbers repeated trials."""

    def __init__(
        self,
        results: ResultsFile,
        tasks: dict[str, Task],
        config: EpisodeConfig,
        data_dir: Path | None,
        labels: dict[Side, str | None],
        run: NewRun,
        findings: RunFindings,
    ) -> None:
        self.results, self.tasks, self.config, self.data_dir = results, tasks, config, data_dir
        self.labels, self.run, self.findings = labels, run, findings
        self.trials: dict[str, set[int]] = defaultdict(set)
        """The trial numbers imported so far, by task."""
        self.policies: dict[str, str] = {}
        """The agent instructions the simulations recorded, each text once, by hash."""

    def run_all(self) -> tuple[list[ImportedSimulation], list[str]]:
        """Import every simulation; the comparisons and the warnings of renumbered trials."""
        path = self.results.path
        comparisons: list[ImportedSimulation] = []
        repeated: list[tuple[int, ImportedSimulation]] = []
        with self.run.path(_RENUMBERED).open("w+", encoding="utf-8") as aside:
            for index, simulation in self.results.simulations():
                record, comparison = self._one(index, simulation)
                if record.trial in self.trials[record.task_id]:
                    aside.write(record.model_dump_json() + "\n")
                    repeated.append((index, comparison))
                else:
                    self.trials[record.task_id].add(record.trial)
                    self.run.append(record)
                    comparisons.append(comparison)
            if not comparisons:
                raise UserInputError(f"{path}: simulations: the file holds no simulations; nothing to import")
            aside.seek(0)
            warnings = self._renumber(aside, repeated, comparisons)
        self.run.path(_RENUMBERED).unlink()
        return comparisons, warnings

    def _one(self, index: int, simulation: SimulationRun) -> tuple[SimulationRecord, ImportedSimulation]:
        """The record of one simulation, replayed and judged, and how it compares with the recorded one."""
        path = self.results.path
        task = self.tasks.get(simulation.task_id)
        if task is None:
            raise UserInputError(
                f"{path}: simulations[{index}].task_id: {simulation.task_id!r} is not in tasks"
            )
        trial = _trial(path, index, simulation.trial, self.trials[task.id])
        seed = simulation.seed if simulation.seed is not None else (self.results.info.seed or 0)
        try:
            replayed = replay(task, simulation, self.config.model_copy(update={"seed": seed}), self.data_dir)
        except TaskSetupError as error:
            hint = "" if self.data_dir else f" ({DATA_HINT})"
            raise UserInputError(f"{path}: simulations[{index}]: {error}{hint}") from None
        result = replayed.result.model_copy(
            update={"agent": self.labels[Side.AGENT], "user": self.labels[Side.USER]}
        )
        recorded = simulation.reward_info.reward if simulation.reward_info is not None else None
        policy = None
        if simulation.policy is not None:
            policy = sha256_text(simulation.policy)
            self.policies.setdefault(policy, simulation.policy)
        comparison = ImportedSimulation(
            simulation_id=simulation.id,
            task_id=task.id,
            trial=trial,
            recorded_reward=recorded,
            reward=result.reward,
            tool_calls=replayed.calls,
            mismatches=replayed.mismatches,
            kept=replayed.kept,
            policy=policy,
        )
        return episode_record(task, trial, result, findings=self.findings), comparison

    def _renumber(
        self,
        aside: IO[str],
        repeated: list[tuple[int, ImportedSimulation]],
        comparisons: list[ImportedSimulation],
    ) -> list[str]:
        """Give each simulation whose (task, trial) repeated its task's first free trial number, now that
        every number of the file is known; one warning per simulation renumbered."""
        path = self.results.path
        warnings = []
        for (index, comparison), line in zip(repeated, aside, strict=True):
            taken = self.trials[comparison.task_id]
            free = _first_free(path, taken)
            taken.add(free)
            self.run.append(SimulationRecord.model_validate_json(line).model_copy(update={"trial": free}))
            comparisons.append(comparison.model_copy(update={"trial": free}))
            warnings.append(
                f"{path}: simulations[{index}]: task {comparison.task_id!r} trial {comparison.trial} appears "
                f"again; imported as trial {free}"
            )
        return warnings


def load_import(run_dir: Path) -> Tau2BenchImport | None:
    """The sidecar of an imported run, or None for a run that was not imported."""
    path = run_dir / SIDECAR
    if not path.is_file():
        return None
    try:
        return Tau2BenchImport.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None


def _tasks(results: ResultsFile, domain: str) -> dict[str, Task]:
    """The file's tasks as ours, by id; a repeated id is refused (which one would a simulation mean?)."""
    tasks: dict[str, Task] = {}
    for index, record in enumerate(results.tasks):
        if record.id in tasks:
            raise UserInputError(f"{results.path}: tasks[{index}].id: {record.id!r} is listed twice")
        tasks[record.id] = task_from_tau2(record, domain)
    return tasks


def _retrieval(results: ResultsFile, domain: Domain[Any]) -> RetrievalConfig | None:
    """The retrieval configuration the file records, for a domain with a knowledge base (τ²-bench's default
    when it names none); None for other domains, which τ²-bench runs without one."""
    if domain.retrieval is None:
        return None
    info = results.info
    try:
        return domain.retrieval.recorded(info.retrieval_config, info.retrieval_config_kwargs or {})
    except UserInputError as error:
        raise UserInputError(f"{results.path}: info.{error}") from None


def _trial(path: Path, index: int, given: int | None, taken: set[int]) -> int:
    """The trial number of a simulation: the recorded one, checked to be one a run can plan, or (none
    recorded) the task's first free number."""
    if given is None:
        return _first_free(path, taken)
    if not 0 <= given < MAX_TRIALS:
        raise UserInputError(
            f"{path}: simulations[{index}].trial: {given} is not a trial number a run can hold "
            f"(0 to {MAX_TRIALS - 1})"
        )
    return given


def _first_free(path: Path, taken: set[int]) -> int:
    """The smallest trial number not taken yet (a run holds at most `MAX_TRIALS` trials of a task)."""
    free = next(number for number in range(len(taken) + 1) if number not in taken)
    if free >= MAX_TRIALS:
        raise UserInputError(f"{path}: simulations: more than {MAX_TRIALS} trials of one task")
    return free
