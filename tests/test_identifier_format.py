"""Identifier renaming of one simulation's start (`rename_identifiers`, the `identifier_format`
perturbation): the renamed reference keeps reward 1.0, no original identifier survives in the renamed data
or brief, one bijection per seed, and the fast template gives exactly what the renaming engine gives.

A sample of τ²-bench's public tasks runs here; every task under 20 seeds is the slow
`test_identifier_format_conformance.py`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from identifier_format_support import assert_renamed, shipped_tasks
from pydantic import BaseModel
from rebrand_support import conformance

from tau2.errors import UserInputError
from tau2.rebrand import Delta, build_renaming, rename_identifiers
from tau2.tasks import Domain, Evaluation, Task, UserInstructions, UserScenario, get_domain, register_domain
from tau2.tau2bench import load_task_file
from tau2.world import IdentifierKind, Identifiers, ToolTable, World

SAMPLE = {
    "airline": ("tasks.json", 3),
    "retail": ("tasks.json", 3),
    "banking_knowledge": ("tasks", 4),
    "telecom": ("tasks_small.json", 6),
}


@pytest.mark.parametrize("domain", sorted(SAMPLE))
def test_a_sample_of_public_tasks_keeps_its_reward_under_two_seeds(domain: str) -> None:
    source = conformance(domain)
    name, count = SAMPLE[domain]
    for task in load_task_file(source / name, domain)[:count]:
        assert_renamed(task, (0, 1), source)


@pytest.mark.parametrize("domain", ["telecom", "telecom_extended", "airline", "retail", "banking_knowledge"])
def test_the_shipped_suites_keep_their_reward(domain: str) -> None:
    for task in shipped_tasks(domain)[:4]:
        assert_renamed(task, (11,), None)


def test_the_same_seed_gives_the_same_renaming_and_another_seed_another() -> None:
    task = shipped_tasks("retail")[0]
    first, again, other = (rename_identifiers(task, seed) for seed in (4, 4, 5))
    assert first.renaming.identifiers == again.renaming.identifiers
    assert first.task == again.task and first.world().snapshot() == again.world().snapshot()
    assert other.renaming.identifiers.keys() == first.renaming.identifiers.keys()
    changed = [
        old for old, new in first.renaming.identifiers.items() if other.renaming.identifiers[old] != new
    ]
    assert len(changed) == len(first.renaming.identifiers)
    assert other.task.user_scenario != first.task.user_scenario


def test_the_identifiers_a_task_meets_are_what_a_record_keeps() -> None:
    tasks = {task.id: task for task in shipped_tasks("banking_knowledge")}
    start = rename_identifiers(tasks["task_007"], 0)
    kept = start.task_identifiers()
    assert set(kept) == {
        "u_bo_lindqvist",  # named in the brief and the calls
        "218-555-0117",  # named in the brief only
        "bo.lindqvist@example.org",  # named in the calls
        "bo.lindqvist@fjordmail.example",  # the task's own, in no record of the data
    }
    assert all(start.renaming.identifiers[old] == new for old, new in kept.items())
    assert len(start.renaming.identifiers) > len(kept)


def test_the_renamed_data_follows_the_seed_not_the_task() -> None:
    tasks = {task.id: task for task in shipped_tasks("banking_knowledge")}
    plain, own = (rename_identifiers(tasks[name], 3) for name in ("task_001", "task_007"))
    assert own.renaming.task_only and not plain.renaming.task_only  # task_007 brings an e-mail of its own
    assert plain.base.__pydantic_serializer__.to_json(plain.base) == own.base.__pydantic_serializer__.to_json(
        own.base
    )


@pytest.mark.parametrize("domain", ["telecom", "telecom_extended", "airline", "retail", "banking_knowledge"])
def test_the_renamed_data_is_what_the_renaming_engine_writes(domain: str) -> None:
    task = shipped_tasks(domain)[0]
    start = rename_identifiers(task, 2)
    original = World.create(get_domain(domain)).state
    document = json.loads(original.__pydantic_serializer__.to_json(original))
    expected = type(original).model_validate(start.renaming.document(document))
    assert start.base.__pydantic_serializer__.to_json(start.base) == expected.__pydantic_serializer__.to_json(
        expected
    )


class Ledger(BaseModel):
    accounts: dict[str, dict[str, Any]]
    owner_numbers: list[int]


LEDGER = {
    "accounts": {
        "AC100001": {"account_id": "AC100001", "owner_number": 55501234, "note": "opened for 55501234"},
        "AC100002": {"account_id": "AC100002", "owner_number": 55505678, "note": "see AC100001"},
    },
    "owner_numbers": [55501234, 55505678],
}

register_domain(
    Domain(
        name="toy_ledger",
        description="Accounts whose owners are numbers.",
        tools=ToolTable(),
        load_state=lambda _: Ledger.model_validate(LEDGER),
        identifiers=Identifiers(
            kinds=(
                IdentifierKind("account", "AC{digits:6}", fields=("account_id",), keys=("accounts",)),
                IdentifierKind("owner", "{digits:8}", fields=("owner_number", "owner_numbers")),
            ),
            data_files=("db.json",),
        ),
    )
)


def toy_task(text: str) -> Task:
    return Task(
        id="toy",
        domain="toy_ledger",
        user_scenario=UserScenario(
            instructions=UserInstructions(reason_for_call=text, task_instructions="Ask.")
        ),
        evaluation=Evaluation(assertions=[]),
    )


def test_identifiers_written_as_numbers_stay_numbers_and_text_is_renamed() -> None:
    start = rename_identifiers(toy_task("I own account AC100002, number 55505678."), 9)
    new = start.renaming.identifiers
    state = start.world().state
    assert isinstance(state, Ledger)
    assert state.owner_numbers == [int(new["55501234"]), int(new["55505678"])]
    account = state.accounts[new["AC100001"]]
    assert account["owner_number"] == int(new["55501234"])
    assert account["note"] == f"opened for {new['55501234']}"
    assert state.accounts[new["AC100002"]]["note"] == f"see {new['AC100001']}"
    brief = start.task.user_scenario.text()
    assert new["AC100002"] in brief and new["55505678"] in brief and "AC100002" not in brief


def test_a_task_writing_an_identifier_the_seed_drew_for_the_data_is_renamed_as_if_drawn_afresh() -> None:
    drawn = rename_identifiers(toy_task("Ask."), 9).renaming.identifiers  # seed 9's draw of the data, kept
    written = toy_task(f"Is {drawn['AC100001']} mine?")
    start = rename_identifiers(written, 9)
    expected = build_renaming(get_domain("toy_ledger"), Delta(), 9, [LEDGER], tasks=[written])
    assert start.renaming.identifiers == expected.identifiers
    assert start.renaming.identifiers["AC100001"] != drawn["AC100001"]
    renamed = Ledger.model_validate(expected.document(LEDGER))
    assert start.base.__pydantic_serializer__.to_json(start.base) == renamed.__pydantic_serializer__.to_json(
        renamed
    )


def test_a_domain_without_identifiers_is_refused_in_one_line() -> None:
    task = shipped_tasks("mock")[0]
    with pytest.raises(UserInputError, match="declares no identifiers") as raised:
        rename_identifiers(task, 0)
    assert "\n" not in str(raised.value)
