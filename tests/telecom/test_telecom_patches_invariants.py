"""Task `initialization_data` patches and the invariant checker."""

from __future__ import annotations

import pytest
from telecom_support import TelecomData, bill, ok, state

from tau2.domains.telecom import (
    BillStatus,
    ConnectionStatus,
    SimCardStatus,
    TelecomState,
    VpnDetails,
    apply_patches,
    invariant_violations,
)
from tau2.domains.telecom.binding import line_active, surroundings_view
from tau2.domains.telecom.patches import merge
from tau2.errors import UserInputError
from tau2.tasks import EnvCall, Evaluation, InitialData, Task, TaskSetupError, UserScenario, initialize_world
from tau2.world import Side, World


def test_merge_recurses_into_dicts_and_replaces_everything_else() -> None:
    base = {"a": {"b": 1, "c": [1, 2]}, "d": 1}
    assert merge(base, {"a": {"c": [3]}, "e": {"f": 1}}) == {"a": {"b": 1, "c": [3]}, "d": 1, "e": {"f": 1}}
    assert merge(base, {"a": 5}) == {"a": 5, "d": 1}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": 1}, "the base is not modified"


def test_no_patch_returns_the_state_itself(world: World) -> None:
    assert apply_patches(state(world), None, {}) is state(world)


def test_each_side_is_patched_separately(world: World, dataset: TelecomData) -> None:
    before = state(world).model_copy(deep=True)
    plans = [plan.model_dump(mode="json") for plan in before.crm.plans]
    plans[1]["data_limit_gb"] = 1.0
    patched = apply_patches(
        before, {"plans": plans}, {"device": {"sim_card_status": "missing", "battery_level": 5}}
    )
    assert patched.crm.plans[1].data_limit_gb == 1.0 and len(patched.crm.lines) == dataset.record_counts[2]
    assert (patched.device.sim_card_inserted, patched.device.sim_card_status) == (False, SimCardStatus.ACTIVE)
    assert patched.device.battery_level == 5
    assert patched.surroundings.phone_number == dataset.subscriber.phone_number
    assert before == state(world), "the input state is not modified"
    assert invariant_violations(patched) == []


def test_user_patch_of_a_bound_world_keeps_coupling(world: World, dataset: TelecomData) -> None:
    subscriber, issued = dataset.subscriber, dataset.subscriber.issued_bill.bill_id
    ok(world, "agent", "send_payment_request", customer_id=subscriber.customer_id, bill_id=issued)
    patched = apply_patches(state(world), None, {"surroundings": {"line_active": False, "is_abroad": True}})
    assert line_active(patched) and patched.surroundings.is_abroad
    assert bill(patched, issued).status == BillStatus.AWAITING_PAYMENT
    paid = apply_patches(state(world), None, {"surroundings": {"payment_request": {"paid": True}}})
    assert bill(paid, issued).status == BillStatus.PAID


def test_agent_only_patch_copies_the_phone(world: World) -> None:
    patched = apply_patches(
        state(world), {"plans": [plan.model_dump() for plan in state(world).crm.plans]}, None
    )
    assert patched == state(world) and patched.device is not state(world).device


