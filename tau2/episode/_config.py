"""Simulation modes and the per-episode configuration that carries them."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
)

from tau2._registry import refuse_data_reference
from tau2.errors import UserInputError
from tau2.perturbations import PerturbationSettings, RecordedSettings, get_perturbation
from tau2.world import RetrievalConfig


class Mode(StrEnum):
    """Who holds which tools: two seats talking, or one seat holding both toolsets and a ticket."""

    INTERACTIVE = "interactive"
    SOLO = "solo"


def mode_label(mode: Mode, oracle_plan: bool) -> str:
    """Short printable mode, e.g. `solo+oracle_plan`."""
    return mode.value + ("+oracle_plan" if oracle_plan else "")


class EpisodeSettings(BaseModel):
    """The settings every episode of a run shares: the mode and the episode's limits. A run configuration
    carries them as its own fields; `EpisodeConfig` adds the seed of one episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: Mode = Mode.INTERACTIVE
    """`interactive` (the agent talks to the customer, who holds the phone) or `solo` (the agent holds both
    toolsets and reads the task's ticket)."""
    oracle_plan: bool = False
    """Show the agent the task's reference solution as numbered steps, each naming its seat."""
    max_steps: int = Field(default=100, ge=1)
    """Actor turns (both seats together) before the episode is cut off."""
    max_errors: int = Field(default=10, ge=1)
    """Failed tool calls (both seats together) before the episode is cut off."""
    max_actor_retries: int = Field(default=3, ge=1)
    """Consecutive malformed outputs from one actor before it is declared broken."""
    policy_variant: str = "manual"
    """Which of the domain's policy texts the agent reads."""
    retrieval: RetrievalConfig | None = None
    """How the agent reaches the domain's knowledge base (domains that have one); left out, the domain's
    default, which a run resolves and records."""
    perturbations: dict[str, SerializeAsAny[PerturbationSettings]] = Field(default_factory=dict)
    """Perturbations every episode runs under, by kind (`tool_faults`, `unreliable_user`, an installed
    kind), each with its own settings (`[perturbations.tool_faults] rate = 0.2`); each draws from a
    stream seeded by the episode's seed, so arms of an experiment stay paired."""

    @field_validator("perturbations", mode="before")
    @classmethod
    def _kind_settings(cls, given: Any, info: ValidationInfo) -> Any:
        """Each kind's settings read by the kind's own settings model (an unknown kind, or a setting the
        kind does not take, refused naming it). A recorded configuration (a manifest) that names a kind by
        a reference the user has not named keeps its settings as recorded, unread: reading a run never
        imports the code it names."""
        if not isinstance(given, dict):
            return given
        settings: dict[str, PerturbationSettings] = {}
        for name, value in given.items():
            if isinstance(value, RecordedSettings):  # kept unread already (`RunConfig.episode`)
                settings[name] = value
                continue
            if (info.context or {}).get("recorded") and isinstance(value, dict):
                try:
                    refuse_data_reference(name, "perturbation", "perturbations")
                except UserInputError:
                    settings[name] = RecordedSettings.model_validate(value)
                    continue
            kind = get_perturbation(name)
            if isinstance(value, kind.settings):
                settings[name] = value
                continue
            try:
                settings[name] = kind.settings.model_validate(value)
            except ValidationError as error:
                first = error.errors()[0]
                where = ".".join(str(part) for part in (name, *first["loc"]))
                raise ValueError(f"{where}: {first['msg']}") from None
        return settings

    @model_serializer(mode="wrap")
    def _omit_unset_retrieval(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave `retrieval` out while unset and `perturbations` while there are none, so configurations of
        domains without a knowledge base, or of unperturbed runs, (and the manifests holding them) stay as
        they were."""
        data: dict[str, Any] = handler(self)
        if data.get("retrieval") is None:
            data.pop("retrieval", None)
        if not data.get("perturbations"):
            data.pop("perturbations", None)
        return data

    def label(self) -> str:
        """Short printable form, e.g. `solo+oracle_plan`."""
        return mode_label(self.mode, self.oracle_plan)


class EpisodeConfig(EpisodeSettings):
    """Everything that shapes one episode besides the task and the actors."""

    seed: int | None = None
    """The episode's seed, given to the actors and sent with every model request; None = unseeded."""
