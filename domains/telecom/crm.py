"""The carrier's back-office database (agent side): plans, customers, lines, bills and devices (spec §1.1)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from pydantic import Field

from tau2.domains.telecom.record import Record


class DeviceType(StrEnum):
    """Kind of customer equipment attached to a line."""

    PHONE = "phone"
    ROUTER = "router"
    TABLET = "tablet"
    WATCH = "watch"
    OTHER = "other"


class LineStatus(StrEnum):
    """Lifecycle status of a phone line."""

    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_ACTIVATION = "Pending Activation"
    CLOSED = "Closed"


class BillStatus(StrEnum):
    """Lifecycle status of a bill (six values)."""

    DRAFT = "Draft"
    ISSUED = "Issued"
    AWAITING_PAYMENT = "Awaiting Payment"
    PAID = "Paid"
    OVERDUE = "Overdue"
    DISPUTED = "Disputed"


class AccountStatus(StrEnum):
    """Status of a customer account."""

    ACTIVE = "Active"
    SUSPENDED = "Suspended"
    PENDING_VERIFICATION = "Pending Verification"
    CLOSED = "Closed"


class PaymentMethodType(StrEnum):
    """Kinds of stored payment methods."""

    CREDIT_CARD = "Credit Card"
    DEBIT_CARD = "Debit Card"
    PAYPAL = "PayPal"


class Plan(Record):
    """A monthly service plan with its data allowance and prices."""

    plan_id: str
    name: str
    data_limit_gb: float
    price_per_month: float
    data_refueling_price_per_gb: float


class Device(Record):
    """A piece of customer equipment known to the carrier."""

    device_id: str
    device_type: DeviceType
    model: str
    imei: str | None = None
    is_esim_capable: bool
    activated: bool = False
    activation_date: dt.datetime | None = None
    last_esim_transfer_date: dt.datetime | None = None


class Line(Record):
    """A phone line: its number, plan, status and current-cycle data usage."""

    line_id: str
    phone_number: str
    status: LineStatus = LineStatus.PENDING_ACTIVATION
    plan_id: str
    device_id: str | None = None
    data_used_gb: float = 0.0
    data_refueling_gb: float = 0.0
    roaming_enabled: bool = False
    contract_end_date: dt.date | None = None
    last_plan_change_date: dt.date | None = None
    last_sim_replacement_date: dt.date | None = None
    suspension_start_date: dt.date | None = None


class LineItem(Record):
    """One charge (positive) or credit (negative) on a bill."""

    description: str
    amount: float
    date: dt.date
    item_type: str


class Bill(Record):
    """A customer's bill for one period."""

    bill_id: str
    customer_id: str
    period_start: dt.date
    period_end: dt.date
    issue_date: dt.date
    due_date: dt.date
    total_due: float
    line_items: list[LineItem] = Field(default_factory=list)
    status: BillStatus = BillStatus.DRAFT


class Address(Record):
    """A postal address."""

    street: str
    city: str
    state: str
    zip_code: str


class PaymentMethod(Record):
    """A stored payment method (only the last four digits are kept)."""

    method_type: PaymentMethodType
    account_number_last_4: str
    expiration_date: str


class Customer(Record):
    """A customer account with its lines and bills (lists keep their order: first-match rules use it)."""

    customer_id: str
    full_name: str
    date_of_birth: str
    email: str
    phone_number: str
    address: Address
    account_status: AccountStatus = AccountStatus.PENDING_VERIFICATION
    payment_methods: list[PaymentMethod] = Field(default_factory=list)
    line_ids: list[str] = Field(default_factory=list)
    bill_ids: list[str] = Field(default_factory=list)
    created_at: dt.datetime = dt.datetime(2025, 1, 1)
    last_extension_date: dt.date | None = None
    goodwill_credit_used_this_year: float = 0.0


class TelecomDB(Record):
    """The whole CRM database; entities refer to each other by ID only."""

    plans: list[Plan] = Field(default_factory=list)
    customers: list[Customer] = Field(default_factory=list)
    lines: list[Line] = Field(default_factory=list)
    bills: list[Bill] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)
