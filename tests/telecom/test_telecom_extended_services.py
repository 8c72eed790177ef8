"""The extended telecom domain (`telecom_extended`): the telecom tools plus the carrier's further services
(plan changes, autopay, device activation, SIM PIN entry, phone storage) and the env functions that add
lines, customers, bills and stored cards; the τ²-exact `telecom` domain offers none of it."""

from __future__ import annotations

import pytest
from telecom_support import TelecomData, customer, fails, holds, line, observe, ok

from tau2.domains.telecom import DOMAIN, EXTENDED_DOMAIN, ExtendedTelecomState
from tau2.domains.telecom.clock import TODAY
from tau2.errors import ErrorCode
from tau2.world import Side, World

NEW_AGENT_TOOLS = {"get_available_plans", "change_plan", "get_autopay", "set_autopay", "activate_device"}
NEW_USER_TOOLS = {"enter_sim_pin", "check_storage", "free_up_storage"}


@pytest.fixture
def world(dataset: TelecomData) -> World:
    """An extended world on the data set, bound to its subscriber's line."""
    world = World.create(EXTENDED_DOMAIN, dataset.directory)
    ok(world, "user", "set_user_info", **dataset.subscriber.user_info)
    return world


def services(world: World) -> ExtendedTelecomState:
    """The world's state with its concrete type."""
    assert isinstance(world.state, ExtendedTelecomState)
    return world.state


def test_the_extended_domain_adds_tools_that_the_telecom_domain_does_not_offer() -> None:
    for side, new in ((Side.AGENT, NEW_AGENT_TOOLS), (Side.USER, NEW_USER_TOOLS)):
        base = {tool.name for tool in DOMAIN.tools.tools(side)}
        extended = {tool.name for tool in EXTENDED_DOMAIN.tools.tools(side)}
        assert extended == base | new and not base & new
    for name in ("add_line", "add_customer", "add_bill", "fill_storage", "assert_line_plan"):
        assert DOMAIN.tools.env_function(Side.AGENT, name) is None
        assert DOMAIN.tools.env_function(Side.USER, name) is None


@pytest.mark.parametrize("solo", [False, True])
@pytest.mark.parametrize("variant", ["manual", "workflow"])
def test_the_extended_policy_is_the_telecom_policy_then_the_part_on_the_services(
    solo: bool, variant: str
) -> None:
    assert DOMAIN.policy is not None and EXTENDED_DOMAIN.policy is not None
    base, extended = DOMAIN.policy(solo, variant), EXTENDED_DOMAIN.policy(solo, variant)
    assert extended.startswith(base.rstrip()) and "Part B" not in base
    tail = extended[len(base.rstrip()) :]
    assert "# Part B: further services" in tail
    for name in NEW_AGENT_TOOLS:
        assert f"crm.{name}" in tail
    for name in NEW_USER_TOOLS:
        assert f"phone.{name}" in tail


def test_a_known_pin_unlocks_the_sim_and_wrong_ones_lead_to_a_puk_lock(world: World) -> None:
    ok(world, "user", "set_sim_pin", pin="4812")
    ok(world, "user", "lock_sim_card", mode="pin")
    assert holds(world, "user", "assert_service_status", expected_status="no_service")
    fails(world, "user", "enter_sim_pin", ErrorCode.INVALID_ARGUMENT, pin="12a4")
    wrong = ok(world, "user", "enter_sim_pin", pin="0000")
    assert wrong["message"] == "Wrong PIN. 2 attempts left." and wrong["sim_status"] == "locked_pin"
    right = ok(world, "user", "enter_sim_pin", pin="4812")
    assert right["sim_status"] == "active" and services(world).phone_services.sim_pin_attempts_left == 3
    assert holds(world, "user", "assert_service_status", expected_status="connected")
    fails(world, "user", "enter_sim_pin", ErrorCode.INVALID_STATE, pin="4812")
    ok(world, "user", "lock_sim_card", mode="pin")
    for _ in range(3):
        last = ok(world, "user", "enter_sim_pin", pin="1111")
    assert last["sim_status"] == "locked_puk" and "PUK" in last["message"]
    fails(world, "user", "enter_sim_pin", ErrorCode.INVALID_STATE, pin="4812")


def test_a_pin_nobody_knows_never_unlocks_the_sim(world: World) -> None:
    ok(world, "user", "lock_sim_card", mode="pin")
    assert ok(world, "user", "enter_sim_pin", pin="0000")["sim_status"] == "locked_pin"
    ok(world, "user", "unseat_sim_card")
    assert "missing" in fails(world, "user", "enter_sim_pin", ErrorCode.INVALID_STATE, pin="0000")


def test_full_storage_stops_mms_until_space_is_freed(world: World) -> None:
    assert "62% used" in ok(world, "user", "check_storage")
    ok(world, "user", "fill_storage")
    assert holds(world, "user", "assert_can_send_mms", expected_status=False)
    assert "no space left" in ok(world, "user", "check_storage")
    assert ok(world, "user", "free_up_storage")["changed"] is True
    assert holds(world, "user", "assert_can_send_mms", expected_status=True)
    assert ok(world, "user", "free_up_storage")["changed"] is False


