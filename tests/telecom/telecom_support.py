"""Shared helpers of the telecom tests: the data sets the tool tests run on, the records of each data set that
play each situation the tests need, and one-line ways to run operations on a world."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tau2.domains.telecom import DATA_DIR, DOMAIN, Bill, Customer, Line, Plan, TelecomDB, TelecomState
from tau2.errors import ErrorCode
from tau2.world import Observation, Side, ToolResult, World

REFERENCE_DIR = Path(__file__).resolve().parents[2] / ".." / "shared" / "conformance" / "tau2-telecom"
"""τ²-bench's telecom data, kept beside the checkout (absent in some environments)."""
OWN_DATA_DIR = DATA_DIR

UNKNOWN_NUMBER = "555-000-0000"
"""A phone number no customer and no line has, in every data set."""
UNUSED_BILL_ID = "B1234321"
"""A bill ID no data set uses, free for a newly created bill."""


@dataclass(frozen=True)
class LineOf:
    """A line together with its owner: the customer's ID and name, the line's ID and number."""

    holder: str
    customer_id: str
    line_id: str
    phone_number: str

    @property
    def ids(self) -> dict[str, str]:
        """The arguments that name the line to an agent tool."""
        return {"customer_id": self.customer_id, "line_id": self.line_id}

    @property
    def user_info(self) -> dict[str, str]:
        """The arguments of `set_user_info` that bind the phone to this line."""
        return {"name": self.holder, "phone_number": self.phone_number}


@dataclass(frozen=True)
class BillOf:
    """A bill's ID and its total."""

    bill_id: str
    total_due: float


@dataclass(frozen=True)
class Subscriber(LineOf):
    """The line the phone is bound to: Active, on a priced plan, carrier roaming on, usage below the limit,
    its number also the customer's primary number; the customer has a Paid, an Issued and a Draft bill."""

    date_of_birth: str
    created_at: str
    zip_code: str
    first_payment_method: str
    line_ids: tuple[str, ...]
    data_used_gb: float
    data_limit_gb: float
    refuel_price_per_gb: float
    plan_id: str
    plan_price: float
    contract_end_date: str
    paid_bill: BillOf
    issued_bill: BillOf
    draft_bill: BillOf
    bills_newest_first: tuple[str, ...]
    oldest_bill_first_item_date: str


@dataclass(frozen=True)
class OverdueCustomer(LineOf):
    """Another customer, with an Overdue bill and no Draft bill, and an Active line of theirs."""

    overdue_bill_id: str
    refuel_price_per_gb: float
    new_draft_bill_id: str


@dataclass(frozen=True)
class TelecomData:
    """A telecom data set and the records in it that play each situation of the tool tests."""

    label: str
    directory: Path
    subscriber: Subscriber
    second_line: LineOf
    """Another line of the subscriber's customer; its number is not the customer's primary number."""
    suspended_line: LineOf
    """A Suspended line with carrier roaming off on an Active account without an Overdue bill."""
    roaming_line: LineOf
    """Another customer's Active line with carrier roaming on and usage below the limit."""
    overdue: OverdueCustomer
    primary_number_only: tuple[str, str]
    """A customer's ID and their primary number, which is on no line."""
    unverified_customer_id: str
    """A Pending Verification customer without lines or bills."""
    records_by_prefix: dict[str, tuple[str, str, object]]
    """For each ID prefix of `get_details_by_id`, a record's ID, one of its fields and that field's value."""
    record_counts: tuple[int, int, int, int, int]
    """How many plans, customers, lines, devices and bills the data set has."""
    payment_method_count: int

    def present(self) -> bool:
        """Whether the data set's files are there."""
        return (self.directory / "db.toml").is_file() and (self.directory / "user_db.toml").is_file()

    def customer_ids(self) -> list[str]:
        """The customer IDs of every situation."""
        others = {self.primary_number_only[0], self.unverified_customer_id}
        return sorted({line.customer_id for line in self.lines()} | others)

    def line_ids(self) -> list[str]:
        """The line IDs of every situation."""
        return sorted({line.line_id for line in self.lines()})

    def phone_numbers(self) -> list[str]:
        """The phone numbers of every situation."""
        return sorted({line.phone_number for line in self.lines()} | {self.primary_number_only[1]})

    def bill_ids(self) -> list[str]:
        """The bill IDs of every situation, and the IDs that refuels and overdue suspensions would create."""
        subscriber = self.subscriber
        return sorted(
            {
                *subscriber.bills_newest_first,
                self.overdue.overdue_bill_id,
                self.overdue.new_draft_bill_id,
                UNUSED_BILL_ID,
            }
        )

    def lines(self) -> list[LineOf]:
        """Every situation that is a line."""
        return [
            self.subscriber,
            self.second_line,
            self.suspended_line,
            self.roaming_line,
            self.overdue,
        ]


