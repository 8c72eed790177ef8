"""The airline agent's tools, with τ²-bench's behaviour, error texts and results (quirks included: a
cancellation releases no seats and restores no balance, flight changes take no seats).

Every write builds the changed records first and stores them only once nothing can fail any more, so a
failed call changes nothing; stored records are replaced, never mutated (they are shared between worlds).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tau2 import ErrorCode, Side, ToolError, ToolKind, ToolSet

from ..tau_common.arithmetic import calculate as evaluate_expression
from .state import (
    Cabin,
    Certificate,
    FlightAvailable,
    FlightDB,
    FlightType,
    GiftCard,
    Insurance,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
    User,
)

AGENT_TOOLS = ToolSet(Side.AGENT)

NOW = "2024-05-15T15:00:00"
"""The frozen clock of the airline world: the creation time of every new reservation."""
RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
INSURANCE_FEE = 30
BAG_FEE = 50
AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)


class _Argument(BaseModel):
    """A list item of a tool argument: required keys checked, extra keys ignored (as τ²-bench does)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class FlightInfo(_Argument):
    flight_number: str
    date: str


class PassengerInfo(_Argument):
    first_name: str
    last_name: str
    dob: str


class PaymentInfo(_Argument):
    payment_id: str
    amount: int


class Airport(BaseModel):
    iata: str
    city: str


class DirectFlight(BaseModel):
    """A bookable flight date as search results show it."""

    flight_number: str
    origin: str
    destination: str
    status: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    date: str | None = None
    available_seats: dict[str, int]
    prices: dict[str, int]


def _user(state: FlightDB, user_id: str) -> User:
    user = state.users.get(user_id)
    if user is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"User {user_id} not found")
    return user


def _reservation(state: FlightDB, reservation_id: str) -> Reservation:
    reservation = state.reservations.get(reservation_id)
    if reservation is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Reservation {reservation_id} not found")
    return reservation


def _bookable(state: FlightDB, flight_number: str, date: str, cabin: str, passengers: int) -> FlightAvailable:
    """The flight date of a new segment: it exists, is open for booking and has enough seats."""
    flight = state.flights.get(flight_number)
    if flight is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Flight {flight_number} not found")
    flight_date = flight.dates.get(date)
    if flight_date is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Flight {flight_number} not found on date {date}")
    if not isinstance(flight_date, FlightAvailable):
        raise ToolError(ErrorCode.INVALID_STATE, f"Flight {flight_number} not available on date {date}")
    if flight_date.available_seats[cabin] < passengers:
        raise ToolError(ErrorCode.INVALID_STATE, f"Not enough seats on flight {flight_number}")
    return flight_date


def _charge_update(user: User, payment_id: str, delta: int) -> tuple[User, list[Payment]]:
    """Pay a change of `delta` dollars (negative: refund) with one gift card or credit card of the user.

    Returns the user with the gift card's new balance and the payment entry to record (none when zero).
    """
    method = user.payment_methods.get(payment_id)
    if method is None:
        raise ToolError(ErrorCode.NOT_FOUND, "Payment method not found")
    if isinstance(method, Certificate):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Certificate cannot be used to update reservation")
    if isinstance(method, GiftCard):
        if method.amount < delta:
            raise ToolError(ErrorCode.INVALID_STATE, "Gift card balance is not enough")
        card = method.model_copy(update={"amount": method.amount - delta})
        user = user.model_copy(update={"payment_methods": {**user.payment_methods, payment_id: card}})
    entries = [Payment(payment_id=payment_id, amount=delta)] if delta != 0 else []
    return user, entries


def _search(state: FlightDB, origin: str, destination: str | None, date: str) -> list[DirectFlight]:
    """Flights from `origin` (to `destination`, or anywhere when None) bookable on `date`, in DB order."""
    found = []
    for flight in state.flights.values():
        if flight.origin != origin or (destination is not None and flight.destination != destination):
            continue
        flight_date = flight.dates.get(date)
        if isinstance(flight_date, FlightAvailable):
            found.append(
                DirectFlight(
                    flight_number=flight.flight_number,
                    origin=flight.origin,
                    destination=flight.destination,
                    status=flight_date.status,
                    scheduled_departure_time_est=flight.scheduled_departure_time_est,
                    scheduled_arrival_time_est=flight.scheduled_arrival_time_est,
                    available_seats=dict(flight_date.available_seats),
                    prices=dict(flight_date.prices),
                )
            )
    return found


