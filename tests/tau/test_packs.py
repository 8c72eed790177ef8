"""The airline and retail packs: registered through the entry point, sound by the domain checker, single
control (agent tools only), loaders with one-line errors, and copy-on-write worlds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2 import (
    EpisodeConfig,
    Side,
    UserInputError,
    World,
    available_domains,
    check_domain,
    get_domain,
    load_task_file,
)
from tau2.cli import app
from tau2.domains.tau_common.files import canonical_hash, read_policy
from tau2.episode import seat_contexts
from tau2.runner import sha256_text
from tau2.tau2bench import load_split

AIRLINE_TOOLS = {
    "book_reservation": "write",
    "calculate": "generic",
    "cancel_reservation": "write",
    "get_reservation_details": "read",
    "get_user_details": "read",
    "list_all_airports": "read",
    "search_direct_flight": "read",
    "search_onestop_flight": "read",
    "send_certificate": "write",
    "transfer_to_human_agents": "generic",
    "update_reservation_baggages": "write",
    "update_reservation_flights": "write",
    "update_reservation_passengers": "write",
    "get_flight_status": "read",
}
RETAIL_TOOLS = {
    "calculate": "generic",
    "cancel_pending_order": "write",
    "exchange_delivered_order_items": "write",
    "find_user_id_by_name_zip": "read",
    "find_user_id_by_email": "read",
    "get_order_details": "read",
    "get_product_details": "read",
    "get_item_details": "read",
    "get_user_details": "read",
    "list_all_product_types": "read",
    "modify_pending_order_address": "write",
    "modify_pending_order_items": "write",
    "modify_pending_order_payment": "write",
    "modify_user_address": "write",
    "return_delivered_order_items": "write",
    "transfer_to_human_agents": "generic",
}


@pytest.mark.parametrize(("name", "tools"), [("airline", AIRLINE_TOOLS), ("retail", RETAIL_TOOLS)])
def test_pack_has_exactly_the_agent_tools_and_no_user_tools(name: str, tools: dict[str, str]) -> None:
    domain = get_domain(name)
    assert name in available_domains()
    assert {tool.name: tool.kind.value for tool in domain.tools.tools(Side.AGENT)} == tools
    assert domain.tools.tools(Side.USER) == []
    assert domain.single_control
    assert domain.transfer_tool == "transfer_to_human_agents"
    assert check_domain(domain) == []


@pytest.mark.parametrize("name", ["airline", "retail"])
def test_worlds_share_records_until_a_write_replaces_one(name: str) -> None:
    domain = get_domain(name)
    first, second = World.create(domain), World.create(domain)
    assert first.state == second.state
    before = canonical_hash(second.state)
    for users_a, users_b in [(first.state.users, second.state.users)]:
        user_id = next(iter(users_a))
        assert users_a[user_id] is users_b[user_id]
    task = json.loads((domain.default_suite).read_text())[0]
    for action in task["evaluation_criteria"]["actions"]:
        assert first.call(Side.AGENT, action["name"], action["arguments"]).ok
    assert first.state != second.state
    assert canonical_hash(second.state) == before == canonical_hash(World.create(domain).state)


def test_airline_writes_fail_atomically_with_the_reference_texts() -> None:
    world = World.create(get_domain("airline"))
    before = canonical_hash(world.state)
    booking = {
        "user_id": "mei_tanaka_1003",
        "origin": "SEA",
        "destination": "SFO",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT909", "date": "2024-05-22"}],
        "passengers": [{"first_name": "Mei", "last_name": "Tanaka", "dob": "1976-01-15"}],
        "payment_methods": [{"payment_id": "credit_card_5300001", "amount": 150}],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    result = world.call(Side.AGENT, "book_reservation", booking)
    assert result.error is not None
    assert result.error.message == "Payment amount does not add up, total price is 157, but paid 150"
    landed = {**booking, "flights": [{"flight_number": "HAT909", "date": "2024-05-12"}]}
    result = world.call(Side.AGENT, "book_reservation", landed)
    assert result.error is not None
    assert result.error.message == "Flight HAT909 not available on date 2024-05-12"
    result = world.call(Side.AGENT, "update_reservation_baggages", {
        "reservation_id": "ZP3LQ8", "total_baggages": 3, "nonfree_baggages": 2,
        "payment_id": "certificate_5200002",
    })  # fmt: skip
    assert result.error is not None
    assert result.error.message == "Certificate cannot be used to update reservation"
    assert canonical_hash(world.state) == before
    booked = world.call(Side.AGENT, "book_reservation", {**booking, "payment_methods": [
        {"payment_id": "credit_card_5300001", "amount": 157}]})  # fmt: skip
    assert booked.ok and booked.content["reservation_id"] == "HATHAT"
    seats = world.state.flights["HAT909"].dates["2024-05-22"]
    assert seats.model_dump()["available_seats"]["economy"] == 5


def test_retail_items_change_copies_the_last_variant_onto_every_changed_item() -> None:
    world = World.create(get_domain("retail"))
    result = world.call(Side.AGENT, "modify_pending_order_items", {
        "order_id": "#W8100005", "item_ids": ["7200002466", "7200000274"],
        "new_item_ids": ["7200002603", "7200000548"], "payment_method_id": "gift_card_6300001",
    })  # fmt: skip
    assert result.ok
    items = {item["item_id"]: item for item in result.content["items"]}
    assert items["7200002603"]["price"] == items["7200000548"]["price"] == 58.9
    assert result.content["payment_history"][-1]["amount"] == pytest.approx(24.4)
    assert world.state.users["chloe_park_2003"].payment_methods["gift_card_6300001"].model_dump()[
        "balance"
    ] == round(150.0 - (82.6 - 82.6 + 58.9 - 34.5), 2)


@pytest.mark.parametrize("name", ["airline", "retail"])
def test_loader_errors_are_one_line_naming_file_and_field(name: str, tmp_path: Path) -> None:
    domain = get_domain(name)
    data = json.loads((domain.default_suite.parent / "db.json").read_text())
    (tmp_path / "db.json").write_text(json.dumps({**data, "planes": {}}))
    with pytest.raises(UserInputError, match=r"db\.json: planes: Extra inputs are not permitted"):
        domain.load_state(tmp_path)
    first_key = next(iter(data["users"]))
    data["users"][first_key]["payment_methods"] = "none"
    (tmp_path / "db.json").write_text(json.dumps(data))
    with pytest.raises(UserInputError) as error:
        domain.load_state(tmp_path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{tmp_path / 'db.json'}: users.{first_key}.payment_methods: ")
    (tmp_path / "db.json").write_text("{")
    with pytest.raises(UserInputError, match=r"db\.json: invalid JSON at line 1"):
        domain.load_state(tmp_path)


def test_policy_and_split_files_are_checked(tmp_path: Path) -> None:
    (tmp_path / "policy.md").write_text("  \n")
    with pytest.raises(UserInputError, match=r"policy\.md: the policy is empty"):
        read_policy(tmp_path)
    (tmp_path / "split_tasks.json").write_text(json.dumps({"base": ["0", 1]}))
    with pytest.raises(UserInputError, match=r"split_tasks\.json: base\[1\]: Input should be a valid string"):
        load_split(tmp_path / "tasks.json", "base")
    own = get_domain("airline").default_suite
    assert load_split(own, "base") == [task["id"] for task in json.loads(own.read_text())]
    with pytest.raises(UserInputError, match=r"no split 'dev' \(available: base, train, test\)"):
        load_split(own, "dev")


def test_run_takes_a_split_of_the_task_file(tmp_path: Path) -> None:
    suite = get_domain("retail").default_suite
    runner = CliRunner()
    args = ["run", "--suite", str(suite), "--agent", "oracle", "--user", "scripted", "-q"]
    outcome = runner.invoke(app, [*args, "--split", "test", "--out", str(tmp_path / "a")])
    assert outcome.exit_code == 0, outcome.output
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["task_ids"] == load_split(suite, "test")
    outcome = runner.invoke(app, [*args, "--split", "test", "--task-ids", "x", "--out", str(tmp_path / "b")])
    assert outcome.exit_code == 2 and "give one of them" in outcome.output


def test_agent_reads_the_policy_the_data_directory_ships(tmp_path: Path) -> None:
    domain = get_domain("airline")
    own = domain.default_suite.parent
    data = tmp_path / "data"
    data.mkdir()
    (data / "db.json").write_bytes((own / "db.json").read_bytes())
    (data / "policy.md").write_text("Shipped rules.\n")
    task = load_task_file(domain.default_suite)[0]
    assert (
        seat_contexts(task, domain, EpisodeConfig(), data_dir=data)[Side.AGENT].policy == "Shipped rules.\n"
    )
    assert seat_contexts(task, domain, EpisodeConfig())[Side.AGENT].policy == (own / "policy.md").read_text()
    runner = CliRunner()
    args = ["run", "--domain", "airline", "--agent", "oracle", "--user", "scripted", "-q"]
    assert runner.invoke(app, [*args, "--data-dir", str(data), "--out", str(tmp_path / "a")]).exit_code == 0
    hashes = json.loads((tmp_path / "a" / "manifest.json").read_text())["hashes"]
    assert hashes["policy"] == sha256_text("Shipped rules.\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "db.json").write_bytes((own / "db.json").read_bytes())
    (empty / "policy.md").write_text("\n")
    outcome = runner.invoke(app, [*args, "--data-dir", str(empty), "--out", str(tmp_path / "b")])
    assert outcome.exit_code == 2 and "policy.md: the policy is empty" in outcome.output
