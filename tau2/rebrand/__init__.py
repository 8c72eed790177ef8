"""Renaming a domain consistently: identifiers, names, values and policy numbers of its data, tasks,
policy and documents (`tau2 rebrand`, and identifier renaming as a perturbation)."""

from tau2.rebrand._delta import Delta, ValueRule, load_delta
from tau2.rebrand._files import staged_directory
from tau2.rebrand._formats import IdFormat, prefix_of
from tau2.rebrand._kinds import stands_out
from tau2.rebrand._lockstep import RenamedTask, rename_task
from tau2.rebrand._rebrand import Rebrand, RenamedWorld, declaration_of, rebrand, rename_world
from tau2.rebrand._renaming import Renaming, build_renaming
from tau2.rebrand._start import RenamedStart, rename_identifiers
from tau2.rebrand._survivors import SurvivorSearch

__all__ = [
    "Delta",
    "IdFormat",
    "Rebrand",
    "RenamedStart",
    "RenamedTask",
    "RenamedWorld",
    "Renaming",
    "SurvivorSearch",
    "ValueRule",
    "build_renaming",
    "declaration_of",
    "load_delta",
    "prefix_of",
    "rebrand",
    "rename_identifiers",
    "rename_task",
    "rename_world",
    "staged_directory",
    "stands_out",
]