@pytest.mark.parametrize(
    ("agent_data", "user_data", "message"),
    [
        (
            {"lines": [{"line_id": "L1"}]},
            None,
            "initialization_data.agent_data: lines[0].phone_number: Field required",
        ),
        ({"plans": []}, None, "initialization_data.agent_data: lines[0].plan_id: no plan '{first_plan}'"),
        (
            None,
            {"device": {"wifi": True}},
            "initialization_data.user_data: device.wifi: Extra inputs are not permitted",
        ),
        (
            None,
            {"surroundings": {"phone_number": "1"}},
            "initialization_data.user_data: surroundings.phone_number: no line",
        ),
    ],
)
def test_bad_patches_give_one_line_errors(
    world: World, agent_data: dict[str, object] | None, user_data: dict[str, object] | None, message: str
) -> None:
    with pytest.raises(UserInputError) as raised:
        apply_patches(state(world), agent_data, user_data)
    message = message.format(first_plan=state(world).crm.lines[0].plan_id)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_invariants_catch_broken_crm(world: World) -> None:
    crm = state(world).crm
    first = crm.customers[0]
    assert [record.bill_id for record in crm.bills[:3]] == first.bill_ids[:3], (
        "the data set lists bills by owner"
    )
    line_count, bill_count, line_total = len(first.line_ids), len(first.bill_ids), len(crm.lines)
    duplicated, foreign_bill = crm.lines[0].line_id, crm.customers[1].bill_ids[0]
    crm.lines.append(crm.lines[0].model_copy())
    crm.lines[0].device_id = "D404"
    first.line_ids.append("L404")
    first.bill_ids.append(foreign_bill)
    crm.bills[0].status = crm.bills[1].status = BillStatus.AWAITING_PAYMENT
    crm.bills[2].customer_id = "C404"
    assert invariant_violations(state(world)) == [
        f"crm.lines[{line_total}].line_id: duplicate ID '{duplicated}'",
        "crm.lines[0].device_id: no device 'D404'",
        "crm.bills[2].customer_id: customer 'C404' does not list this bill",
        f"crm.customers[0].line_ids[{line_count}]: no line 'L404'",
        f"crm.customers[0].bill_ids[2]: no bill '{first.bill_ids[2]}' of this customer",
        f"crm.customers[0].bill_ids[{bill_count}]: no bill '{foreign_bill}' of this customer",
        "crm.customers[0].bill_ids: 2 bills are Awaiting Payment (at most one allowed)",
    ]


def test_invariants_catch_broken_device() -> None:
    broken = TelecomState()
    device = broken.device
    device.vpn_details = VpnDetails()
    device.wifi_connected = True
    device.network_connection_status = ConnectionStatus.SEARCHING
    device.battery_level = 120
    assert [problem.split(":")[0] for problem in invariant_violations(broken)] == [
        "device.vpn_details",
        "device.wifi_connected",
        "device.network_connection_status",
        "device.battery_level",
    ]


def test_invariants_catch_stored_coupled_values_while_bound(world: World) -> None:
    state(world).surroundings.line_active = False
    assert invariant_violations(state(world)) == [
        "surroundings.line_active: stored value must stay at its default while bound"
    ]
    state(world).surroundings.line_active = True
    state(world).surroundings.phone_number = "555-000-0000"
    assert invariant_violations(state(world)) == [
        "surroundings.phone_number: no line has the number '555-000-0000'"
    ]


def test_derived_view_matches_the_crm_after_changes(world: World, dataset: TelecomData) -> None:
    subscriber, paid = dataset.subscriber, dataset.subscriber.paid_bill.bill_id
    ok(world, "agent", "set_data_usage", data_used_gb=2 * subscriber.data_limit_gb, **subscriber.ids)
    ok(world, "agent", "suspend_line", reason="x", **subscriber.ids)
    ok(world, "agent", "send_payment_request", customer_id=subscriber.customer_id, bill_id=paid)
    assert invariant_violations(state(world)) == []
    view = surroundings_view(state(world))
    assert (view.line_active, view.mobile_data_usage_exceeded, view.roaming_allowed) == (False, True, True)
    assert view.payment_request is not None
    assert (view.payment_request.bill_id, view.payment_request.paid) == (paid, False)


def test_initial_data_reaches_the_world_through_initialize_world() -> None:
    task = Task(
        id="patched",
        domain="telecom",
        user_scenario=UserScenario(instructions="Your phone has a low battery."),
        initial_data=InitialData(user_data={"device": {"battery_level": 7}}),
        initialization=[EnvCall(side=Side.USER, name="turn_airplane_mode_on")],
        evaluation=Evaluation(assertions=[]),
    )
    world = initialize_world(task)
    patched = state(world)
    assert patched.device.battery_level == 7 and patched.device.airplane_mode
    assert invariant_violations(patched) == []


def test_initial_data_is_refused_by_a_domain_without_a_patch_hook() -> None:
    task = Task(
        id="mock_patched",
        domain="mock",
        user_scenario=UserScenario(instructions="Your lamp is dark."),
        initial_data=InitialData(agent_data={"account": {"powered": True}}),
        evaluation=Evaluation(assertions=[]),
    )
    with pytest.raises(TaskSetupError, match="domain 'mock' does not support initial data patches"):
        initialize_world(task)
