"""Experiment directories: `experiment.json` (the experiment's configuration and provenance) and one
ordinary run directory per arm, named after the arm, beside it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tau2._jsonfile import read_json, validation_error
from tau2.config import ExperimentConfig

EXPERIMENT_FILE: Final = "experiment.json"


class ExperimentManifest(BaseModel):
    """What an experiment directory holds beside its arms' runs: the experiment's configuration (its
    secrets' values redacted, as in run manifests) and when it was started."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    created_at: datetime
    config: ExperimentConfig


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
