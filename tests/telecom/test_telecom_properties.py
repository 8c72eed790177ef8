"""Hypothesis properties over random operation sequences drawn from every function of both sides:
invariants always hold, nothing raises, failures are atomic, snapshots round-trip, and fingerprints are
equal exactly when states are."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from telecom_support import DATA_SETS, UNKNOWN_NUMBER, TelecomData, make_world

from tau2.domains.telecom import DOMAIN
from tau2.errors import ErrorCode
from tau2.world import Side, Tool, World, check_domain

PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
NUMBERS = [number for data in DATA_SETS for number in data.phone_numbers()] + [UNKNOWN_NUMBER]
IDS = [customer_id for data in DATA_SETS for customer_id in data.customer_ids()] + ["C9"]
LINES = [line_id for data in DATA_SETS for line_id in data.line_ids()] + ["L9"]
BILLS = [bill_id for data in DATA_SETS for bill_id in data.bill_ids()] + ["X1", ""]
"""The records of every data set, so each world meets its own records and foreign, unknown ones."""
LIMITS = [data.subscriber.data_limit_gb for data in DATA_SETS]
FLOATS = st.one_of(
    st.sampled_from(
        [0.0, -0.0, 0.5, 2.0, -1.0, 200.0] + [limit + extra for limit in LIMITS for extra in (0.1, 2.1)]
    ),
    st.floats(),
)
NAMES = [data.subscriber.holder for data in DATA_SETS]
WORDS = st.sampled_from(
    [
        *NAMES,
        *(name.lower() for name in NAMES),
        *(data.subscriber.date_of_birth for data in DATA_SETS),
        "",
        "x",
    ]
)

ARGUMENTS: dict[str, st.SearchStrategy[Any]] = {
    "phone_number": st.sampled_from(NUMBERS),
    "customer_id": st.sampled_from(IDS),
    "line_id": st.sampled_from(LINES),
    "bill_id": st.sampled_from(BILLS),
    "new_bill_id": st.sampled_from(BILLS),
    "overdue_bill_id": st.sampled_from(BILLS),
    "id": st.sampled_from(
        IDS
        + LINES
        + BILLS
        + [record_id for data in DATA_SETS for record_id, _, _ in data.records_by_prefix.values()]
        + ["Q1"]
    ),
    "limit": st.integers(-2, 14),
    "gb_amount": FLOATS,
    "data_used_gb": FLOATS,
    "expected_amount": FLOATS,
    "expected_speed": FLOATS,
    "mode": st.sampled_from(["pin", "puk", "pan", "4g_5g_preferred", "4g_only", "3g_only", "2g_only", "6g"]),
    "app_name": st.sampled_from(["messaging", "browser", "camera"]),
    "permission": st.sampled_from(["sms", "storage", "phone", "network", "SMS", "camera"]),
    "apn_settings": st.sampled_from(
        [
            {},
            {"apn_name": "broken"},
            {"mmsc_url": None},
            {"reset_at_reboot": True},
            {"bogus": 1},
            {"mms_port": 80},
        ]
    ),
    "expected_status": st.sampled_from([True, False, "connected", "no_service", "Active", "Suspended", "x"]),
    "expected_desc": st.sampled_from([None, "excellent", "No Connection", "good", "fair"]),
    "mms_over_wifi": st.sampled_from([None, True, False]),
}
FUNCTIONS = [function for side in Side for function in DOMAIN.tools.env_functions(side)]


def arguments_for(function: Tool) -> st.SearchStrategy[dict[str, Any]]:
    """Plausible arguments for a function, sometimes broken (a wrong type, an extra or a missing key)."""
    fields = {
        name: ARGUMENTS.get(name, st.booleans() if info.annotation is bool else WORDS)
        for name, info in function.arguments_model.model_fields.items()
    }
    plausible = st.fixed_dictionaries(fields)
    broken = plausible.flatmap(
        lambda arguments: st.sampled_from(
            [
                {**arguments, "bogus": 1},
                {key: 7 for key in arguments},
                dict(list(arguments.items())[1:]),
            ]
        )
    )
    return st.one_of(plausible, plausible, plausible, broken)


OPERATIONS = st.sampled_from(FUNCTIONS).flatmap(
    lambda function: arguments_for(function).map(lambda arguments: (function.side, function.name, arguments))
)

SMALL_POOL: list[tuple[Side, str, Callable[[TelecomData], dict[str, Any]]]] = [
    (Side.USER, "toggle_data", lambda data: {}),
    (Side.USER, "turn_data_on", lambda data: {}),
    (Side.USER, "turn_data_off", lambda data: {}),
    (Side.USER, "toggle_wifi_calling", lambda data: {}),
    (Side.USER, "connect_vpn", lambda data: {}),
    (Side.USER, "disconnect_vpn", lambda data: {}),
    (Side.USER, "remove_app_permission", lambda data: {"app_name": "messaging", "permission": "sms"}),
    (Side.USER, "grant_app_permission", lambda data: {"app_name": "messaging", "permission": "sms"}),
    (Side.AGENT, "enable_roaming", lambda data: data.subscriber.ids),
    (Side.AGENT, "disable_roaming", lambda data: data.subscriber.ids),
    (Side.AGENT, "set_data_usage", lambda data: {**data.subscriber.ids, "data_used_gb": 0.0}),
    (Side.AGENT, "set_data_usage", lambda data: {**data.subscriber.ids, "data_used_gb": -0.0}),
    (
        Side.AGENT,
        "set_data_usage",
        lambda data: {**data.subscriber.ids, "data_used_gb": data.subscriber.data_limit_gb + 0.1},
    ),
]
"""Operations whose results collide: no-ops, undone toggles and -0.0 against 0.0, on the subscriber's line."""