OWN = TelecomData(
    label="own",
    directory=OWN_DATA_DIR,
    subscriber=Subscriber(
        holder="Ingrid Halvorsen",
        customer_id="C2003",
        line_id="L2006",
        phone_number="555-617-0093",
        date_of_birth="1993-07-21",
        created_at="2023-08-29T14:40:00",
        zip_code="04101",
        first_payment_method="Credit Card",
        line_ids=("L2005", "L2006"),
        data_used_gb=18.9,
        data_limit_gb=30.0,
        refuel_price_per_gb=2.5,
        plan_id="P2003",
        plan_price=70.0,
        contract_end_date="2025-08-31",
        paid_bill=BillOf("B2007", 130.0),
        issued_bill=BillOf("B2008", 140.0),
        draft_bill=BillOf("B2009", 7.0),
        bills_newest_first=("B2009", "B2008", "B2007"),
        oldest_bill_first_item_date="2025-01-15",
    ),
    second_line=LineOf("Ingrid Halvorsen", "C2003", "L2005", "555-617-0094"),
    suspended_line=LineOf("Nadia Petrova", "C2005", "L2011", "555-904-1342"),
    roaming_line=LineOf("Desmond Archer", "C2002", "L2004", "555-238-4417"),
    overdue=OverdueCustomer(
        holder="Harriet Osei",
        customer_id="C2007",
        line_id="L2014",
        phone_number="555-153-6620",
        overdue_bill_id="B2019",
        refuel_price_per_gb=2.5,
        new_draft_bill_id="B2007-202503",
    ),
    primary_number_only=("C2002", "555-238-4410"),
    unverified_customer_id="C2010",
    records_by_prefix={
        "L": ("L2006", "phone_number", "555-617-0093"),
        "D": ("D2003", "last_esim_transfer_date", "2024-11-22T18:05:00"),
        "B": ("B2008", "status", "Issued"),
        "C": ("C2010", "account_status", "Pending Verification"),
        "P": ("P2003", "data_refueling_price_per_gb", 2.5),
    },
    record_counts=(7, 12, 20, 18, 29),
    payment_method_count=13,
)
"""The domain's own data (tau2/domains/telecom/data), always present."""