@AGENT_TOOLS.tool(ToolKind.WRITE)
def book_reservation(
    state: FlightDB,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: FlightType,
    cabin: Cabin,
    flights: list[FlightInfo],
    passengers: list[PassengerInfo],
    payment_methods: list[PaymentInfo],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: Insurance,
) -> Reservation:
    """Create a new reservation for a user, charging the listed payment methods.

    Args:
        user_id: Whose reservation it is, e.g. 'sara_doe_496'.
        origin: Airport code where the trip starts, e.g. 'SFO'.
        destination: Airport code where the trip ends, e.g. 'JFK'.
        flight_type: 'one_way' or 'round_trip'.
        cabin: 'basic_economy', 'economy' or 'business'; the same for every flight.
        flights: Every flight of the trip in travel order, each {flight_number, date}, e.g.
            {"flight_number": "HAT001", "date": "2024-05-20"}.
        passengers: Every traveller, each {first_name, last_name, dob} with dob as 'YYYY-MM-DD'.
        payment_methods: How the total is paid, each {payment_id, amount}; the payment_id is a method
            stored in the user's profile, e.g. 'credit_card_7815826', 'gift_card_7815826' or
            'certificate_7815826'. The amounts must add up to the total price.
        total_baggages: Checked bags for the whole reservation.
        nonfree_baggages: How many of those bags are paid for (beyond the free allowance).
        insurance: 'yes' or 'no' for travel insurance.
    """
    user = _user(state, user_id)
    reservation_id = next((rid for rid in RESERVATION_IDS if rid not in state.reservations), None)
    if reservation_id is None:
        raise ToolError(ErrorCode.CONFLICT, "Too many reservations")
    count = len(passengers)
    segments: list[ReservationFlight] = []
    seats_taken: dict[tuple[str, str], int] = {}
    total = 0
    for info in flights:
        flight_date = _bookable(state, info.flight_number, info.date, cabin, count)
        flight = state.flights[info.flight_number]
        fare = flight_date.prices[cabin]
        segments.append(
            ReservationFlight(
                flight_number=info.flight_number,
                origin=flight.origin,
                destination=flight.destination,
                date=info.date,
                price=fare,
            )
        )
        key = (info.flight_number, info.date)
        seats_taken[key] = seats_taken.get(key, 0) + count
        total += fare * count
    if insurance == "yes":
        total += INSURANCE_FEE * count
    total += BAG_FEE * nonfree_baggages
    methods = dict(user.payment_methods)
    for payment in payment_methods:
        method = user.payment_methods.get(payment.payment_id)
        if method is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"Payment method {payment.payment_id} not found")
        if isinstance(method, GiftCard | Certificate) and method.amount < payment.amount:
            raise ToolError(
                ErrorCode.INVALID_STATE, f"Not enough balance in payment method {payment.payment_id}"
            )
    paid = sum(payment.amount for payment in payment_methods)
    if paid != total:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"Payment amount does not add up, total price is {total}, but paid {paid}",
        )
    for payment in payment_methods:
        method = methods.get(payment.payment_id)
        if isinstance(method, GiftCard):
            methods[payment.payment_id] = method.model_copy(update={"amount": method.amount - payment.amount})
        elif isinstance(method, Certificate):
            del methods[payment.payment_id]  # used up whole, whatever the amount
        elif method is None:  # a certificate listed twice: fail before anything is stored
            raise ToolError(ErrorCode.NOT_FOUND, f"Payment method {payment.payment_id} not found")
    reservation = Reservation(
        reservation_id=reservation_id,
        user_id=user_id,
        origin=origin,
        destination=destination,
        flight_type=flight_type,
        cabin=cabin,
        flights=segments,
        passengers=[Passenger(**passenger.model_dump()) for passenger in passengers],
        payment_history=[Payment(payment_id=p.payment_id, amount=p.amount) for p in payment_methods],
        created_at=NOW,
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        insurance=insurance,
    )
    for (flight_number, date), taken in seats_taken.items():
        flight = state.flights[flight_number]
        open_date = flight.dates[date]
        assert isinstance(open_date, FlightAvailable)  # checked by _bookable
        seats = {**open_date.available_seats, cabin: open_date.available_seats[cabin] - taken}
        dates = {**flight.dates, date: open_date.model_copy(update={"available_seats": seats})}
        state.flights[flight_number] = flight.model_copy(update={"dates": dates})
    state.reservations[reservation_id] = reservation
    state.users[user_id] = user.model_copy(
        update={"payment_methods": methods, "reservations": [*user.reservations, reservation_id]}
    )
    return reservation


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def calculate(state: FlightDB, expression: str) -> str:
    """Evaluate an arithmetic expression and return the value rounded to two decimals.

    Args:
        expression: Numbers combined with + - * / and parentheses (spaces allowed), e.g. '(120 + 80) * 2'.
    """
    return evaluate_expression(expression)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def cancel_reservation(state: FlightDB, reservation_id: str) -> Reservation:
    """Cancel a reservation entirely; every payment made on it is refunded.

    Args:
        reservation_id: Six-character reservation code, e.g. 'ZFA04Y'.
    """
    reservation = _reservation(state, reservation_id)
    refunds = [Payment(payment_id=p.payment_id, amount=-p.amount) for p in reservation.payment_history]
    cancelled = reservation.model_copy(
        update={"payment_history": [*reservation.payment_history, *refunds], "status": "cancelled"}
    )
    state.reservations[reservation_id] = cancelled
    return cancelled


