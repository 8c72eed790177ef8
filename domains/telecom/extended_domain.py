"""The extended telecom domain (`telecom_extended`): the telecom world with the carrier's further services
(plan changes, autopay, device activation, a SIM PIN the customer may know, the phone's storage, several
lines and customers in one task). Tasks of the `extended` catalog run in it; the τ²-exact `telecom` domain
keeps τ²-bench's tools, policy and semantics unchanged."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tau2.domains.telecom.agent_env import AGENT_ENV
from tau2.domains.telecom.agent_tools import AGENT_TOOLS
from tau2.domains.telecom.catalog import CATALOG, EXTENDED_SUITE
from tau2.domains.telecom.customer import customer_record
from tau2.domains.telecom.extended_agent_env import EXTENDED_AGENT_ENV
from tau2.domains.telecom.extended_agent_tools import EXTENDED_AGENT_TOOLS
from tau2.domains.telecom.extended_state import SIM_PIN_ATTEMPTS, ExtendedTelecomState, extended
from tau2.domains.telecom.extended_user import EXTENDED_USER_ENV, EXTENDED_USER_TOOLS
from tau2.domains.telecom.identifiers import EXTENDED_IDENTIFIERS
from tau2.domains.telecom.invariants import invariant_violations
from tau2.domains.telecom.loader import load_state
from tau2.domains.telecom.patches import apply_patches
from tau2.domains.telecom.policies import extended_policy
from tau2.domains.telecom.scenarios import PHRASING
from tau2.domains.telecom.user_env import USER_ENV
from tau2.domains.telecom.user_tools import USER_TOOLS
from tau2.tasks import Domain
from tau2.world import ToolTable

NAME = "telecom_extended"


def load_extended_state(data_dir: Path | None) -> ExtendedTelecomState:
    """The telecom data of a directory (or ours) as an extended world; the services start at their
    defaults (no SIM PIN anyone knows, storage with room, autopay off)."""
    return extended(load_state(data_dir))


def patch_extended_state(
    state: ExtendedTelecomState, agent_data: Mapping[str, Any] | None, user_data: Mapping[str, Any] | None
) -> ExtendedTelecomState:
    """A task's data patches applied as in the telecom domain, the services' state carried over."""
    patched = apply_patches(state, agent_data, user_data)
    if patched is state:
        return state
    return ExtendedTelecomState(
        crm=patched.crm,
        device=patched.device,
        surroundings=patched.surroundings,
        phone_services=state.phone_services.model_copy(),
        account_services=state.account_services.model_copy(deep=True),
    )


def extended_violations(state: ExtendedTelecomState) -> list[str]:
    """The telecom invariants, and autopay charging only stored payment methods of existing customers."""
    problems = invariant_violations(state)
    customers = {customer.customer_id: customer for customer in state.crm.customers}
    for customer_id, last_4 in state.account_services.autopay.items():
        customer = customers.get(customer_id)
        if customer is None or all(m.account_number_last_4 != last_4 for m in customer.payment_methods):
            problems.append(f"account_services.autopay.{customer_id}: no stored payment method {last_4!r}")
    attempts = state.phone_services.sim_pin_attempts_left
    if not 0 <= attempts <= SIM_PIN_ATTEMPTS:
        problems.append(f"phone_services.sim_pin_attempts_left: {attempts} is outside 0-{SIM_PIN_ATTEMPTS}")
    return problems


EXTENDED_DOMAIN: Domain[ExtendedTelecomState] = Domain(
    name=NAME,
    description=(
        "Mobile carrier support with further services: the telecom domain plus plan changes, autopay, "
        "device activation, SIM PIN entry, phone storage, and tasks spanning several lines or customers."
    ),
    tools=ToolTable(
        AGENT_TOOLS,
        EXTENDED_AGENT_TOOLS,
        AGENT_ENV,
        EXTENDED_AGENT_ENV,
        USER_TOOLS,
        EXTENDED_USER_TOOLS,
        USER_ENV,
        EXTENDED_USER_ENV,
    ),
    load_state=load_extended_state,
    invariants=extended_violations,
    policy=extended_policy,
    transfer_tool="transfer_to_human_agents",
    patch_state=patch_extended_state,
    catalog=CATALOG,
    default_suite=EXTENDED_SUITE,
    phrasing=PHRASING,
    customer_record=customer_record,
    identifiers=EXTENDED_IDENTIFIERS,
)
