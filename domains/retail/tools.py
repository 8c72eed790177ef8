"""The retail agent's tools, with τ²-bench's behaviour, error texts, check order and float arithmetic
(quirks included: an items change copies the last new variant's price and options onto every changed
item; returns and exchanges move no money).

Every write builds the changed records first and stores them only once nothing can fail any more, so a
failed call changes nothing; stored records are replaced, never mutated (they are shared between worlds).
"""

from __future__ import annotations

import json
from collections import Counter

from tau2 import ErrorCode, Side, ToolError, ToolKind, ToolSet

from ..tau_common.arithmetic import calculate as evaluate_expression
from .state import (
    Address,
    GiftCard,
    Order,
    OrderItem,
    OrderPayment,
    PaymentMethod,
    Product,
    RetailDB,
    User,
    Variant,
)

AGENT_TOOLS = ToolSet(Side.AGENT)

CANCEL_REASONS = ("no longer needed", "ordered by mistake")


def _order(db: RetailDB, order_id: str) -> Order:
    order = db.orders.get(order_id)
    if order is None:
        raise ToolError(ErrorCode.NOT_FOUND, "Order not found")
    return order


def _user(db: RetailDB, user_id: str) -> User:
    user = db.users.get(user_id)
    if user is None:
        raise ToolError(ErrorCode.NOT_FOUND, "User not found")
    return user


def _method(user: User, payment_method_id: str) -> PaymentMethod:
    method = user.payment_methods.get(payment_method_id)
    if method is None:
        raise ToolError(ErrorCode.NOT_FOUND, "Payment method not found")
    return method


def _with_balance(user: User, card: GiftCard, balance: float) -> User:
    """The user with gift card `card` holding `balance`."""
    methods = {**user.payment_methods, card.id: card.model_copy(update={"balance": balance})}
    return user.model_copy(update={"payment_methods": methods})


def _missing_item(order: Order, item_ids: list[str]) -> str | None:
    """The first requested id asked for more often than the order holds it, or None."""
    held = Counter(item.item_id for item in order.items)
    wanted = Counter(item_ids)
    return next((item_id for item_id in item_ids if wanted[item_id] > held[item_id]), None)


def _first_item(items: list[OrderItem], item_id: str) -> OrderItem:
    return next(item for item in items if item.item_id == item_id)


def _new_variant(db: RetailDB, item: OrderItem, new_item_id: str) -> Variant:
    """The available variant `new_item_id` of the product of `item`."""
    product = db.products[item.product_id]
    variant = product.variants.get(new_item_id)
    if variant is None:
        raise ToolError(ErrorCode.NOT_FOUND, "Variant not found")
    if not variant.available:
        raise ToolError(ErrorCode.INVALID_STATE, f"New item {new_item_id} not found or available")
    return variant


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def calculate(db: RetailDB, expression: str) -> str:
    """Evaluate an arithmetic expression and return the value rounded to two decimals.

    Args:
        expression: Numbers combined with + - * / and parentheses (spaces allowed), e.g. '(59.9 - 12.5) * 2'.
    """
    return evaluate_expression(expression)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def cancel_pending_order(db: RetailDB, order_id: str, reason: str) -> Order:
    """Cancel an order that is still pending and refund it. Gift-card payments return to the card at
    once; other refunds take 5-7 business days. Describe the cancellation and get the customer's "yes" first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        reason: Exactly 'no longer needed' or 'ordered by mistake'.
    """
    order = _order(db, order_id)
    if order.status != "pending":
        raise ToolError(ErrorCode.INVALID_STATE, "Non-pending order cannot be cancelled")
    if reason not in CANCEL_REASONS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Invalid reason")
    user = db.users[order.user_id]
    refunds = []
    for payment in order.payment_history:
        method = _method(user, payment.payment_method_id)
        refunds.append(
            OrderPayment(
                transaction_type="refund", amount=payment.amount, payment_method_id=payment.payment_method_id
            )
        )
        if isinstance(method, GiftCard):
            user = _with_balance(user, method, round(method.balance + payment.amount, 2))
    cancelled = order.model_copy(
        update={
            "status": "cancelled",
            "cancel_reason": reason,
            "payment_history": [*order.payment_history, *refunds],
        }
    )
    db.users[user.user_id] = user
    db.orders[order_id] = cancelled
    return cancelled


