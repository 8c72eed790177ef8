"""Household tasks of the extended catalog: faults on several lines and on two customers of one scenario,
beside records no fault touches. Their texts name people as a person would (name, phone number, date of
birth), their reference solution writes only to the records it is about, and the offline actors' self-test
holds on them in both modes."""

from __future__ import annotations

import re

import pytest

from tau2.actors import make_actor
from tau2.episode import ActorSpec, EpisodeConfig, Mode, run_episode
from tau2.generator.options import GeneratorOptions, PersonaAssignment, TargetMode
from tau2.generator.pipeline import Generation, generate
from tau2.tasks import Domain, Task, initialize_world
from tau2.world import Side, state_changes

INTERNAL_ID = re.compile(r"\b[BCDLP]\d{4,}\b")
"""A CRM record ID (customer, line, device, bill, plan), which no customer would say."""


@pytest.fixture(scope="module")
def household(telecom: Domain) -> Generation:
    """Household tasks: one per number of subtasks and persona, spread over the targets."""
    options = GeneratorOptions(
        catalog="extended",
        intents=("household_issue",),
        persona_assignment=PersonaAssignment.CROSS,
        sample_per_bin=1,
        seed=5,
        target=TargetMode.SPREAD,
    )
    return generate(telecom, options)


def involved(task: Task) -> tuple[set[str], set[str]]:
    """The customers and lines the reference solution names."""
    named = [step.arguments for step in task.evaluation.solution]
    customers = {str(arguments["customer_id"]) for arguments in named if "customer_id" in arguments}
    lines = {str(arguments["line_id"]) for arguments in named if "line_id" in arguments}
    return customers, lines


def test_household_tasks_span_several_lines_and_customers(household: Generation) -> None:
    assert household.rejected == [] and household.findings == []
    assert {task.num_subtasks for task in household.tasks} == set(range(1, 10))
    spanning = [
        task for task in household.tasks if len(involved(task)[0]) >= 2 and len(involved(task)[1]) >= 2
    ]
    assert len(spanning) >= len(household.tasks) // 2, (
        "most hold faults of the caller's and the partner's lines"
    )


def test_texts_name_people_and_numbers_never_record_ids(household: Generation) -> None:
    for task in household.tasks:
        texts = [task.user_scenario.text(), task.ticket or ""]
        assert not any(INTERNAL_ID.search(text) for text in texts), task.id
        assert "Sam " in texts[0] and "1987-04-12" in texts[0] and "1987-04-12" in texts[1]


def test_the_reference_solution_writes_only_to_the_records_it_names(household: Generation) -> None:
    for task in household.tasks:
        world = initialize_world(task)
        before = world.snapshot()
        for step in task.evaluation.solution:
            assert world.call(step.side, step.name, step.arguments).ok, (task.id, step.name)
        after = world.snapshot()
        customers, lines = involved(task)
        state = world.state
        for change in state_changes(before, after):
            table, index = _record(change.path)
            if table == "lines":
                assert state.crm.lines[index].line_id in lines, (task.id, change.path)
            elif table == "bills":
                assert state.crm.bills[index].customer_id in customers, (task.id, change.path)
            elif table == "customers":
                assert state.crm.customers[index].customer_id in customers, (task.id, change.path)
            else:
                assert table in ("device", "surroundings", "account_services"), (task.id, change.path)


def _record(path: str) -> tuple[str, int]:
    """The table of a changed path and the record's index in it (-1 outside the CRM's tables)."""
    match = re.match(r"^crm\.(\w+)\[(\d+)\]", path)
    return (match[1], int(match[2])) if match else (path.split(".")[0], -1)


@pytest.mark.parametrize("mode", [Mode.INTERACTIVE, Mode.SOLO])
async def test_the_oracle_solves_household_tasks_and_the_null_agent_does_not(
    household: Generation, mode: Mode
) -> None:
    config = EpisodeConfig(mode=mode)
    for agent, expected in (("oracle", 1.0), ("null", 0.0)):
        for task in household.tasks:
            user = None if mode is Mode.SOLO else make_actor(ActorSpec(kind="scripted"), Side.USER, mode)
            result = await run_episode(
                task, make_actor(ActorSpec(kind=agent), Side.AGENT, mode), user, config
            )
            assert result.reward == expected, (agent, task.id, result.trajectory.termination_detail)