def drive(
    world: World,
    data: TelecomData,
    operations: list[tuple[Side, str, Callable[[TelecomData], dict[str, Any]]]],
) -> None:
    for side, name, arguments in operations:
        world.run_env_function(side, name, arguments(data))


@PROPERTY_SETTINGS
@given(bound=st.booleans(), operations=st.lists(OPERATIONS, max_size=30))
def test_random_operations_keep_invariants_and_fail_atomically(
    dataset: TelecomData, bound: bool, operations: list[tuple[Side, str, dict[str, Any]]]
) -> None:
    world = make_world(dataset, bind=bound)
    for side, name, arguments in operations:
        before = world.fingerprint()
        result = world.run_env_function(side, name, arguments)
        if result.error is not None:
            assert result.error.code is not ErrorCode.INTERNAL_ERROR, result.error.message
            assert world.fingerprint() == before, f"failing {name}({arguments}) changed the state"
        assert world.invariant_violations() == [], (name, arguments)
    snapshot = world.snapshot()
    copy = World.create(DOMAIN, dataset.directory)
    copy.restore(snapshot)
    assert copy.state == world.state and copy.fingerprint() == world.fingerprint()
    world.restore(snapshot)
    assert world.snapshot() == snapshot


@PROPERTY_SETTINGS
@given(
    first=st.lists(st.sampled_from(SMALL_POOL), max_size=6),
    second=st.lists(st.sampled_from(SMALL_POOL), max_size=6),
)
def test_fingerprints_are_equal_exactly_when_states_are(
    dataset: TelecomData,
    first: list[tuple[Side, str, Callable[[TelecomData], dict[str, Any]]]],
    second: list[tuple[Side, str, Callable[[TelecomData], dict[str, Any]]]],
) -> None:
    a, b = make_world(dataset), make_world(dataset)
    drive(a, dataset, first)
    drive(b, dataset, second)
    assert (a.fingerprint() == b.fingerprint()) == (a.state == b.state)


def test_the_library_checker_passes_on_the_data_set(dataset: TelecomData) -> None:
    """Replay determinism, atomic failures and invariants over schema-generated calls, on each data set."""
    assert check_domain(DOMAIN, dataset.directory, max_examples=150) == []
