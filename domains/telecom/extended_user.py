"""The extended domain's user side: phone tools to enter the SIM PIN and to see and free the phone's
storage, the env functions that plant those faults, and the assertions that read them."""

from __future__ import annotations

import re

from tau2.domains.telecom.extended_state import SIM_PIN_ATTEMPTS, ExtendedTelecomState
from tau2.domains.telecom.network import network_search, sim_status, status_bar
from tau2.domains.telecom.phone import SimCardStatus
from tau2.errors import ErrorCode, ToolError
from tau2.world import Observation, Side, ToolKind, ToolSet

EXTENDED_USER_TOOLS = ToolSet(Side.USER)
EXTENDED_USER_ENV = ToolSet(Side.USER)

_PIN = re.compile(r"^\d{4,8}$")
_IN_USE_PERCENT = 62
"""The share of storage in use the phone shows when it is not full (also once old media are cleared)."""


def _valid_pin(pin: str) -> str:
    if not _PIN.match(pin):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"A SIM PIN is 4 to 8 digits (got {pin!r}).")
    return pin


@EXTENDED_USER_TOOLS.tool(ToolKind.WRITE)
def enter_sim_pin(state: ExtendedTelecomState, pin: str) -> dict[str, object]:
    """Type the SIM card's PIN to unlock a PIN-locked SIM; the phone then re-registers on the network.
    Each wrong PIN uses up one of three attempts; after the last one the SIM locks with a PUK code.

    Args:
        pin: The PIN, 4 to 8 digits.
    """
    _valid_pin(pin)
    device = state.device
    status = sim_status(device)
    if status != SimCardStatus.LOCKED_PIN.value:
        raise ToolError(
            ErrorCode.INVALID_STATE, f"The SIM card does not ask for a PIN (SIM status: {status})."
        )
    services = state.phone_services
    if services.sim_pin is not None and pin == services.sim_pin:
        device.sim_card_status = SimCardStatus.ACTIVE
        services.sim_pin_attempts_left = SIM_PIN_ATTEMPTS
        network_search(state)
        message = "PIN accepted: the SIM card is unlocked."
    else:
        services.sim_pin_attempts_left -= 1
        if services.sim_pin_attempts_left == 0:
            device.sim_card_status = SimCardStatus.LOCKED_PUK
            message = "Wrong PIN. No attempts are left: the SIM card is now locked with a PUK code."
        else:
            message = f"Wrong PIN. {services.sim_pin_attempts_left} attempts left."
    return {"message": message, "sim_status": sim_status(device), "status_bar": status_bar(state)}


@EXTENDED_USER_TOOLS.tool(ToolKind.READ)
def check_storage(state: ExtendedTelecomState) -> str:
    """See how much of the phone's storage is in use."""
    if state.phone_services.storage_full:
        return (
            "Storage: 100% used, no space left. New picture messages cannot be saved, sent or received "
            "until space is freed."
        )
    return f"Storage: {_IN_USE_PERCENT}% used."


@EXTENDED_USER_TOOLS.tool(ToolKind.WRITE)
def free_up_storage(state: ExtendedTelecomState) -> dict[str, object]:
    """Delete cached files and old downloaded media to free space on the phone (photos and contacts are
    kept)."""
    services = state.phone_services
    changed = services.storage_full
    services.storage_full = False
    message = "Cleared cached files and old media" if changed else "Nothing needed clearing"
    return {
        "message": f"{message}; storage is {_IN_USE_PERCENT}% used.",
        "changed": changed,
        "status_bar": status_bar(state),
    }


@EXTENDED_USER_ENV.env_function()
def set_sim_pin(state: ExtendedTelecomState, pin: str) -> None:
    """Set the PIN the SIM card accepts (three attempts left).

    Args:
        pin: The PIN, 4 to 8 digits.
    """
    state.phone_services.sim_pin = _valid_pin(pin)
    state.phone_services.sim_pin_attempts_left = SIM_PIN_ATTEMPTS


@EXTENDED_USER_ENV.env_function()
def fill_storage(state: ExtendedTelecomState) -> None:
    """Fill the phone's storage, so that picture messages fail."""
    state.phone_services.storage_full = True


@EXTENDED_USER_ENV.assertion()
def assert_storage_full(state: ExtendedTelecomState, expected_status: bool) -> Observation:
    """Whether the phone's storage being full equals `expected_status`; observes whether it is.

    Args:
        expected_status: Whether the storage should be full.
    """
    observed = state.phone_services.storage_full
    return Observation(holds=observed == expected_status, observed=observed)
