"""Loading data directories and files (spec §1.4), one-line errors, and the τ²-bench user-db writer."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest
from telecom_support import OWN, TelecomData, bill, holds, make_world, ok, state

from tau2.domains.telecom import (
    DOMAIN,
    BillStatus,
    NetworkTechnology,
    SignalStrength,
    SimCardStatus,
    TelecomState,
    dump_tau2_user_db,
    invariant_violations,
    load_files,
    load_state,
)
from tau2.domains.telecom.binding import line_active, payment_request
from tau2.domains.telecom.loader import parse_user_db
from tau2.errors import UserInputError
from tau2.world import World


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A writable copy of the domain's own data directory (db.toml, user_db.toml)."""
    for name in ("db.toml", "user_db.toml"):
        shutil.copy(OWN.directory / name, tmp_path / name)
    return tmp_path


def write_user_db(directory: Path, text: str) -> None:
    (directory / "user_db.toml").write_text(text)


def edit_db(directory: Path, old: str, new: str, after: str = "") -> None:
    """Replace the first `old` after the first `after` in db.toml; the text must be there."""
    text = (directory / "db.toml").read_text()
    start = text.index(after)
    at = text.index(old, start)
    (directory / "db.toml").write_text(text[:at] + new + text[at + len(old) :])


def load_error(directory: Path) -> str:
    with pytest.raises(UserInputError) as raised:
        load_state(directory)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_data_set_loads_soundly(dataset: TelecomData) -> None:
    loaded = load_state(dataset.directory)
    assert invariant_violations(loaded) == []
    assert loaded.device == TelecomState().device, "user_db.toml equals the defaults"
    assert loaded.surroundings == TelecomState().surroundings


def test_json_files_load_like_toml(dataset: TelecomData, tmp_path: Path) -> None:
    for stem in ("db", "user_db"):
        content = tomllib.loads((dataset.directory / f"{stem}.toml").read_text())
        (tmp_path / f"{stem}.json").write_text(json.dumps(content))
    assert load_state(tmp_path) == load_state(dataset.directory)


def test_native_toml_dates_are_accepted(data: Path) -> None:
    edit_db(data, 'activation_date = "2024-06-30T10:05:00"', "activation_date = 2024-06-30T10:05:00")
    edit_db(data, 'contract_end_date = "2026-06-30"', "contract_end_date = 2026-06-30")
    edit_db(data, 'date_of_birth = "1988-03-09"', "date_of_birth = 1988-03-09")
    assert load_state(data) == load_state(OWN.directory)


def test_unknown_key_names_file_and_field(data: Path) -> None:
    edit_db(data, 'line_id = "L2004"', 'line_id = "L2004"\ncolour = "red"')
    message = load_error(data)
    assert message.startswith(f"{data / 'db.toml'}: lines[3].colour: Extra inputs are not permitted")


def test_bad_enum_names_file_field_and_values(data: Path) -> None:
    edit_db(data, 'status = "Active"', 'status = "active"', after='line_id = "L2004"')
    assert load_error(data) == (
        f"{data / 'db.toml'}: lines[3].status: Input should be 'Active', 'Suspended', 'Pending Activation'"
        " or 'Closed' (got 'active')"
    )


def test_unknown_key_in_the_user_db(data: Path) -> None:
    write_user_db(data, "[device]\nairplane = true\n")
    assert load_error(data).startswith(f"{data / 'user_db.toml'}: device.airplane: Extra inputs")
    write_user_db(data, "[phone]\n")
    assert load_error(data).startswith(f"{data / 'user_db.toml'}: phone: Extra inputs")


def test_missing_required_field(data: Path) -> None:
    edit_db(data, 'name = "Starter 4"\n', "")
    assert load_error(data) == f"{data / 'db.toml'}: plans[0].name: Field required"


def test_toml_syntax_error_gives_line_and_column(data: Path) -> None:
    write_user_db(data, "[device]\nairplane_mode = = true\n")
    message = load_error(data)
    assert message.startswith(f"{data / 'user_db.toml'}: line 2, column 17: invalid TOML")


def test_json_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    shutil.copy(OWN.directory / "db.toml", tmp_path / "db.toml")
    (tmp_path / "user_db.json").write_text('{"device": {\n  "airplane_mode": tru}}')
    assert (
        load_error(tmp_path)
        == f"{tmp_path / 'user_db.json'}: line 2, column 20: invalid JSON: Expecting value"
    )