@AGENT_TOOLS.tool(ToolKind.READ)
def get_reservation_details(state: FlightDB, reservation_id: str) -> Reservation:
    """Look up a reservation: its flights, passengers, cabin, bags, insurance and payments.

    Args:
        reservation_id: Six-character reservation code, e.g. '8JX2WO'.
    """
    return _reservation(state, reservation_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_user_details(state: FlightDB, user_id: str) -> User:
    """Look up a user profile: contact details, membership, payment methods, saved passengers and
    reservation codes.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
    """
    return _user(state, user_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def list_all_airports(state: FlightDB) -> list[Airport]:
    """List the airports the airline serves, each with its code and city."""
    return [Airport(iata=iata, city=city) for iata, city in AIRPORTS]


@AGENT_TOOLS.tool(ToolKind.READ)
def search_direct_flight(state: FlightDB, origin: str, destination: str, date: str) -> list[DirectFlight]:
    """Find nonstop flights from one airport to another that can still be booked on a date.

    Args:
        origin: Three-letter code of the departure airport, e.g. 'JFK'.
        destination: Three-letter code of the arrival airport, e.g. 'LAX'.
        date: Departure date as 'YYYY-MM-DD', e.g. '2024-05-20'.
    """
    return _search(state, origin, destination, date)


@AGENT_TOOLS.tool(ToolKind.READ)
def search_onestop_flight(
    state: FlightDB, origin: str, destination: str, date: str
) -> list[list[DirectFlight]]:
    """Find itineraries with exactly one connection between two airports, departing on a date; each
    result is a pair of flights.

    Args:
        origin: Three-letter code of the departure airport, e.g. 'JFK'.
        destination: Three-letter code of the final arrival airport, e.g. 'LAX'.
        date: Departure date of the first flight as 'YYYY-MM-DD', e.g. '2024-05-20'.
    """
    results = []
    for first in _search(state, origin, None, date):
        # τ²-bench's next-day arithmetic: month fixed to May, day not zero-padded (so 05-05 → 2024-05-6).
        next_date = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first.scheduled_arrival_time_est else date
        for second in _search(state, first.destination, destination, next_date):
            if second.scheduled_departure_time_est >= first.scheduled_arrival_time_est:
                results.append(
                    [first.model_copy(update={"date": date}), second.model_copy(update={"date": next_date})]
                )
    return results


@AGENT_TOOLS.tool(ToolKind.WRITE)
def send_certificate(state: FlightDB, user_id: str, amount: int) -> str:
    """Add a travel certificate to a user's payment methods as compensation. Use it only when the policy
    allows compensation, and double-check the amount.

    Args:
        user_id: Who receives the certificate, e.g. 'sara_doe_496'.
        amount: Value of the certificate in dollars.
    """
    user = _user(state, user_id)
    certificate_id = next((cid for cid in CERTIFICATE_IDS if cid not in user.payment_methods), None)
    if certificate_id is None:
        raise ToolError(ErrorCode.CONFLICT, "Too many certificates")
    certificate = Certificate(source="certificate", id=certificate_id, amount=float(amount))
    state.users[user_id] = user.model_copy(
        update={"payment_methods": {**user.payment_methods, certificate_id: certificate}}
    )
    return f"Certificate {certificate_id} added to user {user_id} with amount {amount}."


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def transfer_to_human_agents(state: FlightDB, summary: str) -> str:
    """Hand the customer over to a human agent. Use it only when the customer asks for a person, or when
    the request cannot be handled with your tools within the policy.

    Args:
        summary: A short account of what the customer needs, for the human agent.
    """
    return "Transfer successful"


@AGENT_TOOLS.tool(ToolKind.WRITE)
def update_reservation_baggages(
    state: FlightDB, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
) -> Reservation:
    """Set the number of checked bags of a reservation; extra paid bags are charged at $50 each.

    Args:
        reservation_id: Six-character reservation code, e.g. 'ZFA04Y'.
        total_baggages: The new number of checked bags for the whole reservation.
        nonfree_baggages: The new number of those bags that are paid for.
        payment_id: A payment method from the user's profile that pays for added bags, e.g.
            'credit_card_7815826' or 'gift_card_7815826'.
    """
    reservation = _reservation(state, reservation_id)
    user = _user(state, reservation.user_id)
    delta = BAG_FEE * max(0, nonfree_baggages - reservation.nonfree_baggages)
    user, entries = _charge_update(user, payment_id, delta)
    updated = reservation.model_copy(
        update={
            "total_baggages": total_baggages,
            "nonfree_baggages": nonfree_baggages,
            "payment_history": [*reservation.payment_history, *entries],
        }
    )
    state.users[user.user_id] = user
    state.reservations[reservation_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def update_reservation_flights(
    state: FlightDB, reservation_id: str, cabin: Cabin, flights: list[FlightInfo], payment_id: str
) -> Reservation:
    """Replace the flights and/or the cabin of a reservation; the price difference is charged or refunded.

    Args:
        reservation_id: Six-character reservation code, e.g. 'ZFA04Y'.
        cabin: The cabin for the whole reservation after the change: 'basic_economy', 'economy' or
            'business'.
        flights: The complete new itinerary, each {flight_number, date} with date as 'YYYY-MM-DD'. List
            the flights that stay the same too, not only the changed ones.
        payment_id: A payment method from the user's profile for the difference, e.g.
            'credit_card_7815826' or 'gift_card_7815826'.
    """
    reservation = _reservation(state, reservation_id)
    user = _user(state, reservation.user_id)
    count = len(reservation.passengers)
    same_cabin = cabin == reservation.cabin
    segments: list[ReservationFlight] = []
    for info in flights:
        kept = next(
            (
                old
                for old in reservation.flights
                if same_cabin and old.flight_number == info.flight_number and old.date == info.date
            ),
            None,
        )
        if kept is not None:
            segments.append(kept)
            continue
        flight_date = _bookable(state, info.flight_number, info.date, cabin, count)
        flight = state.flights[info.flight_number]
        segments.append(
            ReservationFlight(
                flight_number=info.flight_number,
                origin=flight.origin,
                destination=flight.destination,
                date=info.date,
                price=flight_date.prices[cabin],
            )
        )
    delta = sum(s.price for s in segments) * count - sum(s.price for s in reservation.flights) * count
    user, entries = _charge_update(user, payment_id, delta)
    updated = reservation.model_copy(
        update={
            "flights": segments,
            "cabin": cabin,
            "payment_history": [*reservation.payment_history, *entries],
        }
    )
    state.users[user.user_id] = user
    state.reservations[reservation_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def update_reservation_passengers(
    state: FlightDB, reservation_id: str, passengers: list[PassengerInfo]
) -> Reservation:
    """Correct the names and dates of birth of a reservation's passengers (their number cannot change).

    Args:
        reservation_id: Six-character reservation code, e.g. 'ZFA04Y'.
        passengers: Every passenger after the correction, in order, each {first_name, last_name, dob}
            with dob as 'YYYY-MM-DD'.
    """
    reservation = _reservation(state, reservation_id)
    if len(passengers) != len(reservation.passengers):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Number of passengers does not match")
    updated = reservation.model_copy(
        update={"passengers": [Passenger(**passenger.model_dump()) for passenger in passengers]}
    )
    state.reservations[reservation_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.READ)
def get_flight_status(state: FlightDB, flight_number: str, date: str) -> str:
    """Tell whether a flight on a date is available, on time, delayed, flying, landed or cancelled.

    Args:
        flight_number: The flight's number, e.g. 'HAT001'.
        date: The date as 'YYYY-MM-DD', e.g. '2024-05-15'.
    """
    flight = state.flights.get(flight_number)
    if flight is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Flight {flight_number} not found")
    flight_date = flight.dates.get(date)
    if flight_date is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Flight {flight_number} not found on date {date}")
    return flight_date.status
