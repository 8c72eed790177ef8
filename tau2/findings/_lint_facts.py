"""Lint checks that a task's texts state the facts its fix depends on: the facts a domain's subtask
catalog declares for each subtask (e.g. the refuel amount the customer accepts), looked for in the solo
ticket and in the customer's instructions."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from tau2.tasks import (
    Catalog,
    CatalogExtension,
    Fact,
    LayeredCatalogSource,
    Task,
    extend_catalog,
    get_domain,
    load_catalog_extension,
)
from tau2.world import World

TICKET_MISSING_FACT = "ticket_missing_fact"
SCENARIO_MISSING_FACT = "scenario_missing_fact"


def fact_findings(task: Task, data_dir: Path | None) -> dict[str, str]:
    """Check name → detail for the fact checks that fire: fixable tasks composed of subtasks the domain's
    catalog knows (a transfer task's fix is the transfer, which needs no fact)."""
    if not task.subtasks or task.evaluation.expects_transfer:
        return {}
    target = task.metadata.get("target")
    facts = _subtask_facts(task.domain, data_dir, target if isinstance(target, str) else None)
    needed = [(subtask, fact) for subtask in task.subtasks for fact in facts.get(subtask, ())]
    texts = {TICKET_MISSING_FACT: ("ticket", task.ticket)}
    texts[SCENARIO_MISSING_FACT] = (
        "customer's instructions",
        task.user_scenario.instruction_text(known_only=True),
    )
    found = {}
    for check, (where, text) in texts.items():
        if text is None:
            continue
        missing = [
            f"the {where} does not state {fact.key} ({fact.phrase!r}), which {subtask} needs"
            for subtask, fact in needed
            if not fact.stated_in(text)
        ]
        if missing:
            found[check] = "; ".join(missing)
    return found


@lru_cache(maxsize=32)
def _subtask_facts(
    domain_name: str, data_dir: Path | None, target: str | None
) -> dict[str, tuple[Fact, ...]]:
    """Subtask name → its facts, from the domain's catalog for `target` (its preferred target when the task
    names none) on a fresh world of the data, named catalog layers included; empty without a catalog."""
    catalogs = _catalogs(domain_name, data_dir)
    catalog = next((c for c in catalogs if c.target.key == target), catalogs[0] if catalogs else None)
    if catalog is None:
        return {}
    facts = {subtask.name: subtask.facts for subtask in catalog.subtasks}
    for layered in _layers(domain_name):
        for subtask in extend_catalog(catalog, layered).subtasks:
            facts.setdefault(subtask.name, subtask.facts)
    return facts


@lru_cache(maxsize=8)
def _catalogs(domain_name: str, data_dir: Path | None) -> tuple[Catalog, ...]:
    """The domain's catalogs on a fresh world of the data (none without a catalog), built once for all
    its targets."""
    domain = get_domain(domain_name)
    source = domain.catalog
    return () if source is None else tuple(source.catalogs(World.create(domain, data_dir)))


@lru_cache(maxsize=8)
def _layers(domain_name: str) -> tuple[list[CatalogExtension], ...]:
    """The extensions of each named catalog the domain's catalog source offers (e.g. telecom's `extended`),
    read once."""
    domain = get_domain(domain_name)
    source = domain.catalog
    if not isinstance(source, LayeredCatalogSource):
        return ()
    return tuple(
        [load_catalog_extension(path, domain) for path in paths] for paths in source.catalog_layers().values()
    )
