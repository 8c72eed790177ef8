"""Perturbations: controlled conditions a run's episodes play under — tool calls that fail, a customer who
says it acted without acting or forgets part of its brief — each a kind with its own settings, drawn per
simulation from the simulation's seed so arms of an experiment stay paired, applied at the episode's two
hooks (before it starts; at each tool call) and recorded with each simulation (`PerturbationRecord`).
Kinds are found the one way tau2 finds plugins (entry points `perturbation.NAME` of `tau2.plugins`)."""

from tau2.perturbations._check import check_perturbation
from tau2.perturbations._identifier_format import RENAMED_IDENTIFIERS
from tau2.perturbations._kind import (
    CallAttempt,
    EpisodePerturbation,
    EpisodeStart,
    Interception,
    PerturbationBuilder,
    PerturbationKind,
    PerturbationSettings,
    RecordedSettings,
    Step,
)
from tau2.perturbations._paraphrase import PARAPHRASE_PROMPT, paraphrase_brief
from tau2.perturbations._perturber import Perturber, perturbation_rng
from tau2.perturbations._record import PerturbationEvent, PerturbationRecord
from tau2.perturbations._registry import (
    available_perturbations,
    get_perturbation,
    perturbation_models,
    refuse_inapplicable,
    register_perturbation,
)
from tau2.perturbations._tool_faults import FAULT, FAULT_MESSAGES, ToolFaultSettings
from tau2.perturbations._unreliable_user import (
    DROPPED_CALL,
    WITHHELD_FACT,
    UnreliableUserSettings,
)

__all__ = [
    "DROPPED_CALL",
    "FAULT",
    "FAULT_MESSAGES",
    "PARAPHRASE_PROMPT",
    "RENAMED_IDENTIFIERS",
    "WITHHELD_FACT",
    "CallAttempt",
    "EpisodePerturbation",
    "EpisodeStart",
    "Interception",
    "PerturbationBuilder",
    "PerturbationEvent",
    "PerturbationKind",
    "PerturbationRecord",
    "PerturbationSettings",
    "Perturber",
    "RecordedSettings",
    "Step",
    "ToolFaultSettings",
    "UnreliableUserSettings",
    "available_perturbations",
    "check_perturbation",
    "get_perturbation",
    "paraphrase_brief",
    "perturbation_models",
    "perturbation_rng",
    "refuse_inapplicable",
    "register_perturbation",
]
