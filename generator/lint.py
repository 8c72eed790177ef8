"""Lint of generated tasks: missing user-known facts, persona text that could contradict the data, and
solution steps that are not needed."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from tau2.generator.build import Plan
from tau2.generator.verify import Verdict
from tau2.personas import Persona, persona_fact_conflicts
from tau2.tasks import Task, all_passed
from tau2.world import World


class LintKind(StrEnum):
    """What a finding is about."""

    MISSING_FACT = "missing_fact"
    PERSONA_FACT = "persona_fact"
    REDUNDANT_STEP = "redundant_step"


class LintFinding(BaseModel):
    """One lint finding about a task (or, for persona findings, a persona)."""

    model_config = ConfigDict(frozen=True)

    subject: str
    kind: LintKind
    message: str


def missing_facts(task: Task, plan: Plan) -> list[LintFinding]:
    """Facts a fix depends on that the user scenario or the ticket does not state (fixable tasks only)."""
    if plan.transfer:
        return []
    scenario = task.user_scenario.instruction_text(known_only=True)
    findings = []
    for subtask in plan.arrangement.init:
        for fact in subtask.facts:
            for where, text in (("user scenario", scenario), ("ticket", task.ticket or "")):
                if not fact.stated_in(text):
                    message = f"{where} does not state {fact.key} ({fact.phrase!r}) needed by {subtask.name}"
                    findings.append(LintFinding(subject=task.id, kind=LintKind.MISSING_FACT, message=message))
    return findings


def persona_conflicts(personas: Iterable[Persona]) -> list[LintFinding]:
    """Persona text stating personal facts that a target's customer record could contradict."""
    return [
        LintFinding(subject=f"persona {persona.name}", kind=LintKind.PERSONA_FACT, message=conflict)
        for persona in personas
        for conflict in persona_fact_conflicts(persona)
    ]


def redundant_steps(world: World, plan: Plan, verdict: Verdict) -> list[str]:
    """Descriptions of steps whose removal still reaches the goal with every stored assertion passing.

    Replays from the snapshots the verification kept; the last step is never redundant (V3).
    """
    steps = plan.arrangement.steps
    redundant = []
    for index in range(len(steps) - 1):
        world.restore(verdict.snapshots[index])
        rest = steps[index + 1 :]
        if all(world.call(step.side, step.name, step.arguments).ok for step in rest) and all_passed(
            world, plan.assertions
        ):
            redundant.append(f"step {index + 1} ({steps[index].describe()}) can be left out")
    return redundant
