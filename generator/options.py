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

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    intents: tuple[str, ...] = ()
    """Intents to generate; empty means all, always in the catalog's order."""
    personas: tuple[str, ...] = ("none", "easy", "hard")
    """Personas by library name or .toml path."""
    persona_assignment: PersonaAssignment = PersonaAssignment.CROSS
    """cross: every composition under every persona; rotate: one persona per composition, in turn, as
    τ²-bench assigns them."""
    exclude: tuple[str, ...] = ()
    """Subtasks whose compositions are dropped (after persona assignment, before sampling)."""
    include_optional: tuple[str, ...] = ()
    """Optional subtasks to offer besides the catalog's required ones."""
    min_subtasks: int = Field(default=1, ge=1)
    """Fewest subtasks per task."""
    max_subtasks: int | None = Field(default=None, ge=1)
    """Most subtasks per task (default: no limit)."""
    sample_per_bin: int | None = Field(default=None, ge=1)
    """Sample this many tasks per (intent, number of subtasks, persona) bin (default: keep them all)."""
    seed: int = 0
    """Seed of sampling and target spreading."""
    target: TargetMode = TargetMode.FIXED
    """fixed: the first eligible target; spread: tasks spread over all of them."""
    order: Order = Order.WORKFLOW
    """workflow: init calls and solution steps in the workflow graph's order; tau2: by subtask name."""
    catalog: str = BASE_CATALOG
    """Which of the domain's catalogs: its own (`base`; for telecom, τ²-bench's faults) or a named one that
    layers extensions onto it (telecom: `extended`, with new faults)."""
    max_transfer_share: float | None = Field(default=None, ge=0, le=1)
    """At most this share (0–1) of each (intent, #subtasks, persona) bin's tasks are transfers (see
    `sampling.capped_sample`; default: no cap, every selected draft is kept)."""

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
