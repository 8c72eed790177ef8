"""The run configuration: every setting of a run, each declared once with its default and its meaning."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from tau2._jsonfile import validation_error
from tau2.config._fields import ordered_fields
from tau2.config._toml import read_toml, to_toml
from tau2.episode import ActorSpec, EpisodeConfig, EpisodeSettings
from tau2.llm import ModelSpec, ProviderLimit
from tau2.tasks import check_task_id

MAX_TRIALS: Final = 10_000
"""More trials per task than any study needs; a typo like 10000000 would plan units until memory runs out."""
MAX_WORKERS: Final = 1_024
"""More worker processes than any machine has cores; a typo must not fork thousands of processes."""

ExecutorKind = Literal["local", "workers", "ray"]
"""Where simulations run: one event loop in the driver, worker processes, or actors on a Ray cluster."""

PATH_FIELDS: Final = ("suite", "data_dir", "cache")
"""The fields holding file system paths: a configuration file's relative ones are relative to the file."""

EXECUTION_SETTINGS: Final = ("concurrency", "rate_limits", "executor", "cache")
"""The settings that change how simulations are run, never what an episode does: a resume may give them
anew, and an experiment's arms share them (set in its base)."""
RECORDED: Final = {"recorded": True}
"""Validation context of a configuration a run recorded (its manifest): read as it was written, so that
a run made before a check was added stays readable."""


