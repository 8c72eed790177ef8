"""Verification rejects every planted defect with the rule it breaks; rejected tasks are never kept."""

from __future__ import annotations

import pytest
from generator_mock import DARK, INTENT, LIT, POWER_CUT, SWITCHED_OFF, UNPLUGGED, mock_catalog, mock_domain

from tau2.generator.options import GeneratorOptions
from tau2.generator.pipeline import Generation, generate
from tau2.tasks import AssertionCall, EnvCall, Step, Subtask
from tau2.world import Side

U, A = Side.USER, Side.AGENT


def run(*subtasks: Subtask, success: tuple[AssertionCall, ...] = (LIT,)) -> Generation:
    """Generate the mock intent with only `subtasks` offered (plus the plug prerequisite)."""
    catalog = mock_catalog(subtasks=(UNPLUGGED, *subtasks))
    catalog = catalog.model_copy(update={"intents": (INTENT.model_copy(update={"success": success}),)})
    return generate(mock_domain(catalog), GeneratorOptions(personas=("none",)), lint=False)


def reasons(generation: Generation) -> dict[str, str]:
    return {rejection.task_id: rejection.reason for rejection in generation.rejected}


def variant(base: Subtask, **changes: object) -> Subtask:
    return Subtask.model_validate({**base.model_dump(), **changes})


def test_a_healthy_catalog_verifies_everything() -> None:
    generation = run(SWITCHED_OFF, POWER_CUT)
    assert generation.rejected == []
    assert [task.id for task in generation.tasks] == [
        "[dark_lamp]switched_off[PERSONA:None]",
        "[dark_lamp]power_cut[PERSONA:None]",
        "[dark_lamp]switched_off|unplugged[PERSONA:None]",
        "[dark_lamp]power_cut|unplugged[PERSONA:None]",
        "[dark_lamp]power_cut|switched_off[PERSONA:None]",
        "[dark_lamp]power_cut|switched_off|unplugged[PERSONA:None]",
    ]


def test_v1_the_intent_must_hold_before_initialisation() -> None:
    generation = run(SWITCHED_OFF, success=(DARK,))
    assert generation.tasks == []
    assert set(reasons(generation).values()) == {
        "V1: before the faults are planted u.assert_lamp_lit(expected_status=False) returned False, "
        "expected True"
    }


@pytest.mark.parametrize(
    ("subtask", "reason"),
    [
        (
            variant(SWITCHED_OFF, init=[{"side": "user", "name": "smash"}]),
            "V2: switched_off: init call u.smash() failed: no user env function named 'smash'",
        ),
        (
            variant(SWITCHED_OFF, checks=[LIT.model_dump()]),
            "V2: switched_off: check u.assert_lamp_lit(expected_status=True) returned False, expected True",
        ),
        (
            variant(SWITCHED_OFF, init=[{"side": "user", "name": "plug_in"}], checks=[]),
            "V3: the intent is already satisfied after initialisation",
        ),
        (
            variant(
                SWITCHED_OFF,
                solution=[{"side": "user", "name": "flip_switch"}, {"side": "user", "name": "plug_in"}],
            ),
            "V3: the intent is satisfied after step 1 of 2",
        ),
        (
            variant(POWER_CUT, solution=[Step(side=A, name="enable_power", arguments={"customer": "Bob"})]),
            "V4: step 1 (a.enable_power(customer='Bob')) failed: not_found: no account for 'Bob'",
        ),
        (
            variant(SWITCHED_OFF, solution=[{"side": "user", "name": "look_at_lamp"}]),
            "V5: the solution does not satisfy the intent",
        ),
        (
            variant(SWITCHED_OFF, extra_assertions=[DARK.model_dump()]),
            "V6: u.assert_lamp_lit(expected_status=False) returned False, expected True",
        ),
    ],
)
def test_each_rule_rejects_its_defect(subtask: Subtask, reason: str) -> None:
    generation = run(subtask)
    task_id = f"[dark_lamp]{subtask.name}[PERSONA:None]"
    assert reasons(generation)[task_id] == reason
    assert task_id not in [task.id for task in generation.tasks]


def test_a_transfer_task_must_stay_broken_and_keeps_only_the_failure_assertions() -> None:
    grid = Subtask(
        name="grid_failure",
        group="power",
        description="d",
        init=(EnvCall(side=A, name="cut_power"),),
        unfixable=True,
    )
    generation = run(grid)
    task = {task.id: task for task in generation.tasks}["[dark_lamp]grid_failure|unplugged[PERSONA:None]"]
    assert task.evaluation.expects_transfer
    assert task.evaluation.assertions == [DARK]
    assert [step.name for step in task.evaluation.solution] == ["transfer_to_human_agents"]
    assert task.evaluation.solution[0].compare_args == []
    healed = variant(grid, init=[{"side": "agent", "name": "enable_power", "arguments": {"customer": "Ada"}}])
    assert reasons(run(healed))["[dark_lamp]grid_failure[PERSONA:None]"] == (
        "V3: the intent is already satisfied after initialisation"
    )


def test_a_transfer_is_rejected_when_fixing_the_fixable_subtasks_fixes_the_world() -> None:
    grid = Subtask(
        name="grid_failure",
        group="power",
        description="d",
        init=(EnvCall(side=A, name="cut_power"),),
        unfixable=True,
    )
    overreach = variant(
        SWITCHED_OFF,
        solution=[
            {"side": "user", "name": "flip_switch"},
            {"side": "agent", "name": "enable_power", "arguments": {"customer": "Ada"}},
        ],
    )
    generation = run(grid, overreach)
    assert reasons(generation)["[dark_lamp]grid_failure|switched_off[PERSONA:None]"] == (
        "V5: fixing the fixable subtasks satisfies the intent, so no transfer is needed"
    )
    assert "[dark_lamp]grid_failure[PERSONA:None]" in [task.id for task in generation.tasks]
