"""The registry of perturbation kinds: the built-ins (`tool_faults`, `unreliable_user`,
`identifier_format`, `instruction_variant`), kinds registered in
code (`register_perturbation`), kinds other packages install as entry points `perturbation.NAME` of the
`tau2.plugins` group, and `module:attribute` references, found the one way tau2 finds plugins
(`tau2._registry`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from tau2._registry import Registry
from tau2.errors import UserInputError
from tau2.llm import ModelSpec
from tau2.perturbations._identifier_format import IdentifierFormatSettings, cannot_rename, identifier_format
from tau2.perturbations._instruction_variant import InstructionVariantSettings, instruction_variant
from tau2.perturbations._kind import PerturbationKind, PerturbationSettings, RecordedSettings
from tau2.perturbations._tool_faults import ToolFaultSettings, tool_faults
from tau2.perturbations._unreliable_user import UnreliableUserSettings, unreliable_user
from tau2.tasks import Domain


def _accept(name: str, target: object) -> PerturbationKind:
    if isinstance(target, PerturbationKind):
        return target if target.name == name else dataclasses.replace(target, name=name)
    raise UserInputError(f"perturbation {name!r} does not name a PerturbationKind")


def _unknown(name: str, names: list[str]) -> UserInputError:
    return UserInputError(f"unknown perturbation {name!r} (perturbations: {', '.join(names)})")


_KINDS: Registry[PerturbationKind] = Registry("perturbation", "perturbation", _accept, _unknown)


def register_perturbation(kind: PerturbationKind) -> PerturbationKind:
    """Make `kind` available by its name (a later registration of the same name replaces it)."""
    return _KINDS.register(kind.name, kind)


def get_perturbation(name: str) -> PerturbationKind:
    """The kind called `name` (registered, installed, or a `module:attribute` reference)."""
    return _KINDS.get(name)


def refuse_inapplicable(perturbations: Mapping[str, PerturbationSettings], domain: Domain[Any]) -> None:
    """A one-line `UserInputError` when a configured kind cannot perturb `domain`'s episodes with its
    settings (a renaming of a domain without identifiers), before any simulation runs."""
    for name, settings in perturbations.items():
        if isinstance(settings, RecordedSettings):
            continue  # a kind recorded by a reference nobody named: not imported to ask it
        kind = get_perturbation(name)
        reason = None if kind.refuses is None else kind.refuses(settings, domain)
        if reason is not None:
            raise UserInputError(f"perturbations.{name}: {reason}")


def perturbation_models(perturbations: Mapping[str, PerturbationSettings]) -> list[tuple[str, ModelSpec]]:
    """The models the configured kinds ask (a setting holding a `ModelSpec`, as the paraphrase's `model`),
    each with where it is set (`perturbations.instruction_variant.model`), so a run checks their keys
    before it starts as it checks the seats'."""
    found = []
    for name, settings in perturbations.items():
        if isinstance(settings, RecordedSettings):
            continue  # a kind recorded by a reference nobody named: not imported to read it
        for field, value in settings:
            if isinstance(value, ModelSpec):
                found.append((f"perturbations.{name}.{field}", value))
    return found


def available_perturbations() -> list[str]:
    """Every registered or installed kind's name, sorted."""
    return _KINDS.names()


register_perturbation(
    PerturbationKind(
        "tool_faults",
        ToolFaultSettings,
        tool_faults,
        "a tool call fails before it reaches the world, with a realistic error, at a rate",
    )
)
register_perturbation(
    PerturbationKind(
        "unreliable_user",
        UnreliableUserSettings,
        unreliable_user,
        "the customer's writes are dropped while it believes it acted; a fact of its brief is withheld",
    )
)
register_perturbation(
    PerturbationKind(
        "identifier_format",
        IdentifierFormatSettings,
        identifier_format,
        "the world's identifiers renamed by one bijection per simulation, the reference renamed alike",
        refuses=cannot_rename,
    )
)
register_perturbation(
    PerturbationKind(
        "instruction_variant",
        InstructionVariantSettings,
        instruction_variant,
        "the customer's brief told by a named variant: terse, verbose, facts out of order, one fact late",
    )
)
