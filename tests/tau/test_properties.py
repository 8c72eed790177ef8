"""Invariants of the copy-on-write packs, over generated calls: a failed call changes nothing, and no call
in one world is ever seen by another world or by the shared base data."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tau2 import Side, World, get_domain
from tau2.domains.tau_common.files import canonical_hash

AIRLINE = get_domain("airline")
RETAIL = get_domain("retail")
BASE_HASHES = {domain.name: canonical_hash(World.create(domain).state) for domain in (AIRLINE, RETAIL)}

_ids = st.sampled_from


def airline_calls() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    world = World.create(AIRLINE)
    users, reservations = sorted(world.state.users), sorted(world.state.reservations)
    methods = sorted({m for u in world.state.users.values() for m in u.payment_methods})
    flights = st.fixed_dictionaries(
        {"flight_number": _ids(sorted(world.state.flights)), "date": _ids(["2024-05-12", "2024-05-20"])}
    )
    passenger = st.fixed_dictionaries(
        {"first_name": st.just("Ana"), "last_name": st.just("Ruiz"), "dob": st.just("1990-01-01")}
    )
    return st.one_of(
        st.tuples(
            st.just("cancel_reservation"), st.fixed_dictionaries({"reservation_id": _ids(reservations)})
        ),
        st.tuples(
            st.just("update_reservation_baggages"),
            st.fixed_dictionaries(
                {
                    "reservation_id": _ids(reservations),
                    "total_baggages": st.integers(0, 5),
                    "nonfree_baggages": st.integers(0, 12),
                    "payment_id": _ids(methods),
                }
            ),
        ),
        st.tuples(
            st.just("update_reservation_flights"),
            st.fixed_dictionaries(
                {
                    "reservation_id": _ids(reservations),
                    "cabin": _ids(["economy", "business", "basic_economy"]),
                    "flights": st.lists(flights, max_size=2),
                    "payment_id": _ids(methods),
                }
            ),
        ),
        st.tuples(
            st.just("send_certificate"),
            st.fixed_dictionaries({"user_id": _ids(users), "amount": st.integers(0, 500)}),
        ),
        st.tuples(
            st.just("book_reservation"),
            st.fixed_dictionaries(
                {
                    "user_id": _ids(users),
                    "origin": st.just("SEA"),
                    "destination": st.just("SFO"),
                    "flight_type": st.just("one_way"),
                    "cabin": _ids(["economy", "business"]),
                    "flights": st.lists(flights, max_size=2),
                    "passengers": st.lists(passenger, min_size=1, max_size=2),
                    "payment_methods": st.lists(
                        st.fixed_dictionaries({"payment_id": _ids(methods), "amount": st.integers(0, 900)}),
                        max_size=2,
                    ),
                    "total_baggages": st.integers(0, 3),
                    "nonfree_baggages": st.integers(0, 3),
                    "insurance": _ids(["yes", "no"]),
                }
            ),
        ),
    )


def retail_calls() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    world = World.create(RETAIL)
    orders = sorted(world.state.orders)
    methods = sorted({m for u in world.state.users.values() for m in u.payment_methods})
    items = sorted({v for p in world.state.products.values() for v in p.variants})
    item_lists = st.lists(_ids(items), max_size=2)
    return st.one_of(
        st.tuples(
            st.just("cancel_pending_order"),
            st.fixed_dictionaries({"order_id": _ids(orders), "reason": _ids(["no longer needed", "other"])}),
        ),
        st.tuples(
            st.just("modify_pending_order_items"),
            st.fixed_dictionaries(
                {
                    "order_id": _ids(orders),
                    "item_ids": item_lists,
                    "new_item_ids": item_lists,
                    "payment_method_id": _ids(methods),
                }
            ),
        ),
        st.tuples(
            st.just("exchange_delivered_order_items"),
            st.fixed_dictionaries(
                {
                    "order_id": _ids(orders),
                    "item_ids": item_lists,
                    "new_item_ids": item_lists,
                    "payment_method_id": _ids(methods),
                }
            ),
        ),
        st.tuples(
            st.just("return_delivered_order_items"),
            st.fixed_dictionaries(
                {"order_id": _ids(orders), "item_ids": item_lists, "payment_method_id": _ids(methods)}
            ),
        ),
        st.tuples(
            st.just("modify_pending_order_payment"),
            st.fixed_dictionaries({"order_id": _ids(orders), "payment_method_id": _ids(methods)}),
        ),
    )


SETTINGS = settings(
    max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


def check(domain_name: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    domain = get_domain(domain_name)
    world = World.create(domain)
    for name, arguments in calls:
        before = canonical_hash(world.state)
        result = world.call(Side.AGENT, name, arguments)
        if not result.ok:
            assert canonical_hash(world.state) == before, (name, arguments, result.render())
    assert canonical_hash(World.create(domain).state) == BASE_HASHES[domain_name]


@SETTINGS
@given(st.lists(airline_calls(), min_size=1, max_size=4))
def test_airline_failures_are_atomic_and_worlds_stay_apart(calls: list[tuple[str, dict[str, Any]]]) -> None:
    check("airline", calls)


@SETTINGS
@given(st.lists(retail_calls(), min_size=1, max_size=4))
def test_retail_failures_are_atomic_and_worlds_stay_apart(calls: list[tuple[str, dict[str, Any]]]) -> None:
    check("retail", calls)
