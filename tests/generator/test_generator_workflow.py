"""Ordering: `tau2` reproduces τ²-bench's name order; `workflow` respects both precedence graphs."""

from __future__ import annotations

import networkx as nx
from generator_mock import mock_catalog
from generator_support import TAU2_OPTIONS

from tau2.generator.options import Order
from tau2.generator.pipeline import _personas, plan_drafts
from tau2.generator.workflow import Arrangement, Workflow
from tau2.tasks import Catalog, Precedence, Step, Subtask


def arrangements(catalog: Catalog, order: Order) -> list[tuple[list[Subtask], Arrangement]]:
    """Every composition of the pool with its arrangement under `order`."""
    workflow = Workflow(catalog)
    drafts = plan_drafts(catalog, TAU2_OPTIONS, _personas(["none"]))
    chosen = [[catalog.subtask(name) for name in draft.composition.subtasks] for draft in drafts]
    return [(subtasks, workflow.arrange(subtasks, order)) for subtasks in chosen]


def stages(subtasks: list[Subtask], steps: tuple[Step, ...]) -> list[str]:
    """The stage of each arranged step (steps are the subtasks' own objects)."""
    stage_of = {id(step): subtask.stage_of(step) for subtask in subtasks for step in subtask.solution}
    return [stage_of[id(step)] for step in steps]


def test_tau2_order_sorts_subtasks_by_name_and_concatenates_their_solutions(
    own_catalogs: list[Catalog],
) -> None:
    for subtasks, arrangement in arrangements(own_catalogs[0], Order.TAU2):
        by_name = sorted(subtasks, key=lambda subtask: subtask.name)
        assert list(arrangement.init) == by_name
        assert list(arrangement.steps) == [step for subtask in by_name for step in subtask.solution]


def test_workflow_order_respects_both_graphs(own_catalogs: list[Catalog]) -> None:
    catalog = own_catalogs[0]
    workflow = Workflow(catalog)
    fixes = nx.transitive_closure_dag(workflow.fix_graph)
    injections = nx.transitive_closure_dag(workflow.injection_graph)
    for subtasks, arrangement in arrangements(catalog, Order.WORKFLOW):
        groups = [subtask.group for subtask in arrangement.init]
        assert sorted(arrangement.init, key=lambda s: s.name) == sorted(subtasks, key=lambda s: s.name)
        for index, later in enumerate(groups):
            assert not any(injections.has_edge(later, earlier) for earlier in groups[:index])
        order = stages(subtasks, arrangement.steps)
        for index, later in enumerate(order):
            assert not any(fixes.has_edge(later, earlier) for earlier in order[:index])
        for subtask in subtasks:  # each subtask's own steps keep their order
            own = [step for step in arrangement.steps if any(step is mine for mine in subtask.solution)]
            assert own == [step for step in subtask.solution if any(step is kept for kept in own)]


def test_a_shared_reboot_is_performed_once_after_the_line_is_resumed(own_catalogs: list[Catalog]) -> None:
    catalog = own_catalogs[0]
    subtasks = [catalog.subtask(name) for name in ("overdue_bill_suspension", "break_apn_settings")]
    names = [step.name for step in Workflow(catalog).arrange(subtasks, Order.WORKFLOW).steps]
    assert names == [
        "reset_apn_settings",
        "send_payment_request",
        "make_payment",
        "resume_line",
        "reboot_device",
    ]
    tau2 = [step.name for step in Workflow(catalog).arrange(subtasks, Order.TAU2).steps]
    assert tau2.count("reboot_device") == 2


def test_airplane_mode_is_planted_before_the_vpn(own_catalogs: list[Catalog]) -> None:
    catalog = own_catalogs[0]
    assert catalog.injection_order[0].before == "airplane" and catalog.injection_order[0].after == "vpn"
    subtasks = [catalog.subtask("bad_vpn"), catalog.subtask("airplane_mode_on")]
    assert [s.name for s in Workflow(catalog).arrange(subtasks, Order.WORKFLOW).init] == [
        "airplane_mode_on",
        "bad_vpn",
    ]


def test_a_declared_precedence_overrides_declaration_order() -> None:
    catalog = mock_catalog()
    subtasks = [catalog.subtask(name) for name in ("unplugged", "switched_off", "power_cut")]
    arrangement = Workflow(catalog).arrange(subtasks, Order.WORKFLOW)
    # stages plug, switch, power with power -> plug: switch and power are free, switch is declared first
    assert [step.name for step in arrangement.steps] == ["flip_switch", "enable_power", "plug_in"]
    assert [subtask.name for subtask in arrangement.init] == ["unplugged", "switched_off", "power_cut"]


def test_a_declared_injection_precedence_overrides_declaration_order() -> None:
    catalog = mock_catalog().model_copy(
        update={"injection_order": (Precedence(before="power", after="plug", reason="cut power first"),)}
    )
    subtasks = [catalog.subtask(name) for name in ("unplugged", "power_cut")]
    assert [subtask.name for subtask in Workflow(catalog).arrange(subtasks, Order.WORKFLOW).init] == [
        "power_cut",
        "unplugged",
    ]
    plain = Workflow(mock_catalog()).arrange(subtasks, Order.WORKFLOW).init
    assert [subtask.name for subtask in plain] == ["unplugged", "power_cut"]
