"""Renaming a task by replaying it on both worlds, on a toy domain whose tools derive things from
identifiers: an account id hashed from its owner's id (learned, and renamed in the later actions and the
expected outputs), a list the tool keeps sorted (not a difference), and a tool that knows an identifier by
heart (a difference the replay reports: a delta cannot change code)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tau2.errors import ErrorCode, ToolError
from tau2.rebrand import Delta, rename_world
from tau2.tasks import (
    AssertionCall,
    Domain,
    Evaluation,
    SolutionStep,
    Task,
    UserInstructions,
    UserScenario,
    register_domain,
)
from tau2.world import IdentifierKind, Identifiers, Side, ToolKind, ToolSet, ToolTable


class Bank(BaseModel):
    owners: dict[str, dict[str, Any]]
    accounts: dict[str, dict[str, Any]] = {}


desk = ToolSet(Side.AGENT)


@desk.tool(ToolKind.WRITE)
def open_account(state: Bank, owner_id: str) -> str:
    """Open an account for an owner; its id is derived from the owner's.

    Args:
        owner_id: The owner's id.
    """
    if owner_id not in state.owners:
        raise ToolError(ErrorCode.NOT_FOUND, f"no owner {owner_id}")
    account_id = "acct_" + hashlib.sha256(owner_id.encode()).hexdigest()[:10]
    state.accounts[account_id] = {"account_id": account_id, "owner_id": owner_id, "tags": []}
    return f"Opened account {account_id} for {owner_id}."


@desk.tool(ToolKind.WRITE)
def tag_account(state: Bank, account_id: str, owner_ids: list[str]) -> dict[str, Any]:
    """Tag an account with owners, kept sorted.

    Args:
        account_id: The account.
        owner_ids: Owners to tag it with.
    """
    if account_id not in state.accounts:
        raise ToolError(ErrorCode.NOT_FOUND, f"no account {account_id}")
    account = {**state.accounts[account_id], "tags": sorted(owner_ids)}
    state.accounts[account_id] = account
    return account


@desk.tool(ToolKind.READ)
def lucky(state: Bank, owner_id: str) -> str:
    """Whether an owner is the one the code knows by heart.

    Args:
        owner_id: The owner's id.
    """
    return "lucky" if owner_id == "OW1007" else "not lucky"


@desk.assertion()
def assert_account_count(state: Bank, expected: int) -> bool:
    """Whether the bank holds `expected` accounts.

    Args:
        expected: The number of accounts.
    """
    return len(state.accounts) == expected


DATA = {"owners": {f"OW{number}7": {"owner_id": f"OW{number}7"} for number in range(100, 104)}}


def load_state(data_dir: Path | None) -> Bank:
    assert data_dir is not None
    return Bank.model_validate(json.loads((data_dir / "db.json").read_text()))


DOMAIN: Domain[Bank] = register_domain(
    Domain(
        name="toy_bank",
        description="Owners and accounts whose ids derive from theirs.",
        tools=ToolTable(desk),
        load_state=load_state,
        identifiers=Identifiers(
            kinds=(
                IdentifierKind("owner", "OW{digits:6}", fields=("owner_id", "owner_ids"), keys=("owners",)),
                IdentifierKind("account", "{prefix}{hex:10}", fields=("account_id",), keys=("accounts",)),
            ),
            data_files=("db.json",),
        ),
    )
)


def task(steps: list[SolutionStep], info: list[str] | None = None) -> Task:
    return Task(
        id="t",
        domain="toy_bank",
        user_scenario=UserScenario(
            instructions=UserInstructions(reason_for_call="You are OW1007.", task_instructions="Open it.")
        ),
        evaluation=Evaluation(
            assertions=[
                AssertionCall(side=Side.AGENT, name="assert_account_count", arguments={"expected": 1})
            ],
            solution=steps,
            communicate_info=info,
        ),
    )


def step(number: int, name: str, **arguments: Any) -> SolutionStep:
    return SolutionStep(side=Side.AGENT, name=name, arguments=arguments, action_id=str(number))


def source(tmp_path: Path) -> Path:
    directory = tmp_path / "source"
    directory.mkdir()
    (directory / "db.json").write_text(json.dumps(DATA), encoding="utf-8")
    return directory


def test_an_identifier_a_tool_derives_is_learned_and_renamed_downstream(tmp_path: Path) -> None:
    derived = "acct_" + hashlib.sha256(b"OW1007").hexdigest()[:10]
    original = task(
        [
            step(1, "open_account", owner_id="OW1007"),
            step(2, "tag_account", account_id=derived, owner_ids=["OW1027", "OW1017"]),
        ],
        info=[derived],
    )
    world = rename_world(DOMAIN, Delta(), [original], tmp_path / "out", seed=1, source=source(tmp_path))
    (renamed,) = world.tasks
    assert renamed.problems == [] and world.consistent
    owner = world.renaming.identifiers["OW1007"]
    new_account = "acct_" + hashlib.sha256(owner.encode()).hexdigest()[:10]
    assert renamed.renaming.identifiers[derived] == new_account  # learned from what the tool wrote
    assert renamed.task.evaluation.solution[1].arguments["account_id"] == new_account
    assert renamed.task.evaluation.communicate_info == [new_account]
    assert renamed.task.user_scenario.instructions.reason_for_call == f"You are {owner}."  # type: ignore[union-attr]


def test_a_tool_that_knows_an_identifier_by_heart_is_reported(tmp_path: Path) -> None:
    original = task([step(1, "lucky", owner_id="OW1007"), step(2, "open_account", owner_id="OW1007")])
    world = rename_world(DOMAIN, Delta(), [original], tmp_path / "out", seed=1, source=source(tmp_path))
    assert not world.consistent
    assert world.tasks[0].problems == [
        "reference action 1 of 2 (lucky): result differs: at top: expected 'lucky', got 'not lucky'"
    ]