def test_directory_must_hold_exactly_one_file_per_database(data: Path, tmp_path: Path) -> None:
    (data / "db.json").write_text("{}")
    assert load_error(data) == f"{data}: has both db.toml and db.json"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert load_error(empty) == f"{empty}: has neither db.toml and db.json"


def test_top_level_must_be_a_table(tmp_path: Path) -> None:
    shutil.copy(OWN.directory / "user_db.toml", tmp_path / "user_db.toml")
    (tmp_path / "db.json").write_text("[]")
    assert load_error(tmp_path) == f"{tmp_path / 'db.json'}: the top level must be a table (object)"


def test_referential_integrity_is_checked(data: Path) -> None:
    edit_db(data, 'plan_id = "P2001"', 'plan_id = "P2099"', after='line_id = "L2002"')
    assert load_error(data) == f"{data / 'db.toml'}: lines[1].plan_id: no plan 'P2099'"


def test_non_finite_numbers_are_rejected(data: Path) -> None:
    edit_db(data, "data_used_gb = 0.0", "data_used_gb = nan", after='line_id = "L2002"')
    assert load_error(data).startswith(f"{data / 'db.toml'}: lines[1].data_used_gb: ")


@pytest.mark.parametrize(
    ("device", "status", "inserted"),
    [
        ('sim_card_status = "locked_pin"\nsim_card_missing = true', SimCardStatus.LOCKED_PIN, False),
        ('sim_card_status = "missing"', SimCardStatus.ACTIVE, False),
        ('sim_card_status = "missing"\nsim_card_missing = false', SimCardStatus.ACTIVE, False),
        ("sim_card_missing = false", SimCardStatus.ACTIVE, True),
        ("sim_card_inserted = false", SimCardStatus.ACTIVE, False),
    ],
)
def test_tau2_sim_fields_are_mapped(device: str, status: SimCardStatus, inserted: bool) -> None:
    loaded, _ = parse_user_db(tomllib.loads(f"[device]\n{device}\n"), "user_db.toml")
    assert (loaded.sim_card_status, loaded.sim_card_inserted) == (status, inserted)


def test_a_missing_sim_from_a_file_is_fixed_by_a_reseat(data: Path) -> None:
    write_user_db(data, '[device]\nsim_card_status = "missing"\nnetwork_connection_status = "no_service"\n')
    world = World.create(DOMAIN, data)
    ok(world, "user", "reseat_sim_card")
    assert state(world).device.network_connection_status == "connected"


def test_sim_card_missing_must_be_boolean() -> None:
    with pytest.raises(UserInputError, match=r"^user_db.toml: device.sim_card_missing: "):
        parse_user_db({"device": {"sim_card_missing": "yes"}}, "user_db.toml")


def test_app_statuses_replace_the_default_map() -> None:
    device, _ = parse_user_db(tomllib.loads('[device.app_statuses.messaging]\napp_name = "messaging"\n'), "f")
    assert list(device.app_statuses) == ["messaging"]
    assert not device.app_statuses["messaging"].permissions.sms


def test_missing_signal_strength_keys_read_as_none() -> None:
    _, surroundings = parse_user_db(
        tomllib.loads('[surroundings.signal_strength]\n4G = "fair"\nnone = "none"\n'), "f"
    )
    assert surroundings.signal_strength == {
        NetworkTechnology.TWO_G: SignalStrength.NONE,
        NetworkTechnology.THREE_G: SignalStrength.NONE,
        NetworkTechnology.FOUR_G: SignalStrength.FAIR,
        NetworkTechnology.FIVE_G: SignalStrength.NONE,
    }


def test_a_bound_file_derives_the_coupled_fields(data: Path) -> None:
    write_user_db(
        data,
        f'[surroundings]\nphone_number = "{OWN.suspended_line.phone_number}"\nline_active = true\n'
        "roaming_allowed = true\nmobile_data_usage_exceeded = true\n",
    )
    loaded = load_state(data)
    assert not line_active(loaded), "the line is Suspended"
    assert (loaded.surroundings.line_active, loaded.surroundings.roaming_allowed) == (True, False)
    assert invariant_violations(loaded) == []


BOUND = f'[surroundings]\nphone_number = "{OWN.subscriber.phone_number}"\n'
"""A user db binding the phone to the own data's subscriber."""


def test_a_bound_file_with_a_paid_request_pays_the_bill(data: Path) -> None:
    issued = OWN.subscriber.issued_bill
    write_user_db(
        data,
        BOUND + f'[surroundings.payment_request]\nbill_id = "{issued.bill_id}"\n'
        f"amount_due = {issued.total_due}\npaid = true\n",
    )
    loaded = load_state(data)
    assert (
        bill(loaded, issued.bill_id).status == BillStatus.PAID and loaded.surroundings.payment_request is None
    )


