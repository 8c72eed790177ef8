"""Exact pool sizes of the telecom catalog with the τ²-compatible options (spec §9.6), and the whole pool
verifying."""

from __future__ import annotations

from collections import Counter

import pytest
from generator_support import TAU2_OPTIONS

from tau2.generator.assign import Draft
from tau2.generator.compose import is_transfer
from tau2.generator.pipeline import Generation, _personas, plan_drafts
from tau2.generator.sampling import select, stratified_sample
from tau2.tasks import Catalog

NO_REFUEL = "data_usage_exceeded_no_refuel"


@pytest.fixture(scope="module")
def pool(tau2_catalog: Catalog) -> list[Draft]:
    """The 3405 drafts of the τ²-compatible pool, in file order."""
    return plan_drafts(tau2_catalog, TAU2_OPTIONS, _personas(TAU2_OPTIONS.personas))


def intents(drafts: list[Draft]) -> dict[str, int]:
    return dict(Counter(draft.composition.intent for draft in drafts))


def test_pool_sizes(pool: list[Draft], tau2_catalog: Catalog) -> None:
    assert intents(pool) == {"mobile_data_issue": 382, "service_issue": 47, "mms_issue": 2976}
    assert len(pool) == 3405
    assert [draft.composition.intent for draft in pool[:1]] == ["mobile_data_issue"]
    assert sum(is_transfer(tau2_catalog, draft.composition) for draft in pool) == 1152
    assert sorted(Counter(draft.size for draft in pool).items()) == [
        (1, 21), (2, 115), (3, 356), (4, 699), (5, 898), (6, 759), (7, 410), (8, 129), (9, 18)
    ]  # fmt: skip
    assert Counter(draft.persona.label for draft in pool) == {"None": 1136, "Easy": 1135, "Hard": 1134}


def test_full_set_without_the_no_refuel_subtask(pool: list[Draft], tau2_catalog: Catalog) -> None:
    full = select(pool, {NO_REFUEL}, 1, None)
    assert intents(full) == {"mobile_data_issue": 254, "service_issue": 47, "mms_issue": 1984}
    assert sum(is_transfer(tau2_catalog, draft.composition) for draft in full) == 32
    assert sorted(Counter(draft.size for draft in full).items()) == [
        (1, 20), (2, 101), (3, 283), (4, 505), (5, 596), (6, 467), (7, 235), (8, 69), (9, 9)
    ]  # fmt: skip
    assert Counter(draft.persona.label for draft in full) == {"None": 769, "Easy": 760, "Hard": 756}


def test_single_subtask_sets_and_their_personas(pool: list[Draft]) -> None:
    small = select(pool, (), 1, 1)
    assert len(small) == 21
    assert len(select(small, {NO_REFUEL}, 1, 1)) == 20
    assert [draft.task_id for draft in small if draft.composition.intent == "service_issue"] == [
        "[service_issue]airplane_mode_on[PERSONA:None]",
        "[service_issue]unseat_sim_card[PERSONA:Easy]",
        "[service_issue]lock_sim_card_pin[PERSONA:Hard]",
        "[service_issue]break_apn_settings[PERSONA:None]",
        "[service_issue]overdue_bill_suspension[PERSONA:Easy]",
        "[service_issue]contract_end_suspension[PERSONA:Hard]",
    ]
    assert f"[mobile_data_issue]{NO_REFUEL}[PERSONA:Hard]" in [draft.task_id for draft in small]


def test_the_optional_puk_lock_adds_24_service_compositions(tau2_catalog: Catalog) -> None:
    options = TAU2_OPTIONS.model_copy(update={"include_optional": ("lock_sim_card_puk",)})
    drafts = plan_drafts(tau2_catalog, options, _personas(options.personas))
    assert intents(drafts) == {"mobile_data_issue": 382, "service_issue": 71, "mms_issue": 2976}


def test_the_reference_base_set_is_reproduced(pool: list[Draft], tau2_catalog: Catalog) -> None:
    """From the pool: at least 2 subtasks, 3 per bin with seed 42, then drop the no-refuel subtask."""
    sampled = stratified_sample(select(pool, (), 2, None), 3, 42)
    assert len(sampled) == 152
    base = select(sampled, {NO_REFUEL}, 1, None)
    assert intents(base) == {"mobile_data_issue": 36, "service_issue": 29, "mms_issue": 49}
    assert sum(is_transfer(tau2_catalog, draft.composition) for draft in base) == 20


def test_every_task_of_the_pool_verifies(tau2_pool: Generation) -> None:
    assert tau2_pool.rejected == []
    assert len(tau2_pool.tasks) == 3405
    assert sum(task.evaluation.expects_transfer for task in tau2_pool.tasks) == 1152
    assert len({task.id for task in tau2_pool.tasks}) == 3405