REFERENCE = TelecomData(
    label="reference",
    directory=REFERENCE_DIR,
    subscriber=Subscriber(
        holder="John Smith",
        customer_id="C1001",
        line_id="L1002",
        phone_number="555-123-2002",
        date_of_birth="1985-06-15",
        created_at="2025-01-15T10:30:00",
        zip_code="90210",
        first_payment_method="Credit Card",
        line_ids=("L1001", "L1002", "L1003"),
        data_used_gb=8.7,
        data_limit_gb=15.0,
        refuel_price_per_gb=2.0,
        plan_id="P1002",
        plan_price=65.0,
        contract_end_date="2026-12-31",
        paid_bill=BillOf("B1001", 160.5),
        issued_bill=BillOf("B1002", 150.0),
        draft_bill=BillOf("B1003", 0.0),
        bills_newest_first=("B1003", "B1002", "B1001"),
        oldest_bill_first_item_date="2025-01-05",
    ),
    second_line=LineOf("John Smith", "C1001", "L1001", "555-123-2001"),
    suspended_line=LineOf("John Smith", "C1001", "L1003", "555-123-2003"),
    roaming_line=LineOf("Sarah Johnson", "C1002", "L1006", "555-123-2006"),
    overdue=OverdueCustomer(
        holder="Sarah Johnson",
        customer_id="C1002",
        line_id="L1004",
        phone_number="555-123-2004",
        overdue_bill_id="B1005",
        refuel_price_per_gb=0.1,
        new_draft_bill_id="B1002-202503",
    ),
    primary_number_only=("C1003", "555-123-1003"),
    unverified_customer_id="C1004",
    records_by_prefix={
        "L": ("L1002", "phone_number", "555-123-2002"),
        "D": ("D1002", "last_esim_transfer_date", "2025-01-20T09:30:00"),
        "B": ("B1002", "status", "Issued"),
        "C": ("C1004", "account_status", "Pending Verification"),
        "P": ("P1002", "data_refueling_price_per_gb", 2.0),
    },
    record_counts=(5, 4, 9, 9, 6),
    payment_method_count=4,
)
"""τ²-bench's data, for conformance; absent beside some checkouts."""

DATA_SETS = (OWN, REFERENCE)


def run(world: World, side: str, name: str, /, **arguments: Any) -> ToolResult:
    """Run an actor tool through `World.call`, any other function through `run_env_function`."""
    tool = world.tools.tool(name)
    if tool is not None and tool.side is Side(side):
        return world.call(side, name, arguments)
    return world.run_env_function(side, name, arguments)


def ok(world: World, side: str, name: str, /, **arguments: Any) -> Any:
    """Run an operation that must succeed; its content."""
    result = run(world, side, name, **arguments)
    assert result.ok, f"{name}({arguments}) failed: {result.error}"
    return result.content


def observe(world: World, side: str, name: str, /, **arguments: Any) -> Observation:
    """Run an assertion that must succeed; what it says and what it observed."""
    verdict = Observation.of(ok(world, side, name, **arguments))
    assert verdict is not None, f"{name} returned no verdict"
    return verdict


def holds(world: World, side: str, name: str, /, **arguments: Any) -> bool:
    """Run an assertion that must succeed; whether it holds."""
    return observe(world, side, name, **arguments).holds


def fails(world: World, side: str, name: str, code: ErrorCode, /, **arguments: Any) -> str:
    """Run an operation that must fail with `code` and change nothing; its error message."""
    before = world.fingerprint()
    result = run(world, side, name, **arguments)
    assert not result.ok and result.error is not None, f"{name}({arguments}) unexpectedly succeeded"
    assert result.error.code is code, result.error
    assert world.fingerprint() == before, f"failing {name} changed the state"
    return result.error.message


def state(world: World) -> TelecomState:
    """The world's state with its concrete type."""
    assert isinstance(world.state, TelecomState)
    return world.state


def crm(source: World | TelecomState) -> TelecomDB:
    """The CRM of a world or of a state."""
    return (state(source) if isinstance(source, World) else source).crm


def customer(source: World | TelecomState, customer_id: str) -> Customer:
    """The customer record with this ID."""
    return next(record for record in crm(source).customers if record.customer_id == customer_id)


def line(source: World | TelecomState, line_id: str) -> Line:
    """The line record with this ID."""
    return next(record for record in crm(source).lines if record.line_id == line_id)


def bill(source: World | TelecomState, bill_id: str) -> Bill:
    """The bill record with this ID."""
    return next(record for record in crm(source).bills if record.bill_id == bill_id)


def plan(source: World | TelecomState, plan_id: str) -> Plan:
    """The plan record with this ID."""
    return next(record for record in crm(source).plans if record.plan_id == plan_id)


def make_world(data: TelecomData, bind: bool = True) -> World:
    """A fresh world on `data`, bound to its subscriber's number unless `bind` is false."""
    world = World.create(DOMAIN, data.directory)
    if bind:
        ok(world, "user", "set_user_info", **data.subscriber.user_info)
    return world
