"""The lint catches planted defects: a missing user-known fact, a persona stating an age, a redundant step."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from generator_mock import SWITCHED_OFF, UNPLUGGED, mock_catalog, mock_domain

from tau2.domains.telecom.catalog import CATALOG
from tau2.domains.telecom.scenarios import MOBILE_DATA
from tau2.generator.lint import LintKind
from tau2.generator.options import GeneratorOptions
from tau2.generator.pipeline import generate
from tau2.tasks import Catalog, Domain, Subtask
from tau2.world import World

REFUEL_SINGLE = GeneratorOptions(
    intents=("mobile_data_issue",),
    personas=("none",),
    max_subtasks=1,
    exclude=("data_usage_exceeded_no_refuel",),
)


@dataclasses.dataclass(frozen=True)
class EditedTexts:
    """The telecom catalog source with the mobile-data texts replaced."""

    task_instructions: str
    ticket: str

    def catalogs(self, world: World) -> list[Catalog]:
        texts = MOBILE_DATA.model_copy(
            update={"task_instructions": self.task_instructions, "ticket": self.ticket}
        )
        return [
            catalog.model_copy(
                update={
                    "intents": tuple(
                        intent.model_copy(update={"texts": texts})
                        if intent.name == "mobile_data_issue"
                        else intent
                        for intent in catalog.intents
                    )
                }
            )
            for catalog in CATALOG.catalogs(world)
        ]

    def situation(self, world: World) -> dict[str, str]:
        return CATALOG.situation(world)


def test_a_scenario_or_ticket_missing_the_refuel_amount_is_flagged(telecom: Domain) -> None:
    vague = EditedTexts("Do what the agent asks; you may buy some extra data.", MOBILE_DATA.ticket)
    domain = dataclasses.replace(telecom, catalog=vague)
    findings = [f for f in generate(domain, REFUEL_SINGLE).findings if f.kind is LintKind.MISSING_FACT]
    assert [(f.subject, f.message) for f in findings] == [
        (
            "[mobile_data_issue]data_usage_exceeded[PERSONA:None]",
            "user scenario does not state refuel_amount ('2.0 GB') needed by data_usage_exceeded",
        )
    ]
    no_ticket = EditedTexts(MOBILE_DATA.task_instructions, "Customer {name} reports slow data.")
    domain = dataclasses.replace(telecom, catalog=no_ticket)
    messages = [
        f.message for f in generate(domain, REFUEL_SINGLE).findings if f.kind is LintKind.MISSING_FACT
    ]
    assert "ticket does not state refuel_amount ('2.0 GB') needed by data_usage_exceeded" in messages
    assert (
        "ticket does not state location ('abroad in France') needed by user_abroad_roaming_enabled_off"
        in messages
    )


def test_the_shipped_texts_carry_every_fact(telecom: Domain) -> None:
    generation = generate(telecom, GeneratorOptions(personas=("none",), max_subtasks=1))
    assert generation.rejected == []
    assert generation.findings == []


def test_a_persona_stating_an_age_is_flagged(tmp_path: Path) -> None:
    path = tmp_path / "retiree.toml"
    path.write_text(
        'name = "retiree"\nlabel = "Retiree"\n'
        'description = "You are 64 years old and anxious about technology."\n'
        '[attributes]\noccupation = "retired librarian"\ntechnical_skill = "low"\n'
        'temperament = "anxious"\nverbosity = "normal"\ncooperativeness = "medium"\n',
        encoding="utf-8",
    )
    generation = generate(mock_domain(), GeneratorOptions(personas=(str(path),), max_subtasks=1))
    persona = [f for f in generation.findings if f.kind is LintKind.PERSONA_FACT]
    assert [(f.subject, f.message) for f in persona] == [
        ("persona retiree", 'description: age "64 years old" could contradict the customer\'s date of birth')
    ]
    assert all(task.persona == "Retiree" for task in generation.tasks)


def test_a_redundant_step_is_flagged() -> None:
    detour: Subtask = SWITCHED_OFF.model_validate(
        {
            **SWITCHED_OFF.model_dump(),
            "solution": [{"side": "user", "name": "plug_in"}, {"side": "user", "name": "flip_switch"}],
        }
    )
    domain = mock_domain(mock_catalog(subtasks=(UNPLUGGED, detour)))
    generation = generate(domain, GeneratorOptions(personas=("none",)))
    redundant = [(f.subject, f.message) for f in generation.findings if f.kind is LintKind.REDUNDANT_STEP]
    assert redundant == [("[dark_lamp]switched_off[PERSONA:None]", "step 1 (u.plug_in()) can be left out")]
    assert generate(domain, GeneratorOptions(personas=("none",)), lint=False).findings == []
