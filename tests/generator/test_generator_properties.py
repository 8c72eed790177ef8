"""Properties over random inputs: any valid telecom composition verifies on any eligible target in either
order; the same seed gives the same suite bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tau2.generator.build import Plan
from tau2.generator.compose import Composition
from tau2.generator.export import make_suite
from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment, TargetMode
from tau2.generator.pipeline import generate
from tau2.generator.replay import verify_plans
from tau2.generator.workflow import Workflow
from tau2.tasks import Catalog, Domain, Subtask
from tau2.world import World


@st.composite
def compositions(draw: st.DrawFn, catalog: Catalog) -> Composition:
    """A valid composition of a random intent: per group a random variant or none, in group order."""
    intent = draw(st.sampled_from(catalog.intents))
    while True:
        picked: list[Subtask] = []
        for group in intent.groups:
            options: list[Subtask | None] = [*catalog.variants(group), None]
            choice = draw(st.sampled_from(options))
            if choice is not None:
                picked.append(choice)
        if picked and intent.is_valid({subtask.group for subtask in picked}):
            return Composition(intent.name, tuple(subtask.name for subtask in picked))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_valid_composition_verifies(
    telecom: Domain, own_catalogs: list[Catalog], data: st.DataObject
) -> None:
    catalog = data.draw(st.sampled_from(own_catalogs))
    composition = data.draw(compositions(catalog))
    order = data.draw(st.sampled_from(list(Order)))
    subtasks = [catalog.subtask(name) for name in composition.subtasks]
    plan = Plan(
        catalog,
        catalog.intent(composition.intent),
        composition,
        Workflow(catalog).arrange(subtasks, order),
    )
    [(_, outcome)] = verify_plans(World.create(telecom), [plan], lambda world: {}, lint=True)
    assert outcome.problem is None
    assert outcome.redundant == () or order is Order.TAU2


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31))
def test_the_same_seed_gives_the_same_suite_bytes(telecom: Domain, seed: int) -> None:
    options = GeneratorOptions(
        persona_assignment=PersonaAssignment.CROSS,
        min_subtasks=2,
        max_subtasks=3,
        sample_per_bin=2,
        seed=seed,
        target=TargetMode.SPREAD,
    )
    first = make_suite("s", "telecom", generate(telecom, options, lint=False), None).to_json()
    second = make_suite("s", "telecom", generate(telecom, options, lint=False), None).to_json()
    assert first == second
