"""A run's manifest (`manifest.json`): its configuration as it ran and its provenance, written when the run
starts and read back by a resume, the reports and every tool that reads a run."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from tau2._jsonfile import canonical_json, read_json, validation_error
from tau2._registry import refuse_data_reference
from tau2.config import RECORDED, ActorSpec, EpisodeConfig, Mode, RunConfig
from tau2.runs._atomic import write_atomically
from tau2.runs._legacy import flat_location, is_flat, nested

MANIFEST_FILE: Final = "manifest.json"


class RegradedFrom(BaseModel):
    """Where a regraded run's conversations come from: the run whose stored transcripts were scored again,
    and what scored them: other judges (`tau2 regrade --judge-model`) or other task definitions
    (`tau2 regrade --suite`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    path: str
    """The original run's directory (absolute), which the regrade left untouched."""
    judges: list[str] = Field(default_factory=list)
    """A regrade by judges: the new judges' models, the first (whose verdicts decide the reward) first."""
    suite: str | None = None
    """A regrade against other task definitions: the task file (absolute) it scored against."""

    @model_serializer(mode="wrap")
    def _only_what_was_used(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Name the judges or the suite, whichever the regrade used."""
        data: dict[str, Any] = handler(self)
        if not data.get("judges"):
            data.pop("judges", None)
        if data.get("suite") is None:
            data.pop("suite", None)
        return data


class RunManifest(BaseModel):
    """A run's saved configuration and its provenance, written when the run starts (and again when a resume
    adds trials); a resume reads the configuration back. Manifests of the older flat shape read the same."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    created_at: datetime
    config: RunConfig
    """The run's configuration as it ran: paths absolute, each seat's model transport resolved."""
    suite_path: str
    """The suite file the tasks were read from (absolute)."""
    suite_hash: str
    domain: str
    """The tasks' domain."""
    task_ids: list[str] = Field(min_length=1)
    """The tasks of the run, in order (a run covers at least one)."""
    versions: dict[str, str] = Field(default_factory=dict)
    hashes: dict[str, str] = Field(default_factory=dict)
    """Run-wide content hashes, by name: `agent_prompt`/`user_prompt` (the seats' prompt templates),
    `policy`, `data` (the starting database as loaded), `data_dir` (every file of a given data directory),
    `judge` (the judge models' settings), `persona` (an override's text)."""
    task_hashes: dict[str, str] = Field(default_factory=dict)
    """Each task's content hash, by task id (empty in manifests made before runs recorded them: their
    provenance is unknown)."""
    reward_basis_source: Literal["implied", "explicit"] | None = None
    """For τ²-bench task files: whether the reward basis was implied (the older `tasks.json`, judged on
    database × communicated information) or written in the file (`tasks_v1.json`); None = our suites'
    assertion-judged tasks."""
    regraded_from: RegradedFrom | None = None
    """For a run made by `tau2 regrade`: the run it was regraded from, and with what; None for runs that
    simulated their own conversations."""

    @model_serializer(mode="wrap")
    def _omit_unregraded(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `regraded_from` out of runs that were not regraded, so their manifests stay as they were."""
        data: dict[str, Any] = handler(self)
        if data.get("regraded_from") is None:
            data.pop("regraded_from", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _nest_flat(cls, data: Any) -> Any:
        """Read a manifest of the flat shape into this one."""
        return nested(data) if is_flat(data) else data

    @property
    def episode(self) -> EpisodeConfig:
        """Every episode's configuration; its seed is unset here (each unit's seed derives from `seed`)."""
        return self.config.episode

    @property
    def mode(self) -> Mode:
        """The episodes' mode."""
        return self.config.mode

    @property
    def agent(self) -> ActorSpec:
        """The agent seat."""
        return self.config.agent

    @property
    def user(self) -> ActorSpec | None:
        """The user seat; None in solo mode."""
        return None if self.config.mode is Mode.SOLO else self.config.user

    @property
    def trials(self) -> int:
        """Trials per task planned so far: a resume may raise it (never lower it) to add trials."""
        return self.config.trials

    @property
    def seed(self) -> int:
        """The run seed."""
        return self.config.seed

    def mode_label(self) -> str:
        """Short printable mode, e.g. `solo+oracle_plan`."""
        return self.config.label()

    def save(self, run_dir: Path) -> None:
        """Write `manifest.json` into `run_dir` atomically: the one writer of manifests."""
        write_atomically(run_dir / MANIFEST_FILE, canonical_json(self.model_dump(mode="json")).encode())


def load_manifest(run_dir: Path) -> RunManifest:
    """Read and validate `run_dir/manifest.json`."""
    path = run_dir / MANIFEST_FILE
    data = read_json(path)
    try:
        return RunManifest.model_validate(data, context=RECORDED)
    except ValidationError as error:
        raise validation_error(path, error, locate=flat_location if is_flat(data) else None) from None


def require_named_domain(manifest: RunManifest, where: str) -> None:
    """Refuse (one `UserInputError` line) a run whose manifest names its domain by a `module:attribute`
    reference the user has not named: reading a run never imports the code it names. Called before the
    run's domain is looked up (a regrade, an export, the audit of a report)."""
    for field, named in (("domain", manifest.domain), ("config.domain", manifest.config.domain)):
        if named is not None:
            refuse_data_reference(named, "domain", f"{where}: {field}")