class ExecutorConfig(BaseModel):
    """Where a run's simulations execute. Whichever it is, the driver (the process that started the run) is
    the single writer of the results."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ExecutorKind = "local"
    """local (one event loop in this process), workers (worker processes) or ray (actors on a Ray
    cluster); left out, it follows from the others: ray with an address, workers with more than one
    worker, else local."""
    workers: int = Field(default=1, ge=1, le=MAX_WORKERS)
    """Worker processes (or Ray actors), each with its own event loop; the concurrency is split between
    them."""
    address: str | None = None
    """The Ray cluster to run the workers on: 'auto', 'local' (a new local cluster) or host:port (needs the
    ray extra)."""

    @model_validator(mode="before")
    @classmethod
    def _infer_kind(cls, data: Any) -> Any:
        """The kind a configuration leaves out, from the address and the number of workers."""
        if not isinstance(data, dict) or "kind" in data:
            return data
        workers = data.get("workers", 1)
        kind = (
            "ray"
            if data.get("address")
            else "workers"
            if isinstance(workers, int) and workers > 1
            else "local"
        )
        return {**data, "kind": kind}

    @model_validator(mode="after")
    def _consistent(self) -> ExecutorConfig:
        """An address only for Ray, which needs one; several workers only for an executor that has them."""
        if self.kind == "ray" and not self.address:
            raise ValueError("the ray executor needs the cluster's address ('auto', 'local' or host:port)")
        if self.kind != "ray" and self.address:
            raise ValueError(f"an address is for the ray executor, not {self.kind!r}")
        if self.kind == "local" and self.workers > 1:
            raise ValueError(
                "the local executor runs in this process: choose workers or ray for more workers"
            )
        return self


class RunConfig(EpisodeSettings):
    """A run: which tasks, with which seats, in which mode, how many times and where. `tau2 run`'s options,
    configuration files (`--config`) and run manifests all hold one; the episode settings (`mode`,
    `max_steps`, …) are its own fields, shared by every episode of the run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: Path | None = None
    """A tau2 suite file, or a τ²-bench task file or task folder (`task_*.json`)."""
    domain: str | None = None
    """Alone: run the domain's default suite. With a suite: the domain of τ²-bench tasks that do not name
    one."""
    data_dir: Path | None = None
    """The domain's data directory (default: the domain's own data)."""
    split: str | None = None
    """Only the tasks of this split of the split_tasks.json beside a τ²-bench task file."""
    task_ids: list[str] | None = Field(default=None, min_length=1)
    """Only these tasks, in this order (default: every task of the suite)."""
    agent: ActorSpec = ActorSpec()
    """The agent seat."""
    user: ActorSpec = ActorSpec()
    """The user seat (ignored in solo mode, which has none)."""
    judge: ModelSpec | None = None
    """The model judging natural-language assertions; with several judges, the first, whose verdicts
    decide the reward (default: none; such assertions then fail)."""
    extra_judges: list[ModelSpec] = Field(default_factory=list)
    """Further judges of the same assertions: their verdicts are recorded beside the first judge's and
    measured for agreement, never used for the reward."""
    judge_always: bool = False
    """Ask the judges even when a deterministic part of the reward (the ending, the database, assertions,
    communicated information, actions) has already failed; by default they are not asked then (the reward
    is 0 either way) and their assertions are recorded as not needed."""
    persona: str | None = None
    """One persona for every task (a library name or a .toml path) instead of each task's own."""
    trials: int = Field(default=1, ge=1, le=MAX_TRIALS)
    """Trials per task; pass^k is reported for every k up to it."""
    seed: int = 0
    """The run seed: each simulation's seed derives from it, the task id and the trial."""
    concurrency: int = Field(default=32, ge=1)
    """Simulations in flight at once (split evenly between workers)."""
    rate_limits: dict[str, ProviderLimit] = Field(default_factory=dict)
    """Limits per provider (openai, hosted_vllm, …) or API host:port: concurrent requests and, optionally,
    requests per minute (split evenly between workers)."""
    executor: ExecutorConfig = ExecutorConfig()
    """Where the simulations run."""
    cache: Path | None = None
    """A model cache directory: every model request (the seats' and the judges') whose answer it holds is
    answered from it without being sent, and every new answer is stored there (default: no cache). Worker
    processes and Ray actors on the same file system share it."""

    @model_serializer(mode="wrap")
    def _run_settings_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The settings in the order they read best (the tasks and seats before the episode settings),
        `retrieval` left out while unset and `perturbations` while there are none as in `EpisodeSettings`,
        `extra_judges` while empty and `judge_always` while off (so a configuration of one judge reads as it
        always did)."""
        data: dict[str, Any] = handler(self)
        if data.get("retrieval") is None:
            data.pop("retrieval", None)
        for name in ("extra_judges", "judge_always", "perturbations"):
            if not data.get(name):
                data.pop(name, None)
        return {name: data[name] for name, _ in ordered_fields(type(self)) if name in data}

    @field_validator("task_ids")
    @classmethod
    def _each_task_named_once(cls, task_ids: list[str] | None, info: ValidationInfo) -> list[str] | None:
        """Every id names a task (not blank, no control characters), and names it once: a task listed twice
        would run twice per trial and store two records of one (task, trial)."""
        if task_ids is None or (info.context or {}).get("recorded"):
            return task_ids
        seen: dict[str, int] = {}
        for index, task_id in enumerate(task_ids):
            try:
                check_task_id(task_id)
            except ValueError as error:
                raise ValueError(f"[{index}]: {error}") from None
            if task_id in seen:
                raise ValueError(
                    f"[{index}]: {task_id!r} is listed twice (also at [{seen[task_id]}]); list each task "
                    "once (`trials` sets how often each runs)"
                )
            seen[task_id] = index
        return task_ids

    @model_validator(mode="after")
    def _a_first_judge(self) -> RunConfig:
        """Further judges need the first one, whose verdicts decide the reward."""
        if self.extra_judges and self.judge is None:
            raise ValueError("extra_judges need a first judge: give judge as well")
        return self

    @property
    def judges(self) -> list[ModelSpec]:
        """Every judge of natural-language assertions, the first (which decides the reward) first."""
        return [] if self.judge is None else [self.judge, *self.extra_judges]

    @property
    def episode(self) -> EpisodeConfig:
        """The configuration every episode of the run shares (each gets its own seed)."""
        return EpisodeConfig(**{name: getattr(self, name) for name in EpisodeSettings.model_fields})

    @classmethod
    def from_file(cls, path: str | Path) -> RunConfig:
        """Read a TOML configuration file; relative paths in it are relative to the file. A bad file is one
        `UserInputError` line naming the file and the field."""
        path = Path(path)
        data = read_toml(path)
        for name in PATH_FIELDS:
            value = data.get(name)
            if isinstance(value, str):
                data[name] = str(path.parent / Path(value).expanduser())
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            raise validation_error(path, error) from None

    def to_toml(self) -> str:
        """The configuration as TOML that `from_file` reads back to an equal configuration (paths absolute,
        every setting written out)."""
        return to_toml(self)
