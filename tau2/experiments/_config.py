"""The configuration of an experiment: a base run configuration, named arms that each override some of its
settings, the baseline arm the others are compared with, and the budget the experiment may spend."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tau2._jsonfile import validation_error
from tau2.config import PATH_FIELDS, ConfigLayer, FieldPath, RunConfig, dotted, layered, read_toml

ARM_NAME_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""An arm's name is also the name of its run directory: letters, digits, `_`, `.` and `-`, at most 64."""

PAIRED_SETTINGS: Final = ("suite", "domain", "data_dir", "split", "task_ids", "trials", "seed")
"""Settings every arm shares, because arms are paired: the same tasks, trials and per-(task, trial) seeds.
An arm that overrides one of them is refused."""


class ExperimentArm(BaseModel):
    """One arm: its name and the run settings it overrides, written beside the name in the file
    (`[[arms]] name = "solo"  mode = "solo"`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=ARM_NAME_PATTERN)
    """The arm's name, unique in the experiment, and its run directory's name."""
    overrides: dict[str, Any] = Field(default_factory=dict)
    """The run settings this arm changes, nested as in a run configuration file."""

    @model_validator(mode="before")
    @classmethod
    def _settings_beside_name(cls, data: Any) -> Any:
        """A file writes the overrides beside the name; a saved experiment holds them under `overrides`."""
        if isinstance(data, Mapping) and "overrides" not in data:
            return {"name": data.get("name"), "overrides": {k: v for k, v in data.items() if k != "name"}}
        return data


class ExperimentBudget(BaseModel):
    """What an experiment may spend. After an initial round of `initial_trials` trials of every task in
    every arm, further trials go where the paired outcome is most uncertain until the target precision is
    reached or a limit is hit; with no limit and no target, every task gets the base's `trials`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_simulations: int | None = Field(default=None, ge=1)
    """At most this many simulations over all arms."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Stop starting simulations once the priced models' spend reaches this many US dollars."""
    target_half_width: float | None = Field(default=None, gt=0, lt=1)
    """Stop once every comparison's interval of Δpass^1 is at most this half-width."""
    initial_trials: int = Field(default=2, ge=1)
    """Trials of every task in every arm before any adaptive allocation."""


class ExperimentConfig(BaseModel):
    """An experiment: a base run configuration and its arms, one of them the baseline. `tau2 experiment
    run` reads it from TOML; the experiment's directory keeps it in its experiment file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    """The experiment's name, shown in its report."""
    baseline: str
    """The arm every other arm is compared with."""
    base: dict[str, Any] = Field(default_factory=dict)
    """The run settings every arm starts from, nested as in a run configuration file."""
    arms: list[ExperimentArm] = Field(min_length=2)
    """The arms, in the order reports show them."""
    budget: ExperimentBudget = ExperimentBudget()
    """What the experiment may spend."""

    @model_validator(mode="after")
    def _arms_named_once_and_paired(self) -> ExperimentConfig:
        for arm in self.arms:
            shared = [name for name in PAIRED_SETTINGS if name in arm.overrides]
            if shared:
                raise ValueError(
                    f"arms.{arm.name}.{shared[0]}: must be the same in every arm (arms are paired on tasks, "
                    "trials and seeds); set it in [base]"
                )
        names = [arm.name for arm in self.arms]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"arm {repeated[0]!r} is named more than once")
        if self.baseline not in names:
            raise ValueError(f"baseline {self.baseline!r} is not one of the arms ({', '.join(names)})")
        return self

    def arm(self, name: str) -> ExperimentArm:
        """The arm called `name`."""
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise KeyError(name)

    def arm_layers(self, name: str, *, source: str = "experiment") -> list[ConfigLayer]:
        """The settings of arm `name`, lowest first: the base, then the arm's overrides, each naming a
        setting where the file gives it (`exp.toml: arms.solo.mode`)."""
        return [
            ConfigLayer(self.base, name=lambda path: f"{source}: base.{dotted(path)}"),
            ConfigLayer(self.arm(name).overrides, name=_arm_namer(source, name)),
        ]

    def arm_config(self, name: str, *, source: str = "experiment") -> RunConfig:
        """The run configuration of arm `name`: the base with the arm's overrides applied. A setting that
        fails is one `UserInputError` line naming where it was given (`exp.toml: arms.solo.mode`)."""
        return layered(self.arm_layers(name, source=source))

    def arm_configs(self, *, source: str = "experiment") -> dict[str, RunConfig]:
        """Every arm's run configuration, by name, in the arms' order."""
        return {arm.name: self.arm_config(arm.name, source=source) for arm in self.arms}

    @classmethod
    def from_file(cls, path: str | Path) -> ExperimentConfig:
        """Read an experiment's TOML file and check that every arm makes a valid run configuration. Relative
        paths in `[base]` are relative to the file, and kept absolute (so a resume from another directory
        reads the same experiment); a bad file is one `UserInputError` line naming the file and the
        setting."""
        path = Path(path)
        data = read_toml(path)
        base = data.get("base")
        if isinstance(base, dict):
            for field in PATH_FIELDS:
                value = base.get(field)
                if isinstance(value, str):
                    base[field] = str((path.parent / Path(value).expanduser()).absolute())
        try:
            config = cls.model_validate(data)
        except ValidationError as error:
            raise validation_error(path, error) from None
        config.arm_configs(source=str(path))
        return config


def _arm_namer(source: str, arm: str) -> Callable[[FieldPath], str]:
    """How messages name a setting an arm gives: `exp.toml: arms.solo.mode`."""

    def name(path: FieldPath) -> str:
        return f"{source}: arms.{arm}.{dotted(path)}"

    return name