def test_a_bound_file_with_an_unpaid_request_must_name_the_awaiting_bill(data: Path) -> None:
    issued, paid = OWN.subscriber.issued_bill.bill_id, OWN.subscriber.paid_bill.bill_id
    edit_db(data, 'status = "Issued"', 'status = "Awaiting Payment"', after=f'bill_id = "{issued}"')
    request = BOUND + "[surroundings.payment_request]\namount_due = 1.0\n"
    write_user_db(data, request + f'bill_id = "{issued}"\n')
    request_state = load_state(data)
    assert payment_request(request_state) is not None
    write_user_db(data, request + f'bill_id = "{paid}"\n')
    assert load_error(data) == (
        f"{data / 'user_db.toml'}: surroundings.payment_request.bill_id: '{paid}' is not the customer's "
        "first Awaiting Payment bill"
    )


def test_a_paid_request_for_an_unknown_bill_fails(data: Path) -> None:
    write_user_db(
        data,
        BOUND + '[surroundings.payment_request]\nbill_id = "B404"\namount_due = 1.0\npaid = true\n',
    )
    assert (
        load_error(data) == f"{data / 'user_db.toml'}: surroundings.payment_request.bill_id: no bill 'B404'"
    )


def test_a_file_binding_an_unknown_number_fails(data: Path) -> None:
    write_user_db(data, '[surroundings]\nphone_number = "555-000-0000"\n')
    assert (
        load_error(data)
        == f"{data / 'user_db.toml'}: surroundings.phone_number: no line has the number '555-000-0000'"
    )


def test_unsound_device_state_is_rejected(data: Path) -> None:
    write_user_db(data, "[device]\nvpn_connected = true\n")
    assert load_error(data).startswith(f"{data / 'user_db.toml'}: device.vpn_details: ")
    write_user_db(data, "[device]\nbattery_level = 101\n")
    assert load_error(data).startswith(f"{data / 'user_db.toml'}: device.battery_level: Input should be less")


def test_load_files_and_missing_file(dataset: TelecomData, tmp_path: Path) -> None:
    directory = dataset.directory
    loaded = load_files(directory / "db.toml", directory / "user_db.toml")
    assert loaded == load_state(directory)
    with pytest.raises(UserInputError, match="no such file"):
        load_files(tmp_path / "db.toml", directory / "user_db.toml")
    (tmp_path / "db.yaml").write_text("plans: []")
    with pytest.raises(UserInputError, match=r"db\.yaml: expected a \.toml or \.json file"):
        load_files(tmp_path / "db.yaml", directory / "user_db.toml")


def test_dump_tau2_user_db(world: World, dataset: TelecomData) -> None:
    ok(world, "user", "unseat_sim_card")
    ok(world, "agent", "suspend_line", **dataset.subscriber.ids, reason="test")
    dumped = dump_tau2_user_db(state(world))
    assert dumped["device"]["sim_card_status"] == "active" and dumped["device"]["sim_card_missing"] is True
    assert "sim_card_inserted" not in dumped["device"]
    assert (
        dumped["surroundings"]["line_active"] is False and dumped["surroundings"]["roaming_allowed"] is True
    )
    assert dumped["surroundings"]["phone_number"] == dataset.subscriber.phone_number
    device, surroundings = parse_user_db(dumped, "dump")
    assert device == state(world).device
    assert surroundings.phone_number == dataset.subscriber.phone_number


def test_own_data_loads_soundly(own_data_dir: Path) -> None:
    loaded = load_state(None)
    assert invariant_violations(loaded) == []
    assert loaded == load_state(own_data_dir)
    world = make_world(OWN, bind=False)
    ok(world, "user", "set_user_info", name="Test", phone_number=loaded.crm.lines[0].phone_number)
    assert world.invariant_violations() == []


def test_own_data_can_bind_every_line(own_data_dir: Path) -> None:
    for line in load_state(own_data_dir).crm.lines:
        world = make_world(OWN, bind=False)
        ok(world, "user", "set_user_info", name="Test", phone_number=line.phone_number)
        ok(world, "user", "simulate_network_search")
        assert world.invariant_violations() == [], line.line_id
        assert holds(world, "user", "assert_service_status", expected_status="connected") is (
            line.status == "Active"
        )
