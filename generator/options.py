"""Generator options: everything that decides which tasks a generation produces, recorded in suites."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


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
