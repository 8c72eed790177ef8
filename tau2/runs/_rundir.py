"""Run directories: `manifest.json` (the run's full configuration) and `results.jsonl` (one
`SimulationRecord` per line, append-only), shared by the runner that writes them and the reports."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tau2._jsonfile import read_json, validation_error, write_json
from tau2.episode import ActorSpec, EpisodeConfig, Mode
from tau2.errors import UserInputError
from tau2.llm import ModelSpec, ProviderLimit
from tau2.runs._records import SimulationRecord

MANIFEST_FILE: Final = "manifest.json"
RESULTS_FILE: Final = "results.jsonl"


class RunManifest(BaseModel):
    """Everything that defines a run, written once when it starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    created_at: datetime
    suite_path: str
    suite_hash: str
    data_dir: str | None = None
    """The data directory the tasks run on (absolute); None = the domain's own data."""
    domain: str
    episode: EpisodeConfig
    """Every episode's configuration; its seed is unset here (each unit's seed derives from `seed`)."""
    agent: ActorSpec
    user: ActorSpec | None = None
    """None in solo mode."""
    persona_override: str | None = None
    """One persona for every task instead of each task's own."""
    trials: int = Field(ge=1)
    seed: int
    concurrency: int = Field(default=32, ge=1)
    """Simulations in flight at once; a resume keeps it unless given again (it never changes results)."""
    rate_limits: dict[str, ProviderLimit] = Field(default_factory=dict)
    """Per-provider limits given with --rate-limit; kept on resume like `concurrency`."""
    versions: dict[str, str] = Field(default_factory=dict)
    hashes: dict[str, str] = Field(default_factory=dict)
    """Prompt and policy hashes, by name."""
    task_ids: list[str] = Field(min_length=1)
    """The tasks of the run, in order (a run covers at least one)."""
    judge: ModelSpec | None = None
    """The model judging natural-language assertions; None = they are not judged."""
    reward_basis_source: Literal["implied", "explicit"] | None = None
    """For τ²-bench task files: whether the reward basis was implied (the older `tasks.json`, judged on
    database × communicated information) or written in the file (`tasks_v1.json`); None = our suites'
    assertion-judged tasks."""

    @property
    def mode(self) -> Mode:
        """The episodes' mode (a shorthand: it is stored once, in `episode`)."""
        return self.episode.mode

    def mode_label(self) -> str:
        """Short printable mode, e.g. `solo+oracle_plan`."""
        return self.episode.label()

    def save(self, run_dir: Path) -> None:
        """Write `manifest.json` into `run_dir`."""
        write_json(run_dir / MANIFEST_FILE, self.model_dump(mode="json"))


class Run(BaseModel):
    """A run as reports see it: its manifest and its effective records."""

    model_config = ConfigDict(frozen=True)

    path: Path
    manifest: RunManifest
    records: list[SimulationRecord]
    """The last record of each (task, trial), in order of first appearance."""
    warnings: list[str] = Field(default_factory=list)


def load_manifest(run_dir: Path) -> RunManifest:
    """Read and validate `run_dir/manifest.json`."""
    path = run_dir / MANIFEST_FILE
    try:
        return RunManifest.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None


def read_records(path: Path) -> tuple[list[SimulationRecord], list[str]]:
    """Every record of a results file, in file order, and warnings. An unparsable last line (torn by a
    kill) is skipped with a warning; any other bad line is a `UserInputError` naming file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError) as error:
        raise UserInputError(f"{path}: cannot read: {error}") from None
    last = max((number for number, line in enumerate(lines, 1) if line.strip()), default=0)
    records: list[SimulationRecord] = []
    warnings: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            if number == last:
                warnings.append(f"{path}:{number}: skipped a torn last line ({error.msg})")
                continue
            where = f"{path}:{number}"
            raise UserInputError(f"{where}: invalid JSON at column {error.colno}: {error.msg}") from None
        try:
            records.append(SimulationRecord.model_validate(data))
        except ValidationError as error:
            raise validation_error(Path(f"{path}:{number}"), error) from None
    return records, warnings


def latest_records(records: list[SimulationRecord]) -> list[SimulationRecord]:
    """The last record of each (task, trial): a resumed run re-appends those lost to infrastructure."""
    latest: dict[tuple[str, int], SimulationRecord] = {}
    for record in records:
        latest[record.task_id, record.trial] = record
    return list(latest.values())


def load_run(path: Path) -> Run:
    """Read a run directory (manifest plus tolerant results)."""
    if not path.is_dir():
        raise UserInputError(f"{path}: not a run directory")
    manifest = load_manifest(path)
    records, warnings = read_records(path / RESULTS_FILE)
    return Run(path=path, manifest=manifest, records=latest_records(records), warnings=warnings)