@AGENT_TOOLS.tool(ToolKind.WRITE)
def exchange_delivered_order_items(
    db: RetailDB, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> Order:
    """Request an exchange of delivered items for other available items of the same product. Each
    delivered order allows one exchange or return, so collect every item first; describe the exchange and
    get the customer's "yes" first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        item_ids: Items to send back, each an item id such as '1008292230'; an id may appear more than once.
        new_item_ids: Replacement items, position by position: each of the same product as the item it
            replaces, each an item id such as '1008292230'; an id may appear more than once.
        payment_method_id: A payment method id from the user's profile, e.g. 'gift_card_0000000' or
            'credit_card_0000000'. It pays or receives the price difference.
    """
    order = _order(db, order_id)
    if order.status != "delivered":
        raise ToolError(ErrorCode.INVALID_STATE, "Non-delivered order cannot be exchanged")
    missing = _missing_item(order, item_ids)
    if missing is not None:
        raise ToolError(ErrorCode.NOT_FOUND, f"Number of {missing} not found.")
    if len(item_ids) != len(new_item_ids):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "The number of items to be exchanged should match.")
    difference = 0.0
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        item = _first_item(order.items, item_id)
        difference += _new_variant(db, item, new_item_id).price - item.price
    difference = round(difference, 2)
    method = _method(db.users[order.user_id], payment_method_id)
    if isinstance(method, GiftCard) and method.balance < difference:
        raise ToolError(
            ErrorCode.INVALID_STATE, "Insufficient gift card balance to pay for the price difference"
        )
    updated = order.model_copy(
        update={
            "status": "exchange requested",
            "exchange_items": sorted(item_ids),
            "exchange_new_items": sorted(new_item_ids),
            "exchange_payment_method_id": payment_method_id,
            "exchange_price_difference": difference,
        }
    )
    db.orders[order_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.READ)
def find_user_id_by_name_zip(db: RetailDB, first_name: str, last_name: str, zip: str) -> str:
    """Find a user's id from their first name, last name and zip code. Try the email lookup first; use
    this one when that fails or the customer does not remember their email.

    Args:
        first_name: First name, e.g. 'John'.
        last_name: Last name, e.g. 'Doe'.
        zip: Zip code of the user's default address, e.g. '12345'.
    """
    for user in db.users.values():
        if (
            user.name.first_name.lower() == first_name.lower()
            and user.name.last_name.lower() == last_name.lower()
            and user.address.zip == zip
        ):
            return user.user_id
    raise ToolError(ErrorCode.NOT_FOUND, "User not found")


@AGENT_TOOLS.tool(ToolKind.READ)
def find_user_id_by_email(db: RetailDB, email: str) -> str:
    """Find a user's id from their email address.

    Args:
        email: The email address, e.g. 'someone@example.com'.
    """
    for user in db.users.values():
        if user.email.lower() == email.lower():
            return user.user_id
    raise ToolError(ErrorCode.NOT_FOUND, "User not found")


