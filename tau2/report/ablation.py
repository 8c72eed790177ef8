"""Whether two arms can differ at all: the settings their configurations differ in, and whether every one of
them is ignored by whatever would read it (a persona the scripted user never reads, a user model in solo
mode, the concurrency). Such a comparison can only show noise, and the report says so instead of presenting
its figures as a finding."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from tau2.config import EXECUTION_SETTINGS, RunConfig
from tau2.episode import Mode
from tau2.world import Side

EXECUTION: Final = frozenset(EXECUTION_SETTINGS)
"""Settings that change how simulations are run, never what an episode does."""
COST_ONLY: Final = frozenset({"judge_always"})
"""Settings that change which judge calls are paid for, never a reward."""

SEAT_SETTINGS: Final = {"persona": Side.USER, "policy_variant": Side.AGENT, "oracle_plan": Side.AGENT}
"""Run settings that reach one seat only, through its context: the persona the customer plays, the policy
text and the reference plan the agent reads. Every other run setting shapes the episode itself (mode,
limits, judge, retrieval, which also sets up the world) and so can always change an outcome."""

SPEC_SETTINGS: Final = ("kind", "model", "text_tool_calls")
"""A seat's own settings, compared one by one (`agent.kind`, `user.model`, …)."""

KIND_READS: Final[dict[str, frozenset[str]]] = {
    "oracle": frozenset(),
    "null": frozenset(),
    "transfer": frozenset(),
    "scripted": frozenset(),
    "llm": frozenset({"model", "text_tool_calls", "persona", "policy_variant", "oracle_plan"}),
}
"""What each built-in kind reads of the settings that reach its seat alone. The offline kinds follow the
task's reference solution (oracle), do nothing (null), hand over at once (transfer) or do what the request
format asks (scripted), so they read none; a model kind reads them all. A kind not listed here (a person,
an installed kind) is taken to read everything, so no comparison involving it is called empty."""


class Ablation(BaseModel):
    """What two arms' configurations differ in, and whether that can change an outcome."""

    model_config = ConfigDict(frozen=True)

    settings: list[str]
    """The differing settings (`persona`, `agent.kind`, `user.model`, …), in the configuration's order."""
    comparable: bool
    """Whether some differing setting is read by the episode or by a seat's actor."""
    reason: str | None
    """Why the comparison cannot show a difference, when it cannot."""


def ablation(baseline: RunConfig, arm: RunConfig) -> Ablation:
    """Compare two arms' configurations setting by setting and decide whether any difference is read."""
    flat_a, flat_b = _settings(baseline), _settings(arm)
    names = dict.fromkeys([*flat_a, *flat_b])  # a setting at its default may be left out of one dump
    differing = [name for name in names if flat_a.get(name) != flat_b.get(name)]
    if not differing:
        reason = "the arms have the same configuration: any difference between them is noise"
        return Ablation(settings=[], comparable=False, reason=reason)
    why = {name: _ignored_because(name, baseline, arm) for name in differing}
    if any(because is None for because in why.values()):
        return Ablation(settings=differing, comparable=True, reason=None)
    grouped: dict[str, list[str]] = {}
    for name, because in why.items():
        grouped.setdefault(str(because), []).append(name)
    parts = [f"{_listed(names)}, {because}" for because, names in grouped.items()]
    reason = f"the arms differ only in {'; and in '.join(parts)}: this comparison cannot show a difference"
    return Ablation(settings=differing, comparable=False, reason=reason)


def _settings(config: RunConfig) -> dict[str, Any]:
    """Every setting as a comparable value, each seat's spec split into its own settings."""
    data = config.model_dump(mode="json")
    flat: dict[str, Any] = {}
    for name, value in data.items():
        if name in (Side.AGENT.value, Side.USER.value):
            flat.update((f"{name}.{field}", value.get(field)) for field in SPEC_SETTINGS)
        else:
            flat[name] = value
    flat.setdefault("retrieval", None)  # left out of a dump while unset
    return flat


def _ignored_because(name: str, a: RunConfig, b: RunConfig) -> str | None:
    """Why neither arm reads setting `name` (a clause to follow its name), or None when one may."""
    if name in EXECUTION:
        return "which changes how simulations are run, not what they do"
    if name in COST_ONLY:
        return "which changes what judging costs, never a reward"
    seat_name, _, field = name.partition(".")
    if field and seat_name in (Side.AGENT.value, Side.USER.value):
        seat, setting = Side(seat_name), field
    elif name in SEAT_SETTINGS:
        seat, setting = SEAT_SETTINGS[name], name
    else:
        return None
    if seat is Side.USER and a.mode is Mode.SOLO and b.mode is Mode.SOLO:
        return "which solo mode ignores (it has no user seat)"
    if setting == "kind":
        return None
    kinds = {getattr(a, seat.value).kind, getattr(b, seat.value).kind}
    if any(setting in KIND_READS.get(kind, frozenset({setting})) for kind in kinds):
        return None
    actors = " and ".join(f"the {kind} {seat.value}" for kind in sorted(kinds))
    return f"which {actors} {'ignores' if len(kinds) == 1 else 'ignore'}"


def _listed(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
