"""The generation pipeline: compose, assign personas, select, sample and spread targets; then, a run of
drafts of one intent and size at a time, plan each composition once per target, verify and lint the plans,
and build a task per draft whose plan verified, handing each task on as it is built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tau2.errors import UserInputError
from tau2.generator.assign import Draft, assign_personas
from tau2.generator.compose import compose, is_transfer, offered_subtasks
from tau2.generator.lint import LintFinding, persona_conflicts
from tau2.generator.options import BASE_CATALOG, GeneratorOptions
from tau2.generator.sampling import capped_sample, select, stratified_sample
from tau2.generator.stream import Rejection, Tally, TaskStream, Verifier, collector_paused
from tau2.generator.targets import assign_targets
from tau2.generator.workflow import Workflow
from tau2.personas import Persona, PersonaError, load_personas
from tau2.tasks import (
    Catalog,
    CatalogExtension,
    CatalogSource,
    Domain,
    ExtensionRecord,
    LayeredCatalogSource,
    Task,
    extend_catalog,
    get_domain,
    load_catalog_extension,
)
from tau2.world import World


@dataclass(frozen=True, slots=True)
class Generation:
    """What a generation produced: verified tasks, rejections with reasons, and lint findings."""

    catalog_version: str
    options: GeneratorOptions
    """The options in effect: those given, with the transfer cap the extensions recommend filled in."""
    tasks: list[Task]
    rejected: list[Rejection]
    findings: list[LintFinding]
    domain: str
    """The domain the tasks name and run in."""
    extensions: tuple[ExtensionRecord, ...] = ()
    """The catalog extensions layered onto the domain's catalog, in order."""

    @property
    def tally(self) -> Tally:
        """The tasks counted per intent, and the transfers among them."""
        tally = Tally()
        for task in self.tasks:
            tally.add(task)
        return tally


def catalog_source(domain: Domain[Any]) -> CatalogSource:
    """The subtask catalog a domain registers."""
    source = domain.catalog
    if source is None:
        raise UserInputError(f"domain {domain.name!r} has no subtask catalog to generate tasks from")
    return source


def catalog_layers(domain: Domain[Any], source: CatalogSource, name: str) -> list[CatalogExtension]:
    """The extensions the domain's catalog called `name` layers onto its own (none for `base`)."""
    if name == BASE_CATALOG:
        return []
    layers = dict(source.catalog_layers()) if isinstance(source, LayeredCatalogSource) else {}
    if name not in layers:
        known = ", ".join([BASE_CATALOG, *layers])
        raise UserInputError(f"--catalog: domain {domain.name!r} has no catalog {name!r} (catalogs: {known})")
    return [load_catalog_extension(path, domain) for path in layers[name]]


def plan_drafts(catalog: Catalog, options: GeneratorOptions, personas: Sequence[Persona]) -> list[Draft]:
    """The drafts the options select from a catalog, in output order (before target assignment)."""
    check_names(catalog, options)
    intents = [intent for intent in catalog.intents if not options.intents or intent.name in options.intents]
    offered = offered_subtasks(catalog, options.include_optional)
    pools = [compose(intent, offered) for intent in intents]
    drafts = assign_personas(pools, personas, options.persona_assignment)
    drafts = select(drafts, options.exclude, options.min_subtasks, options.max_subtasks)
    if options.max_transfer_share is not None:
        transfer = partial(_holds_unfixable, catalog)
        return capped_sample(
            drafts, options.sample_per_bin, options.seed, transfer, options.max_transfer_share
        )
    if options.sample_per_bin is not None:
        drafts = stratified_sample(drafts, options.sample_per_bin, options.seed)
    return drafts


def _holds_unfixable(catalog: Catalog, draft: Draft) -> bool:
    return is_transfer(catalog, draft.composition)


def check_names(catalog: Catalog, options: GeneratorOptions) -> None:
    """Refuse intents and subtasks the catalog does not have, and optional names that are not optional."""
    intents = {intent.name for intent in catalog.intents}
    subtasks = {subtask.name: subtask for subtask in catalog.subtasks}
    for name in options.intents:
        if name not in intents:
            raise UserInputError(f"unknown intent {name!r} (known: {', '.join(sorted(intents))})")
    for name in options.exclude:
        if name not in subtasks:
            raise UserInputError(f"--exclude: unknown subtask {name!r}")
    optional = sorted(name for name, subtask in subtasks.items() if subtask.optional)
    for name in options.include_optional:
        if name not in optional:
            raise UserInputError(
                f"--include-optional: {name!r} is not an optional subtask (optional: {', '.join(optional)})"
            )


