"""Subtask fields beyond τ²-bench's: the intents a variant may join, transfer assertions of its own, and
text fragments added to the tasks that hold it."""

from __future__ import annotations

import pytest
from generator_mock import (
    DARK,
    GRID_FAILURE,
    INTENT,
    LIT,
    POWER_CUT,
    SWITCHED_OFF,
    UNPLUGGED,
    mock_catalog,
    mock_domain,
)
from pydantic import ValidationError

from tau2.generator.compose import compose
from tau2.generator.options import GeneratorOptions
from tau2.generator.pipeline import generate
from tau2.tasks import AssertionCall, Catalog, Intent, Subtask, Task, TextFragments, UserInstructions
from tau2.world import Side

SECOND = INTENT.model_copy(update={"name": "cold_room", "prerequisites": ()})
NOT_LIT = AssertionCall(
    side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True}, expected=False
)


def with_intents(subtasks: tuple[Subtask, ...], *intents: Intent) -> Catalog:
    return Catalog.model_validate(
        {
            **mock_catalog().model_dump(),
            "subtasks": [subtask.model_dump() for subtask in subtasks],
            "intents": [intent.model_dump() for intent in intents],
        }
    )


def two_intents(*subtasks: Subtask) -> Catalog:
    return with_intents(subtasks, INTENT, SECOND)


def test_a_subtask_joins_only_the_intents_it_names() -> None:
    only_cold = SWITCHED_OFF.model_copy(update={"intents": ("cold_room",)})
    catalog = two_intents(UNPLUGGED, only_cold)
    dark = compose(catalog.intent("dark_lamp"), list(catalog.subtasks))
    cold = compose(catalog.intent("cold_room"), list(catalog.subtasks))
    assert all("switched_off" not in composition.subtasks for composition in dark)
    assert ("switched_off",) in [composition.subtasks for composition in cold]
    assert only_cold.offered_to("cold_room") and not only_cold.offered_to("dark_lamp")
    assert UNPLUGGED.offered_to("anything"), "no list: every intent holding the group"


def test_the_intents_a_subtask_names_must_exist_and_hold_its_group() -> None:
    with pytest.raises(ValidationError, match="subtask 'switched_off' names unknown intent 'attic'"):
        two_intents(UNPLUGGED, SWITCHED_OFF.model_copy(update={"intents": ("attic",)}))
    narrow = INTENT.model_copy(update={"name": "plug_only", "groups": ("plug",), "prerequisites": ()})
    stray = SWITCHED_OFF.model_copy(update={"intents": ("plug_only",)})
    with pytest.raises(ValidationError, match="intent 'plug_only' does not hold its group 'switch'"):
        with_intents((UNPLUGGED, stray), INTENT, narrow)


def test_only_an_unfixable_subtask_has_transfer_assertions() -> None:
    with pytest.raises(
        ValidationError, match="fixable subtask 'switched_off' must not have transfer assertions"
    ):
        Subtask.model_validate({**SWITCHED_OFF.model_dump(), "transfer_assertions": [DARK.model_dump()]})


def tasks_of(catalog: Catalog) -> dict[str, Task]:
    generation = generate(mock_domain(catalog), GeneratorOptions(personas=("none",)), lint=False)
    assert generation.rejected == []
    return {task.id: task for task in generation.tasks}


def test_a_transfer_stores_the_unfixable_subtasks_own_assertions() -> None:
    own = GRID_FAILURE.model_copy(update={"transfer_assertions": (NOT_LIT, DARK, NOT_LIT)})
    tasks = tasks_of(mock_catalog(subtasks=(UNPLUGGED, SWITCHED_OFF, own)))
    grid = tasks["[dark_lamp]grid_failure[PERSONA:None]"]
    assert grid.evaluation.assertions == [NOT_LIT, DARK], "in order, each once"
    plain = tasks_of(mock_catalog(subtasks=(UNPLUGGED, SWITCHED_OFF, GRID_FAILURE)))
    assert plain["[dark_lamp]grid_failure[PERSONA:None]"].evaluation.assertions == list(INTENT.failure)


def test_a_transfer_with_own_assertions_is_still_verified() -> None:
    wrong = GRID_FAILURE.model_copy(update={"transfer_assertions": (LIT,)})
    generation = generate(
        mock_domain(mock_catalog(subtasks=(UNPLUGGED, wrong))),
        GeneratorOptions(personas=("none",)),
        lint=False,
    )
    reasons = {rejection.task_id: rejection.reason for rejection in generation.rejected}
    assert reasons["[dark_lamp]grid_failure[PERSONA:None]"].startswith(
        "V6: u.assert_lamp_lit(expected_status=True)"
    )


def test_text_fragments_follow_the_intents_texts_in_the_tasks_that_hold_the_subtask() -> None:
    remembered = SWITCHED_OFF.model_copy(
        update={
            "texts": TextFragments(
                task_instructions="You switched it off yourself, {name}.", ticket="The switch was touched."
            )
        }
    )
    tasks = tasks_of(mock_catalog(subtasks=(UNPLUGGED, remembered, POWER_CUT)))
    both = tasks["[dark_lamp]switched_off|unplugged[PERSONA:None]"]
    alone = tasks["[dark_lamp]power_cut|unplugged[PERSONA:None]"]
    instructions = both.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    assert instructions.task_instructions.endswith(" You switched it off yourself, Ada.")
    assert both.ticket.endswith("The power is on the account of Ada. The switch was touched.")
    assert "switch" not in (alone.ticket or "")
    assert instructions.reason_for_call == "Your lamp is dark and you want light."
