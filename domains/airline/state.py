"""The airline database: flights with their per-date status, users, and reservations.

Records are immutable and shared between worlds; a write replaces a record by an updated copy in the
world's own maps, so a fresh world is three shallow dict copies however large the database is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

DATA_DIR = Path(__file__).parent / "data"
"""The pack's own data directory, laid out as τ²-bench's (`db.json`, `policy.md`, `tasks.json`)."""

Cabin = Literal["business", "economy", "basic_economy"]
FlightType = Literal["one_way", "round_trip"]
Insurance = Literal["yes", "no"]
Membership = Literal["gold", "silver", "regular"]


class Record(BaseModel):
    """An immutable record; unknown keys in data files are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class FlightAvailable(Record):
    """A future flight date still open for booking."""

    status: Literal["available"]
    available_seats: dict[str, int]
    prices: dict[str, int]


class FlightScheduled(Record):
    """A flight date of today that has not left yet (on time or delayed)."""

    status: Literal["on time", "delayed"]
    estimated_departure_time_est: str
    estimated_arrival_time_est: str


class FlightFlying(Record):
    """A flight in the air."""

    status: Literal["flying"]
    actual_departure_time_est: str
    estimated_arrival_time_est: str


class FlightLanded(Record):
    """A flight that has arrived."""

    status: Literal["landed"]
    actual_departure_time_est: str
    actual_arrival_time_est: str


class FlightCancelled(Record):
    """A flight the airline cancelled."""

    status: Literal["cancelled"]


FlightDate = Annotated[
    FlightAvailable | FlightScheduled | FlightFlying | FlightLanded | FlightCancelled,
    Field(discriminator="status"),
]


class Flight(Record):
    """A scheduled flight and its status on every date it operates."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    """`HH:MM:SS`, with a `+1` suffix when the flight lands the next day."""
    dates: dict[str, FlightDate]


class Name(Record):
    first_name: str
    last_name: str


class Address(Record):
    address1: str
    address2: str | None = None
    city: str
    country: str
    state: str
    zip: str


class CreditCard(Record):
    source: Literal["credit_card"]
    id: str
    brand: str
    last_four: str


class GiftCard(Record):
    source: Literal["gift_card"]
    id: str
    amount: float
    """Current balance in dollars."""


class Certificate(Record):
    source: Literal["certificate"]
    id: str
    amount: float
    """Face value in dollars; a certificate is used up whole."""


PaymentMethod = Annotated[CreditCard | GiftCard | Certificate, Field(discriminator="source")]


class Passenger(Record):
    first_name: str
    last_name: str
    dob: str


class User(Record):
    """A customer profile."""

    user_id: str
    name: Name
    address: Address
    email: str
    dob: str
    payment_methods: dict[str, PaymentMethod]
    saved_passengers: list[Passenger]
    membership: Membership
    reservations: list[str]


class ReservationFlight(Record):
    """One booked segment and the per-passenger price paid for it."""

    flight_number: str
    origin: str
    destination: str
    date: str
    price: int


class Payment(Record):
    """A charge (positive) or refund (negative) on one payment method."""

    payment_id: str
    amount: int


class Reservation(Record):
    """A booking: its segments, passengers, payments, bags and insurance."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: FlightType
    cabin: Cabin
    flights: list[ReservationFlight]
    passengers: list[Passenger]
    payment_history: list[Payment]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: Insurance
    status: Literal["cancelled"] | None = None


class FlightDB(BaseModel):
    """The whole airline world (agent side only; the customer holds no state)."""

    model_config = ConfigDict(extra="forbid")

    flights: dict[str, Flight] = Field(default_factory=dict)
    users: dict[str, User] = Field(default_factory=dict)
    reservations: dict[str, Reservation] = Field(default_factory=dict)


def fresh_copy(state: FlightDB) -> FlightDB:
    """A new world sharing every (immutable) record with `state`."""
    return FlightDB.model_construct(
        flights=dict(state.flights), users=dict(state.users), reservations=dict(state.reservations)
    )