def generate(
    domain: Domain[Any],
    options: GeneratorOptions,
    data_dir: Path | None = None,
    lint: bool = True,
    extensions: Sequence[CatalogExtension] = (),
) -> Generation:
    """Generate, verify and (optionally) lint the tasks the options describe on the domain's data, from the
    catalog `options.catalog` names with `extensions` layered on top, holding every task in memory (see
    `generate_stream` for a generation written as it is verified)."""
    stream = generate_stream(domain, options, data_dir, lint, extensions)
    with collector_paused():  # collections would rescan every task held so far
        tasks = list(stream)
    return Generation(
        stream.catalog_version,
        stream.options,
        tasks,
        stream.rejected,
        stream.findings,
        stream.domain,
        stream.extensions,
    )


def generate_stream(
    domain: Domain[Any],
    options: GeneratorOptions,
    data_dir: Path | None = None,
    lint: bool = True,
    extensions: Sequence[CatalogExtension] = (),
) -> TaskStream:
    """Plan the generation `generate` makes: the catalogs are layered and the drafts selected now (bad
    options fail here, before anything is written); tasks are verified and built as the stream is read."""
    source = catalog_source(domain)
    layers = [*catalog_layers(domain, source, options.catalog), *extensions]
    options = with_recommended_cap(options, layers)
    domain = task_domain(domain, layers)
    catalogs = [
        extend_catalog(catalog, layers) for catalog in source.catalogs(World.create(domain, data_dir))
    ]
    if not catalogs:
        raise UserInputError(f"the {domain.name} data has no eligible target to plant faults on")
    reference = catalogs[0]
    if any(_structure(catalog) != _structure(reference) for catalog in catalogs[1:]):
        raise UserInputError(f"domain {domain.name!r} offers catalogs of different structure per target")
    personas = _personas(options.personas)
    drafts = plan_drafts(reference, options, personas)
    targets = assign_targets(drafts, catalogs, options.target, options.seed)
    return TaskStream(
        Verifier(domain, data_dir, source, _workflow(reference, layers), options.order, lint),
        list(zip(drafts, targets, strict=True)),
        persona_conflicts(personas) if lint else [],
        reference.version,
        options,
        tuple(layer.record for layer in layers),
    )


def task_domain(domain: Domain[Any], layers: Sequence[CatalogExtension]) -> Domain[Any]:
    """The domain the generated tasks run in: the one the layered extensions name (`runs_in`), else
    `domain`. Extensions naming different ones cannot be layered together."""
    named = {layer.content.runs_in: layer.origin for layer in layers if layer.content.runs_in is not None}
    if len(named) > 1:
        listed = ", ".join(f"{origin} runs in {name!r}" for name, origin in named.items())
        raise UserInputError(f"the catalog extensions run in different domains: {listed}")
    return get_domain(next(iter(named))) if named else domain


def with_recommended_cap(options: GeneratorOptions, layers: Sequence[CatalogExtension]) -> GeneratorOptions:
    """`options` with the strictest transfer cap the layered extensions recommend, unless one was given."""
    recommended = [
        layer.content.max_transfer_share for layer in layers if layer.content.max_transfer_share is not None
    ]
    if options.max_transfer_share is not None or not recommended:
        return options
    return options.model_copy(update={"max_transfer_share": min(recommended)})


def _workflow(catalog: Catalog, layers: Sequence[CatalogExtension]) -> Workflow:
    """The catalog's workflow graphs; a cycle is the extensions' fault when there are any."""
    try:
        return Workflow(catalog)
    except ValueError as error:
        if not layers:
            raise
        raise UserInputError(f"{', '.join(layer.origin for layer in layers)}: {error}") from None


def _personas(names: Sequence[str]) -> list[Persona]:
    """Load personas by name or path; a bad one is a user input error."""
    try:
        return load_personas(names)
    except PersonaError as error:
        raise UserInputError(str(error)) from None


def _structure(catalog: Catalog) -> tuple[object, ...]:
    """The parts of a catalog that must not depend on its target."""
    return (
        [
            (s.name, s.group, s.unfixable, s.optional, s.intents, [s.stage_of(step) for step in s.solution])
            for s in catalog.subtasks
        ],
        [
            (i.name, i.groups, i.prerequisites, i.min_own_subtasks, [call.name for call in i.setup])
            for i in catalog.intents
        ],
        catalog.groups,
        catalog.stages,
        catalog.fix_order,
        catalog.injection_order,
    )
