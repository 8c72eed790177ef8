"""Building tasks: the plan of a draft (calls, steps, assertions) and, once verified, its `Task`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tau2.errors import UserInputError
from tau2.generator.compose import Composition
from tau2.generator.workflow import Arrangement
from tau2.personas import Persona
from tau2.tasks import (
    AssertionCall,
    Catalog,
    Domain,
    EnvCall,
    Evaluation,
    Intent,
    SolutionStep,
    Task,
    Texts,
    UserInstructions,
    UserScenario,
    fill_text,
)
from tau2.world import Side


@dataclass(frozen=True, slots=True)
class Plan:
    """A composition laid out for one target and order: calls, steps and assertions, but no persona or
    texts; enough to verify it on a world."""

    catalog: Catalog
    intent: Intent
    composition: Composition
    arrangement: Arrangement

    @property
    def setup(self) -> tuple[EnvCall, ...]:
        """The calls before any fault: the catalog's preamble, then the intent's set-up."""
        return (*self.catalog.preamble, *self.intent.setup)

    @property
    def transfer(self) -> bool:
        """Whether a subtask is unfixable, so the correct outcome is a transfer."""
        return any(subtask.unfixable for subtask in self.arrangement.init)

    @property
    def extras(self) -> tuple[AssertionCall, ...]:
        """The subtasks' extra assertions, in init order (stored only when the task is fixable)."""
        return tuple(check for subtask in self.arrangement.init for check in subtask.extra_assertions)

    @property
    def assertions(self) -> tuple[AssertionCall, ...]:
        """Stored assertions: for a transfer, each unfixable subtask's transfer assertions (the intent's
        failure ones when it has none of its own), in init order without repeats; else success plus extras."""
        if not self.transfer:
            return self.intent.success + self.extras
        stored: list[AssertionCall] = []
        for subtask in self.arrangement.init:
            if not subtask.unfixable:
                continue
            for check in subtask.transfer_assertions or self.intent.failure:
                if check not in stored:
                    stored.append(check)
        return tuple(stored)

    @property
    def texts(self) -> Texts:
        """The intent's text templates, each followed by the fragments its subtasks add, in init order."""
        texts = self.intent.texts
        updates: dict[str, str] = {}
        for field in Texts.model_fields:
            added = [part for subtask in self.arrangement.init if (part := getattr(subtask.texts, field))]
            if added:
                own = getattr(texts, field)
                updates[field] = " ".join([own, *added] if own else added)
        return texts.model_copy(update=updates) if updates else texts


def render(template: str, facts: Mapping[str, str]) -> str:
    """Fill a text template's `{fact}` fields (nothing else of a format string: see `fill_text`); an unknown
    fact is a catalog error."""
    try:
        return fill_text(template, facts)
    except ValueError as error:
        raise UserInputError(str(error)) from None


def build_task(plan: Plan, persona: Persona, facts: Mapping[str, str], domain: Domain[Any]) -> Task:
    """The `domain` task of a verified plan played by `persona`, its texts filled from `facts`."""
    texts = plan.texts
    catalog = plan.catalog
    if plan.transfer:
        if domain.transfer_tool is None:
            raise UserInputError(f"domain {domain.name!r} has no transfer tool for unfixable subtasks")
        solution = [
            SolutionStep(
                side=Side.AGENT,
                name=domain.transfer_tool,
                arguments={"summary": render(texts.transfer_summary, facts)},
                action_id=domain.transfer_tool,
                compare_args=[],
            )
        ]
    else:
        solution = [
            SolutionStep(
                side=step.side, name=step.name, arguments=step.arguments, action_id=f"{step.name}_{i}"
            )
            for i, step in enumerate(plan.arrangement.steps)
        ]
    known_info = texts.known_info
    return Task(
        id=plan.composition.task_id(persona.label),
        domain=domain.name,
        intent=plan.intent.name,
        subtasks=list(plan.composition.sorted_subtasks),
        persona=persona.label,
        purpose=render(texts.purpose, facts),
        user_scenario=UserScenario(
            instructions=UserInstructions(
                reason_for_call=render(texts.reason_for_call, facts),
                known_info=None if known_info is None else render(known_info, facts),
                task_instructions=render(texts.task_instructions, facts),
            ),
            persona_text=persona.prompt_text,
        ),
        ticket=render(texts.ticket, facts),
        initialization=[*plan.setup, *(call for s in plan.arrangement.init for call in s.init)],
        evaluation=Evaluation(
            assertions=list(plan.assertions), solution=solution, expects_transfer=plan.transfer
        ),
        metadata={"target": catalog.target.key, "catalog_version": catalog.version},
    )
