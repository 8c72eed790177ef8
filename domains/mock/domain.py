"""The mock domain: the agent manages a power account, the user holds a lamp.

The lamp lights only when it is plugged in, switched on, and the account has power enabled, so a
fix can need both seats, which is what tests of the orchestrator and evaluator need.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tau2.errors import ErrorCode, ToolError
from tau2.tasks import Domain
from tau2.world import Side, ToolKind, ToolSet, ToolTable


class Account(BaseModel):
    """Back-office record of the customer's power account."""

    model_config = ConfigDict(extra="forbid")

    customer: str = "Ada"
    power_enabled: bool = True


class Lamp(BaseModel):
    """The customer's lamp."""

    model_config = ConfigDict(extra="forbid")

    plugged_in: bool = True
    switched_on: bool = True


class MockState(BaseModel):
    """Both sides of the mock world."""

    model_config = ConfigDict(extra="forbid")

    account: Account = Field(default_factory=Account)
    lamp: Lamp = Field(default_factory=Lamp)

    @property
    def lit(self) -> bool:
        """Whether the lamp gives light."""
        return self.lamp.plugged_in and self.lamp.switched_on and self.account.power_enabled


agent = ToolSet(Side.AGENT)
user = ToolSet(Side.USER)


@agent.tool(ToolKind.READ)
def get_account(state: MockState, customer: str) -> Account:
    """Look up the customer's power account.

    Args:
        customer: The customer's first name.
    """
    if customer != state.account.customer:
        raise ToolError(ErrorCode.NOT_FOUND, f"no account for {customer!r}")
    return state.account


@agent.tool(ToolKind.WRITE)
def enable_power(state: MockState, customer: str) -> dict[str, bool]:
    """Turn power on for the customer's account.

    Args:
        customer: The customer's first name.
    """
    account = get_account(state, customer)
    changed = not account.power_enabled
    account.power_enabled = True
    return {"changed": changed}


@agent.tool(ToolKind.GENERIC)
def transfer_to_human_agents(state: MockState, summary: str) -> str:
    """Hand the conversation to a human agent.

    Args:
        summary: A short summary of the customer's problem.
    """
    return "Transfer requested."


@user.tool(ToolKind.READ)
def look_at_lamp(state: MockState) -> str:
    """Look at the lamp and say whether it is lit, plugged in and switched on."""
    lamp = state.lamp
    return (
        f"lit: {'yes' if state.lit else 'no'}; plugged in: {'yes' if lamp.plugged_in else 'no'}; "
        f"switch: {'on' if lamp.switched_on else 'off'}"
    )


@user.tool(ToolKind.WRITE)
def plug_in(state: MockState) -> str:
    """Plug the lamp into the wall socket."""
    state.lamp.plugged_in = True
    return look_at_lamp(state)


@user.tool(ToolKind.WRITE)
def flip_switch(state: MockState) -> str:
    """Flip the lamp's switch."""
    state.lamp.switched_on = not state.lamp.switched_on
    return look_at_lamp(state)


@user.env_function()
def unplug(state: MockState) -> None:
    """Fault injection: pull the plug."""
    state.lamp.plugged_in = False


@agent.env_function()
def cut_power(state: MockState) -> None:
    """Fault injection: disable power on the account."""
    state.account.power_enabled = False


@user.assertion()
def assert_lamp_lit(state: MockState, expected_status: bool) -> bool:
    """Whether the lamp's lit state equals `expected_status`."""
    return state.lit is expected_status


def load_state(data_dir: Path | None) -> MockState:
    """The mock domain has no data files: every world starts lit."""
    return MockState()


def policy(solo: bool, variant: str) -> str:
    """A short agent policy for the mock domain."""
    who = "You perform lamp actions yourself." if solo else "Ask the customer to do lamp actions."
    return f"You help customers whose lamp is dark. Check the account first. {who}"


DOMAIN: Domain[MockState] = Domain(
    name="mock",
    description="A lamp and a power account: the smallest dual-control world.",
    tools=ToolTable(agent, user),
    load_state=load_state,
    policy=policy,
    transfer_tool="transfer_to_human_agents",
    default_suite=Path(__file__).parent / "suites" / "examples.json",
)
