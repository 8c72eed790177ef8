"""The whole telecom world: the CRM database (agent side) plus the phone and surroundings (user side)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tau2.domains.telecom.crm import TelecomDB
from tau2.domains.telecom.phone import DeviceState, Surroundings


class TelecomState(BaseModel):
    """One telecom world state; the unit the engine snapshots, restores and fingerprints."""

    model_config = ConfigDict(extra="forbid")

    crm: TelecomDB = Field(default_factory=TelecomDB)
    device: DeviceState = Field(default_factory=DeviceState)
    surroundings: Surroundings = Field(default_factory=Surroundings)

    def service_blocked(self) -> bool:
        """Whether something beyond this world's own rules keeps the phone off the network: never here; a
        richer world (the extended services) overrides it."""
        return False

    def mms_blocked(self) -> bool:
        """Whether something beyond this world's own rules stops MMS: never here; a richer world overrides
        it."""
        return False
