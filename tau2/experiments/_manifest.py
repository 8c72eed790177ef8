"""Experiment directories: `experiment.json` (the experiment's configuration and provenance) and one
ordinary run directory per arm, named after the arm, beside it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tau2._jsonfile import canonical_json, read_json, validation_error
from tau2.experiments._config import ExperimentConfig
from tau2.llm import redacted_settings
from tau2.runs import write_atomically

EXPERIMENT_FILE: Final = "experiment.json"


class ExperimentStop(StrEnum):
    """Why an experiment's last session stopped starting simulations."""

    COMPLETE = "complete"
    """Every planned trial ran (every task has the base's `trials` in every arm)."""
    TARGET = "target"
    """Every comparison's interval reached the budget's target half width."""
    MAX_SIMULATIONS = "max_simulations"
    """One more paired trial would pass the budget's `max_simulations`."""
    MAX_COST = "max_cost"
    """One more simulation would likely pass the spend cap."""
    INTERRUPTED = "interrupted"
    """Stopped from outside (Ctrl-C, a signal) or by an error; `--resume` continues."""


class ExperimentStatus(BaseModel):
    """Where an experiment stands after its last session: why it stopped, what it had simulated and spent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stopped: ExperimentStop
    simulations: int
    """Simulations with a record, over all arms (infrastructure errors included)."""
    cost_usd: float
    """What the priced models cost over all arms' records, in US dollars."""
    unpriced: bool = False
    """Whether some model calls were unpriced (their cost is unknown, not zero)."""
    max_cost_usd: float | None = None
    """The spend cap of that session (the budget's, or `--max-cost`)."""
    updated_at: datetime


class ExperimentManifest(BaseModel):
    """What an experiment directory holds beside its arms' runs: the experiment's configuration (its
    secrets' values redacted, as in run manifests), when it was started, and where its last session
    stopped."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    created_at: datetime
    config: ExperimentConfig
    status: ExperimentStatus | None = None
    """Why the last session stopped (None until one has ended)."""

    def save(self, experiment_dir: Path) -> None:
        """Write `experiment.json` atomically, every secret's value replaced by the redaction marker."""
        data = self.model_copy(update={"config": redacted(self.config)}).model_dump(mode="json")
        write_atomically(experiment_dir / EXPERIMENT_FILE, canonical_json(data).encode())


def redacted(config: ExperimentConfig) -> ExperimentConfig:
    """`config` with every secret of the base and the arms (a setting named like a credential, a value
    shaped like one, a key in an API base's query, … at any depth) replaced by `[redacted]`, exactly as
    run manifests store them."""
    arms = [arm.model_copy(update={"overrides": redacted_settings(arm.overrides)}) for arm in config.arms]
    return config.model_copy(update={"base": redacted_settings(config.base), "arms": arms})


def arm_run_dir(experiment_dir: Path, arm: str) -> Path:
    """The run directory of arm `arm` of the experiment in `experiment_dir`."""
    return experiment_dir / arm


def load_experiment(experiment_dir: Path) -> ExperimentManifest:
    """Read and validate `experiment_dir/experiment.json`; a missing or bad file is one `UserInputError`
    line naming it."""
    path = experiment_dir / EXPERIMENT_FILE
    try:
        return ExperimentManifest.model_validate(read_json(path))
    except ValidationError as error:
        raise validation_error(path, error) from None
