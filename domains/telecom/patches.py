"""Task `initialization_data` patches: recursive merges into each side's database, then revalidation
(τ²-bench §10, Δ14: each side is patched separately)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tau2.domains.telecom.export import dump_tau2_user_db
from tau2.domains.telecom.loader import parse_crm, parse_user_db, settle
from tau2.domains.telecom.state import TelecomState

_AGENT_SOURCE = "initialization_data.agent_data"
_USER_SOURCE = "initialization_data.user_data"


def apply_patches(
    state: TelecomState, agent_data: Mapping[str, Any] | None, user_data: Mapping[str, Any] | None
) -> TelecomState:
    """The CRM patched with `agent_data` and the user database (τ²-bench format) with `user_data`, as a
    new state (`state` itself when both are empty).

    Dicts merge recursively; lists and scalars replace. The result is validated like a loaded file, so a
    bad patch raises a one-line `UserInputError` naming the side and the field.
    """
    if not agent_data and not user_data:
        return state
    if agent_data:
        crm = parse_crm(merge(state.crm.model_dump(mode="json"), agent_data), _AGENT_SOURCE)
    else:
        crm = state.crm.model_copy(deep=True)
    patched = TelecomState(
        crm=crm,
        device=state.device.model_copy(deep=True),
        surroundings=state.surroundings.model_copy(deep=True),
    )
    if user_data:
        device, surroundings = parse_user_db(merge(dump_tau2_user_db(patched), user_data), _USER_SOURCE)
        patched = TelecomState(crm=crm, device=device, surroundings=surroundings)
    settle(patched, _AGENT_SOURCE, _USER_SOURCE)
    return patched


def merge(base: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `patch` merged in: nested dicts merge, any other value replaces."""
    merged = dict(base)
    for key, value in patch.items():
        current = merged.get(key)
        if isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = merge(current, value)
        else:
            merged[key] = value
    return merged
