"""A small subtask catalog over the mock lamp domain, for testing the generator without telecom."""

from __future__ import annotations

import dataclasses

from tau2.domains.mock import DOMAIN as MOCK
from tau2.domains.mock.domain import MockState
from tau2.tasks import (
    AssertionCall,
    Catalog,
    Domain,
    EnvCall,
    Fact,
    Group,
    Intent,
    Precedence,
    Step,
    Subtask,
    Target,
    Texts,
)
from tau2.world import Side, World

A, U = Side.AGENT, Side.USER
LIT = AssertionCall(side=U, name="assert_lamp_lit", arguments={"expected_status": True})
DARK = AssertionCall(side=U, name="assert_lamp_lit", arguments={"expected_status": False})
ACCOUNT_FACT = Fact(key="account_holder", phrase="account of Ada")

TEXTS = Texts(
    purpose="Lamp path: the lamp stays dark.",
    reason_for_call="Your lamp is dark and you want light.",
    known_info="You are {name}; the {lamp}. The power is on the account of Ada.",
    task_instructions="Do what the agent asks and report what the lamp shows.",
    ticket="{name} reports a dark lamp; the {lamp}. The power is on the account of Ada.",
    transfer_summary="{name}'s lamp stays dark; the grid is down.",
)

UNPLUGGED = Subtask(
    name="unplugged",
    group="plug",
    description="The lamp is unplugged.",
    init=(EnvCall(side=U, name="unplug"),),
    checks=(DARK,),
    solution=(Step(side=U, name="plug_in"),),
)
SWITCHED_OFF = Subtask(
    name="switched_off",
    group="switch",
    description="The lamp's switch is off.",
    init=(EnvCall(side=U, name="flip_switch"),),
    checks=(DARK,),
    solution=(Step(side=U, name="flip_switch"),),
)
POWER_CUT = Subtask(
    name="power_cut",
    group="power",
    description="Power is disabled on the account.",
    init=(EnvCall(side=A, name="cut_power"),),
    solution=(Step(side=A, name="enable_power", arguments={"customer": "Ada"}),),
    facts=(ACCOUNT_FACT,),
)
GRID_FAILURE = Subtask(
    name="grid_failure",
    group="power",
    description="The grid is down; nobody here can restore power.",
    init=(EnvCall(side=A, name="cut_power"),),
    unfixable=True,
)
GROUPS = (
    Group(name="plug", workflow_step="1", description="Is the lamp plugged in?"),
    Group(name="switch", workflow_step="2", description="Is the switch on?"),
    Group(name="power", workflow_step="3", description="Does the account have power?"),
)
INTENT = Intent(
    name="dark_lamp",
    groups=("plug", "switch", "power"),
    prerequisites=("plug",),
    success=(LIT,),
    failure=(DARK,),
    texts=TEXTS,
)


def mock_catalog(
    key: str = "Ada", subtasks: tuple[Subtask, ...] | None = None, texts: Texts = TEXTS
) -> Catalog:
    """The lamp catalog for one target; subtasks and texts can be swapped to plant defects."""
    return Catalog(
        version="mock-1",
        target=Target(key=key, facts={"name": "Ada"}),
        groups=GROUPS,
        subtasks=subtasks or (UNPLUGGED, SWITCHED_OFF, POWER_CUT, GRID_FAILURE),
        intents=(INTENT.model_copy(update={"texts": texts}),),
        stages=("plug", "switch", "power"),
        fix_order=(Precedence(before="power", after="plug", reason="check the account before the lamp"),),
    )


@dataclasses.dataclass(frozen=True)
class MockSource:
    """A catalog source offering the given catalogs whatever the world."""

    catalogs_offered: tuple[Catalog, ...]

    def catalogs(self, world: World) -> list[Catalog]:
        """The catalogs, preferred first."""
        return list(self.catalogs_offered)

    def situation(self, world: World) -> dict[str, str]:
        """Whether the lamp is plugged in after initialisation."""
        state = world.state
        assert isinstance(state, MockState)
        return {"lamp": "lamp is plugged in" if state.lamp.plugged_in else "lamp is unplugged"}


def mock_domain(*catalogs: Catalog) -> Domain:
    """The mock domain with a catalog source registered (by default the plain lamp catalog)."""
    return dataclasses.replace(MOCK, catalog=MockSource(catalogs or (mock_catalog(),)))
