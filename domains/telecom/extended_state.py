"""The world of the extended telecom domain: the telecom state plus what the carrier's further services
need (a SIM PIN the customer may know, the phone's storage, autopay), and the two rules they add: a phone
whose device record is not activated gets no service, and a phone with full storage sends no MMS.

The τ²-exact `telecom` domain never builds this state, so its semantics stay τ²-bench's.
"""

from __future__ import annotations

from pydantic import Field

from tau2.domains.telecom.binding import bound_line
from tau2.domains.telecom.lookup import find_device
from tau2.domains.telecom.record import Record
from tau2.domains.telecom.state import TelecomState

SIM_PIN_ATTEMPTS = 3
"""Wrong PIN entries a SIM card takes before it locks with a PUK code."""


class PhoneServices(Record):
    """Phone-side facts the extended services add (user side)."""

    sim_pin: str | None = None
    """The PIN the SIM card accepts; None: one nobody in the conversation knows, so no entry unlocks it."""
    sim_pin_attempts_left: int = Field(default=SIM_PIN_ATTEMPTS, ge=0, le=SIM_PIN_ATTEMPTS)
    storage_full: bool = False
    """The phone's storage has no room left, so picture messages can be neither saved nor sent."""


class AccountServices(Record):
    """CRM-side facts the extended services add (agent side)."""

    autopay: dict[str, str] = Field(default_factory=dict)
    """Customer ID → the last four digits of the stored payment method autopay charges (absent: off)."""


class ExtendedTelecomState(TelecomState):
    """A telecom world with the extended services."""

    phone_services: PhoneServices = Field(default_factory=PhoneServices)
    account_services: AccountServices = Field(default_factory=AccountServices)

    def service_blocked(self) -> bool:
        """The bound line's device record is not activated."""
        line = bound_line(self)
        device = None if line is None or line.device_id is None else find_device(self.crm, line.device_id)
        return device is not None and not device.activated

    def mms_blocked(self) -> bool:
        """The phone's storage is full."""
        return self.phone_services.storage_full


def extended(state: TelecomState) -> ExtendedTelecomState:
    """`state` as a world of the extended domain: itself when it is one, else with the services' defaults."""
    if isinstance(state, ExtendedTelecomState):
        return state
    return ExtendedTelecomState(crm=state.crm, device=state.device, surroundings=state.surroundings)
