"""Composition, persona assignment, selection and stratified sampling on small catalogs."""

from __future__ import annotations

from collections.abc import Hashable
from math import prod

from generator_mock import mock_catalog
from hypothesis import given, settings
from hypothesis import strategies as st

from tau2.generator.assign import Draft, assign_personas
from tau2.generator.compose import Composition, compose, offered_subtasks
from tau2.generator.options import PersonaAssignment
from tau2.generator.sampling import bin_key, select, stratified_sample
from tau2.personas import load_personas
from tau2.tasks import AssertionCall, EnvCall, Intent, Subtask, Texts
from tau2.world import Side

PERSONAS = load_personas(["none", "easy", "hard"])
CHECK = AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True})
TEXTS = Texts(
    purpose="p", reason_for_call="r", known_info=None, task_instructions="t", ticket="k", transfer_summary="s"
)


def synthetic(sizes: list[int], prerequisites: int) -> tuple[Intent, list[Subtask]]:
    """An intent over groups g0, g1, … of `sizes` variants; the first `prerequisites` groups only assist."""
    groups = [f"g{index}" for index in range(len(sizes))]
    subtasks = [
        Subtask(
            name=f"g{index}_v{variant}",
            group=group,
            description="d",
            init=(EnvCall(side=Side.USER, name="x"),),
            unfixable=True,
        )
        for index, (group, size) in enumerate(zip(groups, sizes, strict=True))
        for variant in range(size)
    ]
    intent = Intent(
        name="synthetic",
        groups=tuple(groups),
        prerequisites=tuple(groups[:prerequisites]),
        success=(CHECK,),
        failure=(CHECK,),
        texts=TEXTS,
    )
    return intent, subtasks


@given(st.lists(st.integers(1, 3), min_size=1, max_size=5), st.data())
def test_compositions_take_at_most_one_subtask_per_group(sizes: list[int], data: st.DataObject) -> None:
    prerequisites = data.draw(st.integers(0, len(sizes) - 1))
    intent, subtasks = synthetic(sizes, prerequisites)
    group_of = {subtask.name: subtask.group for subtask in subtasks}
    compositions = compose(intent, subtasks)
    for composition in compositions:
        groups = [group_of[name] for name in composition.subtasks]
        assert len(groups) == len(set(groups))
        assert set(groups) - set(intent.prerequisites), "a composition needs a subtask of its own groups"
        assert groups == sorted(groups, key=intent.groups.index), "subtasks follow the intent's group order"
    own = prod(size + 1 for size in sizes[prerequisites:]) - 1
    assert (
        len(compositions) == len(set(compositions)) == prod(size + 1 for size in sizes[:prerequisites]) * own
    )


def test_product_order_offers_variants_before_none_and_varies_the_last_group_fastest() -> None:
    catalog = mock_catalog()
    names = [
        composition.subtasks for composition in compose(catalog.intent("dark_lamp"), list(catalog.subtasks))
    ]
    assert names[:4] == [
        ("unplugged", "switched_off", "power_cut"),
        ("unplugged", "switched_off", "grid_failure"),
        ("unplugged", "switched_off"),
        ("unplugged", "power_cut"),
    ]
    assert ("unplugged",) not in names, "plug is only a prerequisite"
    assert len(names) == 2 * 2 * 3 - 2


def test_optional_subtasks_are_offered_only_when_asked_for() -> None:
    catalog = mock_catalog()
    optional = catalog.subtask("grid_failure").model_copy(update={"optional": True})
    catalog = catalog.model_copy(update={"subtasks": (*catalog.subtasks[:3], optional)})
    assert "grid_failure" not in [subtask.name for subtask in offered_subtasks(catalog, ())]
    assert "grid_failure" in [subtask.name for subtask in offered_subtasks(catalog, ("grid_failure",))]


def test_rotate_cycles_personas_over_each_pool_sorted_by_size_and_cross_gives_every_persona() -> None:
    pool = [
        Composition("i", ("a", "b")),
        Composition("i", ("c",)),
        Composition("i", ("d", "e")),
        Composition("i", ("f",)),
    ]
    rotated = assign_personas([pool], PERSONAS, PersonaAssignment.ROTATE)
    assert [(draft.composition.subtasks, draft.persona.label) for draft in rotated] == [
        (("c",), "None"),
        (("f",), "Easy"),
        (("a", "b"), "Hard"),
        (("d", "e"), "None"),
    ]
    crossed = assign_personas([pool, pool[:1]], PERSONAS, PersonaAssignment.CROSS)
    assert len(crossed) == 5 * 3
    assert [draft.persona.label for draft in crossed[:3]] == ["None", "Easy", "Hard"]
    assert crossed[0].task_id == "[i]c[PERSONA:None]"


def test_task_ids_list_subtasks_in_code_point_order() -> None:
    assert Composition("mms_issue", ("data_mode_off", "bad_wifi_calling")).task_id("Easy") == (
        "[mms_issue]bad_wifi_calling|data_mode_off[PERSONA:Easy]"
    )


def drafts(count: int) -> list[Draft]:
    """Drafts of several intents and sizes, crossed with the three personas."""
    pools = [
        [Composition(intent, tuple(f"s{i}_{j}" for j in range(1 + i % 3))) for i in range(count)]
        for intent in ("alpha", "beta")
    ]
    return assign_personas(pools, PERSONAS, PersonaAssignment.CROSS)


def test_select_filters_by_size_and_excluded_subtask() -> None:
    pool = drafts(6)
    kept = select(pool, exclude={"s1_0"}, min_subtasks=2, max_subtasks=2)
    assert kept and all(draft.size == 2 and "s1_0" not in draft.composition.subtasks for draft in kept)


@settings(max_examples=30)
@given(st.integers(0, 2**32), st.integers(1, 4), st.integers(1, 12))
def test_stratified_sampling_takes_up_to_k_per_bin_in_first_appearance_order(
    seed: int, per_bin: int, count: int
) -> None:
    pool = drafts(count)
    sampled = stratified_sample(pool, per_bin, seed)
    assert sampled == stratified_sample(pool, per_bin, seed), "the same seed gives the same sample"
    assert len(set(sampled)) == len(sampled) and set(sampled) <= set(pool)
    bins: dict[Hashable, int] = {}
    for draft in pool:
        bins[bin_key(draft)] = bins.get(bin_key(draft), 0) + 1
    taken = [bin_key(draft) for draft in sampled]
    assert list(dict.fromkeys(taken)) == list(bins), "bins are drawn in first-appearance order"
    assert all(taken.count(key) == min(per_bin, size) for key, size in bins.items())
