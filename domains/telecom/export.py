"""Writing the user side in τ²-bench's user-database format (spec §1.4, last row)."""

from __future__ import annotations

from typing import Any

from tau2.domains.telecom.binding import surroundings_view
from tau2.domains.telecom.state import TelecomState


def dump_tau2_user_db(state: TelecomState) -> dict[str, Any]:
    """The phone and surroundings as a τ²-bench user database: the SIM as card state plus
    `sim_card_missing`, and the coupled surroundings fields as currently derived."""
    device = state.device.model_dump(mode="json")
    device["sim_card_missing"] = not device.pop("sim_card_inserted")
    return {"device": device, "surroundings": surroundings_view(state).model_dump(mode="json")}