def test_a_line_changes_plan_once_a_cycle(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    plans = ok(world, "agent", "get_available_plans")
    other = next(plan["plan_id"] for plan in plans if plan["plan_id"] != subscriber.plan_id)
    fails(
        world, "agent", "change_plan", ErrorCode.INVALID_STATE, **subscriber.ids, plan_id=subscriber.plan_id
    )
    fails(world, "agent", "change_plan", ErrorCode.NOT_FOUND, **subscriber.ids, plan_id="P0000")
    moved = ok(world, "agent", "change_plan", **subscriber.ids, plan_id=other)
    assert (
        moved["line"]["plan_id"] == other and line(world, subscriber.line_id).last_plan_change_date == TODAY
    )
    assert holds(world, "agent", "assert_line_plan", **subscriber.ids, expected_plan_id=other)
    message = fails(
        world, "agent", "change_plan", ErrorCode.INVALID_STATE, **subscriber.ids, plan_id=subscriber.plan_id
    )
    assert "already changed plan this billing cycle" in message


def test_a_plan_switched_by_mistake_records_no_change(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    other = next(
        plan["plan_id"]
        for plan in ok(world, "agent", "get_available_plans")
        if plan["plan_id"] != subscriber.plan_id
    )
    before = line(world, subscriber.line_id).last_plan_change_date
    ok(world, "agent", "set_line_plan", **subscriber.ids, plan_id=other)
    assert line(world, subscriber.line_id).last_plan_change_date == before
    ok(world, "agent", "change_plan", **subscriber.ids, plan_id=subscriber.plan_id)


def test_autopay_charges_only_a_stored_card_that_has_not_expired(world: World, dataset: TelecomData) -> None:
    customer_id = dataset.subscriber.customer_id
    assert ok(world, "agent", "get_autopay", customer_id=customer_id)["autopay_enabled"] is False
    assert holds(world, "agent", "assert_autopay_usable", customer_id=customer_id)
    card = {"customer_id": customer_id, "method_type": "Credit Card"}
    ok(world, "agent", "add_payment_method", **card, account_number_last_4="9051", expiration_date="11/2024")
    ok(world, "agent", "add_payment_method", **card, account_number_last_4="2286", expiration_date="02/2025")
    fails(
        world,
        "agent",
        "add_payment_method",
        ErrorCode.CONFLICT,
        **card,
        account_number_last_4="9051",
        expiration_date="01/2030",
    )
    fails(
        world,
        "agent",
        "add_payment_method",
        ErrorCode.INVALID_ARGUMENT,
        **card,
        account_number_last_4="12",
        expiration_date="01/2030",
    )
    ok(world, "agent", "configure_autopay", customer_id=customer_id, account_number_last_4="9051")
    verdict = observe(world, "agent", "assert_autopay_usable", customer_id=customer_id)
    assert not verdict.holds and verdict.observed == {"last_4": "9051", "expiration_date": "11/2024"}
    fails(
        world,
        "agent",
        "set_autopay",
        ErrorCode.INVALID_STATE,
        customer_id=customer_id,
        account_number_last_4="9051",
    )
    fails(
        world,
        "agent",
        "set_autopay",
        ErrorCode.NOT_FOUND,
        customer_id=customer_id,
        account_number_last_4="7777",
    )
    ok(world, "agent", "set_autopay", customer_id=customer_id, account_number_last_4="2286")
    shown = ok(world, "agent", "get_autopay", customer_id=customer_id)
    assert shown["autopay_enabled"] is True and shown["payment_method"]["account_number_last_4"] == "2286"
    assert holds(world, "agent", "assert_autopay_method", customer_id=customer_id, expected_last_4="2286")
    assert holds(world, "agent", "assert_autopay_usable", customer_id=customer_id), (
        "a card expiring this month"
    )


def test_a_deactivated_device_keeps_the_phone_off_the_network_until_activated_and_restarted(
    world: World, dataset: TelecomData
) -> None:
    subscriber = dataset.subscriber
    device_id = line(world, subscriber.line_id).device_id
    assert device_id is not None
    ok(
        world,
        "agent",
        "set_device_activation",
        customer_id=subscriber.customer_id,
        device_id=device_id,
        activated=False,
    )
    ok(world, "user", "simulate_network_search")
    assert holds(world, "user", "assert_service_status", expected_status="no_service")
    other = dataset.roaming_line
    fails(
        world,
        "agent",
        "activate_device",
        ErrorCode.NOT_OWNED,
        customer_id=other.customer_id,
        device_id=device_id,
    )
    ok(world, "agent", "activate_device", customer_id=subscriber.customer_id, device_id=device_id)
    assert holds(world, "user", "assert_service_status", expected_status="no_service"), "not until a restart"
    ok(world, "user", "reboot_device")
    assert holds(world, "user", "assert_service_status", expected_status="connected")
    fails(
        world,
        "agent",
        "activate_device",
        ErrorCode.INVALID_STATE,
        customer_id=subscriber.customer_id,
        device_id=device_id,
    )


def test_the_telecom_domain_ignores_device_activation_as_tau2_bench_does(dataset: TelecomData) -> None:
    world = World.create(DOMAIN, dataset.directory)
    ok(world, "user", "set_user_info", **dataset.subscriber.user_info)
    device_id = line(world, dataset.subscriber.line_id).device_id
    device = next(device for device in world.state.crm.devices if device.device_id == device_id)
    device.activated = False
    ok(world, "user", "simulate_network_search")
    assert holds(world, "user", "assert_service_status", expected_status="connected")


def test_added_lines_customers_and_bills_are_the_agents_to_find(world: World, dataset: TelecomData) -> None:
    subscriber = dataset.subscriber
    base = {"plan_id": subscriber.plan_id, "roaming_enabled": True, "contract_end_date": "2026-06-30"}
    ok(
        world,
        "agent",
        "add_line",
        customer_id=subscriber.customer_id,
        line_id="L9001",
        phone_number="555-999-0001",
        status="Suspended",
        **base,
    )
    assert line(world, "L9001").suspension_start_date == TODAY
    assert (
        ok(world, "agent", "get_customer_by_phone", phone_number="555-999-0001")["customer_id"]
        == subscriber.customer_id
    )
    fails(
        world,
        "agent",
        "add_line",
        ErrorCode.CONFLICT,
        customer_id=subscriber.customer_id,
        line_id="L9001",
        phone_number="555-999-0002",
        status="Active",
        **base,
    )
    fails(
        world,
        "agent",
        "add_line",
        ErrorCode.CONFLICT,
        customer_id=subscriber.customer_id,
        line_id="L9002",
        phone_number=subscriber.phone_number,
        status="Active",
        **base,
    )
    address = {"street": "1 Elm St", "city": "Salem", "state": "OR", "zip_code": "97301"}
    person = {"full_name": "Sam Vega", "email": "sam@example.com", "address": address}
    ok(
        world,
        "agent",
        "add_customer",
        customer_id="C9001",
        date_of_birth="1987-04-12",
        phone_number="555-999-0003",
        **person,
    )
    ok(
        world,
        "agent",
        "add_customer",
        customer_id="C9002",
        date_of_birth="1961-11-03",
        phone_number="555-999-0004",
        **person,
    )
    fails(
        world,
        "agent",
        "add_customer",
        ErrorCode.CONFLICT,
        customer_id="C9003",
        date_of_birth="1961-11-03",
        phone_number="555-999-0001",
        **person,
    )
    ok(
        world,
        "agent",
        "add_line",
        customer_id="C9001",
        line_id="L9003",
        phone_number="555-999-0003",
        status="Active",
        **base,
    )
    found = ok(world, "agent", "get_customer_by_name", full_name="sam vega", dob="1987-04-12")
    assert [record["customer_id"] for record in found] == ["C9001"]
    assert customer(world, "C9001").line_ids == ["L9003"]
    ok(
        world,
        "agent",
        "add_bill",
        customer_id="C9001",
        bill_id="B9001",
        months_ago=2,
        description="Plan",
        amount=30.0,
        status="Overdue",
    )
    assert holds(
        world, "agent", "assert_bill_status", customer_id="C9001", bill_id="B9001", expected_status="Overdue"
    )
    assert not holds(
        world,
        "agent",
        "assert_bill_status",
        customer_id=subscriber.customer_id,
        bill_id="B9001",
        expected_status="Overdue",
    )
    fails(
        world,
        "agent",
        "add_bill",
        ErrorCode.INVALID_ARGUMENT,
        customer_id="C9001",
        bill_id="B9002",
        months_ago=13,
        description="x",
        amount=1.0,
        status="Issued",
    )
    assert world.invariant_violations() == []


def test_a_lines_data_is_available_below_its_allowance(world: World, dataset: TelecomData) -> None:
    line_of = dataset.roaming_line
    limit = next(
        plan["data_limit_gb"]
        for plan in ok(world, "agent", "get_available_plans")
        if plan["plan_id"] == line(world, line_of.line_id).plan_id
    )
    ok(world, "agent", "set_data_usage", **line_of.ids, data_used_gb=limit + 0.1)
    verdict = observe(world, "agent", "assert_line_data_available", **line_of.ids, expected_status=False)
    assert verdict.holds and verdict.observed == {"used_gb": limit + 0.1, "allowance_gb": limit}
    ok(world, "agent", "refuel_data", **line_of.ids, gb_amount=2.0)
    assert holds(world, "agent", "assert_line_data_available", **line_of.ids, expected_status=True)


def test_patches_keep_the_services_state(dataset: TelecomData) -> None:
    world = World.create(EXTENDED_DOMAIN, dataset.directory)
    ok(world, "user", "fill_storage")
    assert EXTENDED_DOMAIN.patch_state is not None
    patched = EXTENDED_DOMAIN.patch_state(services(world), None, {"device": {"battery_level": 50}})
    assert isinstance(patched, ExtendedTelecomState)
    assert patched.phone_services.storage_full and patched.device.battery_level == 50