@AGENT_TOOLS.tool(ToolKind.READ)
def get_order_details(db: RetailDB, order_id: str) -> Order:
    """Look up an order: status, items, address, fulfilments and payments.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
    """
    return _order(db, order_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def get_product_details(db: RetailDB, product_id: str) -> Product:
    """Look up a product type and all of its items (options, price, availability).

    Args:
        product_id: The product's id, e.g. '6086499569' (not an item id).
    """
    product = db.products.get(product_id)
    if product is None:
        raise ToolError(ErrorCode.NOT_FOUND, "Product not found")
    return product


@AGENT_TOOLS.tool(ToolKind.READ)
def get_item_details(db: RetailDB, item_id: str) -> Variant:
    """Look up one item (a variant of a product): its options, availability and price.

    Args:
        item_id: The item's id, e.g. '1008292230' (not a product id).
    """
    for product in db.products.values():
        variant = product.variants.get(item_id)
        if variant is not None:
            return variant
    raise ToolError(ErrorCode.NOT_FOUND, "Item not found")


@AGENT_TOOLS.tool(ToolKind.READ)
def get_user_details(db: RetailDB, user_id: str) -> User:
    """Look up a user profile: name, address, email, payment methods and order ids.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
    """
    return _user(db, user_id)


@AGENT_TOOLS.tool(ToolKind.READ)
def list_all_product_types(db: RetailDB) -> str:
    """List every product type of the shop (50 of them) with its product id; each type has several
    items with their own ids and options."""
    return json.dumps({product.name: product.product_id for product in db.products.values()}, sort_keys=True)


def _address(address1: str, address2: str, city: str, state: str, country: str, zip: str) -> Address:
    return Address(address1=address1, address2=address2, city=city, state=state, country=country, zip=zip)


@AGENT_TOOLS.tool(ToolKind.WRITE)
def modify_pending_order_address(
    db: RetailDB,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> Order:
    """Change the shipping address of a pending order. Describe the change and get the customer's "yes"
    first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        address1: Street line, e.g. '123 Main St'.
        address2: Second line (apartment, suite), or '' when there is none.
        city: City, e.g. 'San Francisco'.
        state: State code, e.g. 'CA'.
        country: Country, e.g. 'USA'.
        zip: Postal code, e.g. '12345'.
    """
    order = _order(db, order_id)
    if "pending" not in order.status:
        raise ToolError(ErrorCode.INVALID_STATE, "Non-pending order cannot be modified")
    updated = order.model_copy(update={"address": _address(address1, address2, city, state, country, zip)})
    db.orders[order_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def modify_pending_order_items(
    db: RetailDB, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> Order:
    """Swap items of a pending order for other available items of the same product. Possible only once
    per order, so collect every item first; describe the change and get the customer's "yes" first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        item_ids: Items to replace, each an item id such as '1008292230'; an id may appear more than once.
        new_item_ids: Replacement items, position by position: each of the same product as the item it
            replaces, each an item id such as '1008292230'; an id may appear more than once.
        payment_method_id: A payment method id from the user's profile, e.g. 'gift_card_0000000' or
            'credit_card_0000000'. It pays or receives the price difference.
    """
    order = _order(db, order_id)
    if order.status != "pending":
        raise ToolError(ErrorCode.INVALID_STATE, "Non-pending order cannot be modified")
    missing = _missing_item(order, item_ids)
    if missing is not None:
        raise ToolError(ErrorCode.NOT_FOUND, f"{missing} not found")
    if len(item_ids) != len(new_item_ids):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "The number of items to be exchanged should match")
    difference = 0.0
    variant: Variant | None = None
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        if item_id == new_item_id:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT, "The new item id should be different from the old item id"
            )
        item = _first_item(order.items, item_id)
        variant = _new_variant(db, item, new_item_id)
        difference += variant.price - item.price
    user = db.users[order.user_id]
    method = _method(user, payment_method_id)
    if isinstance(method, GiftCard):
        if method.balance < difference:
            raise ToolError(ErrorCode.INVALID_STATE, "Insufficient gift card balance to pay for the new item")
        user = _with_balance(user, method, round(method.balance - difference, 2))
    entry = OrderPayment(
        transaction_type="payment" if difference > 0 else "refund",
        amount=abs(difference),
        payment_method_id=payment_method_id,
    )
    items = list(order.items)
    for item_id, new_item_id in zip(item_ids, new_item_ids, strict=True):
        assert variant is not None  # the loop above ran over the same pairs
        index = next(index for index, item in enumerate(items) if item.item_id == item_id)
        # τ²-bench copies the last pair's variant price and options onto every changed item.
        items[index] = items[index].model_copy(
            update={"item_id": new_item_id, "price": variant.price, "options": dict(variant.options)}
        )
    updated = order.model_copy(
        update={
            "items": items,
            "status": "pending (item modified)",
            "payment_history": [*order.payment_history, entry],
        }
    )
    db.users[user.user_id] = user
    db.orders[order_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def modify_pending_order_payment(db: RetailDB, order_id: str, payment_method_id: str) -> Order:
    """Pay a pending order with a different payment method; the old one is refunded. Describe the change
    and get the customer's "yes" first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        payment_method_id: A payment method id from the user's profile, e.g. 'gift_card_0000000' or
            'credit_card_0000000'. It must differ from the current one.
    """
    order = _order(db, order_id)
    if "pending" not in order.status:
        raise ToolError(ErrorCode.INVALID_STATE, "Non-pending order cannot be modified")
    user = db.users[order.user_id]
    method = _method(user, payment_method_id)
    history = order.payment_history
    if len(history) != 1 or history[0].transaction_type != "payment":
        raise ToolError(ErrorCode.INVALID_STATE, "There should be exactly one payment for a pending order")
    current = history[0]
    if current.payment_method_id == payment_method_id:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, "The new payment method should be different from the current one"
        )
    amount = current.amount
    if isinstance(method, GiftCard):
        if method.balance < amount:
            raise ToolError(ErrorCode.INVALID_STATE, "Insufficient gift card balance to pay for the order")
        user = _with_balance(user, method, round(method.balance - amount, 2))
    old_method = user.payment_methods.get(current.payment_method_id)
    if isinstance(old_method, GiftCard):
        user = _with_balance(user, old_method, round(old_method.balance + amount, 2))
    entries = [
        OrderPayment(transaction_type="payment", amount=amount, payment_method_id=payment_method_id),
        OrderPayment(transaction_type="refund", amount=amount, payment_method_id=current.payment_method_id),
    ]
    updated = order.model_copy(update={"payment_history": [*history, *entries]})
    db.users[user.user_id] = user
    db.orders[order_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def modify_user_address(
    db: RetailDB,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> User:
    """Change a user's default address (existing orders keep theirs). Describe the change and get the
    customer's "yes" first.

    Args:
        user_id: The user's id, e.g. 'sara_doe_496'.
        address1: Street line, e.g. '123 Main St'.
        address2: Second line (apartment, suite), or '' when there is none.
        city: City, e.g. 'San Francisco'.
        state: State code, e.g. 'CA'.
        country: Country, e.g. 'USA'.
        zip: Postal code, e.g. '12345'.
    """
    user = _user(db, user_id)
    updated = user.model_copy(update={"address": _address(address1, address2, city, state, country, zip)})
    db.users[user_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.WRITE)
def return_delivered_order_items(
    db: RetailDB, order_id: str, item_ids: list[str], payment_method_id: str
) -> Order:
    """Request a return of delivered items; the order becomes 'return requested' and the customer gets
    an email with instructions. Each delivered order allows one exchange or return; describe the return and
    get the customer's "yes" first.

    Args:
        order_id: Order id including its leading '#', e.g. '#W0000000'.
        item_ids: Items to return, each an item id such as '1008292230'; an id may appear more than once.
        payment_method_id: A payment method id from the user's profile, e.g. 'gift_card_0000000' or
            'credit_card_0000000'. It receives the refund: the original method or a gift card.
    """
    order = _order(db, order_id)
    if order.status != "delivered":
        raise ToolError(ErrorCode.INVALID_STATE, "Non-delivered order cannot be returned")
    method = _method(db.users[order.user_id], payment_method_id)
    if not isinstance(method, GiftCard) and payment_method_id != order.payment_history[0].payment_method_id:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Payment method should be the original payment method")
    if _missing_item(order, item_ids) is not None:
        raise ToolError(ErrorCode.NOT_FOUND, "Some item not found")
    updated = order.model_copy(
        update={
            "status": "return requested",
            "return_items": sorted(item_ids),
            "return_payment_method_id": payment_method_id,
        }
    )
    db.orders[order_id] = updated
    return updated


@AGENT_TOOLS.tool(ToolKind.GENERIC)
def transfer_to_human_agents(db: RetailDB, summary: str) -> str:
    """Hand the customer over to a human agent. Use it only when the customer asks for a person, or when
    the request cannot be handled with your tools within the policy.

    Args:
        summary: A short account of what the customer needs, for the human agent.
    """
    return "Transfer successful"
