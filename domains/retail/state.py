"""The retail database: a product catalog with variants, users, and orders.

Records are immutable and shared between worlds; a write replaces a record by an updated copy in the
world's own maps, so a fresh world is three shallow dict copies however large the database is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

DATA_DIR = Path(__file__).parent / "data"
"""The pack's own data directory, laid out as τ²-bench's (`db.json`, `policy.md`, `tasks.json`)."""

OrderStatus = Literal[
    "pending",
    "processed",
    "delivered",
    "cancelled",
    "pending (item modified)",
    "exchange requested",
    "return requested",
]
CancelReason = Literal["no longer needed", "ordered by mistake"]


class Record(BaseModel):
    """An immutable record; unknown keys in data files are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class Variant(Record):
    """One purchasable option set of a product."""

    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(Record):
    """A product type and its variants by item id."""

    name: str
    product_id: str
    variants: dict[str, Variant]


class Name(Record):
    first_name: str
    last_name: str


class Address(Record):
    address1: str
    address2: str
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
    balance: float


class Paypal(Record):
    source: Literal["paypal"]
    id: str


PaymentMethod = Annotated[CreditCard | GiftCard | Paypal, Field(discriminator="source")]


class User(Record):
    """A customer profile with its default address and order ids."""

    user_id: str
    name: Name
    address: Address
    email: str
    payment_methods: dict[str, PaymentMethod]
    orders: list[str]


class OrderItem(Record):
    name: str
    product_id: str
    item_id: str
    price: float
    options: dict[str, str]


class Fulfillment(Record):
    tracking_id: list[str]
    item_ids: list[str]


class OrderPayment(Record):
    transaction_type: Literal["payment", "refund"]
    amount: float
    payment_method_id: str


class Order(Record):
    """An order, its payments, and any cancellation, exchange or return requested on it."""

    order_id: str
    user_id: str
    address: Address
    items: list[OrderItem]
    status: OrderStatus
    fulfillments: list[Fulfillment]
    payment_history: list[OrderPayment]
    cancel_reason: CancelReason | None = None
    exchange_items: list[str] | None = None
    exchange_new_items: list[str] | None = None
    exchange_payment_method_id: str | None = None
    exchange_price_difference: float | None = None
    return_items: list[str] | None = None
    return_payment_method_id: str | None = None


class RetailDB(BaseModel):
    """The whole retail world (agent side only; the customer holds no state)."""

    model_config = ConfigDict(extra="forbid")

    products: dict[str, Product] = Field(default_factory=dict)
    users: dict[str, User] = Field(default_factory=dict)
    orders: dict[str, Order] = Field(default_factory=dict)


def fresh_copy(state: RetailDB) -> RetailDB:
    """A new world sharing every (immutable) record with `state`."""
    return RetailDB.model_construct(
        products=dict(state.products), users=dict(state.users), orders=dict(state.orders)
    )
