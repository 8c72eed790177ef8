"""Generator options: everything that decides which tasks a generation produces, recorded in suites."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

BASE_CATALOG = "base"
"""The name of a domain's own catalog, without extensions (for telecom, τ²-bench's faults)."""


class PersonaAssignment(StrEnum):
    """How personas meet compositions: τ²-bench's cyclic assignment, or every composition under each."""

    ROTATE = "rotate"
    CROSS = "cross"


class Order(StrEnum):
    """How init calls and solution steps are ordered: by the workflow graph, or by subtask name."""

    WORKFLOW = "workflow"
    TAU2 = "tau2"


class TargetMode(StrEnum):
    """One fixed target for every task, or tasks spread over all eligible targets."""

    FIXED = "fixed"
    SPREAD = "spread"


class OutputFormat(StrEnum):
    """File formats the generator writes."""

    NATIVE = "native"
    TAU2_BENCH = "tau2-bench"


class GeneratorOptions(BaseModel):
    """The options of one generation (data directory and output format are not part of them)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    intents: tuple[str, ...] = ()
    """Intents to generate; empty means all, always in the catalog's order."""
    personas: tuple[str, ...] = ("none", "easy", "hard")
    persona_assignment: PersonaAssignment = PersonaAssignment.CROSS
    exclude: tuple[str, ...] = ()
    """Subtasks whose compositions are dropped (after persona assignment, before sampling)."""
    include_optional: tuple[str, ...] = ()
    min_subtasks: int = Field(default=1, ge=1)
    max_subtasks: int | None = Field(default=None, ge=1)
    sample_per_bin: int | None = Field(default=None, ge=1)
    seed: int = 0
    target: TargetMode = TargetMode.FIXED
    order: Order = Order.WORKFLOW
    catalog: str = BASE_CATALOG
    """Which of the domain's catalogs: its own (`base`) or a named one that layers extensions onto it."""
    max_transfer_share: float | None = Field(default=None, ge=0, le=1)
    """At most this share of each (intent, #subtasks, persona) bin's tasks are transfers (see
    `sampling.capped_sample`); None keeps every selected draft."""

    @model_validator(mode="after")
    def _consistent(self) -> GeneratorOptions:
        if not self.personas:
            raise ValueError("personas: give at least one persona")
        for field in ("intents", "personas", "exclude", "include_optional"):
            values = getattr(self, field)
            if len(set(values)) != len(values):
                raise ValueError(f"{field}: a name is given twice")
        if self.max_subtasks is not None and self.max_subtasks < self.min_subtasks:
            raise ValueError(f"max_subtasks {self.max_subtasks} is below min_subtasks {self.min_subtasks}")
        return self

    def recorded(self) -> dict[str, JsonValue]:
        """The options as a suite records them. Options added after the first suites were shipped are left
        out at their defaults, so the same command still writes the same bytes."""
        data: dict[str, JsonValue] = self.model_dump(mode="json")
        for name in _RECORDED_WHEN_SET:
            if getattr(self, name) == type(self).model_fields[name].default:
                del data[name]
        return data


_RECORDED_WHEN_SET = ("catalog", "max_transfer_share")
