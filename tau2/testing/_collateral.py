"""The collateral oracle (`--agent tau2.testing:collateral_oracle`): the oracle agent plus one write, as its
first turn, to a record its task never mentions (another customer's line suspended, a certificate sent to
another traveller, another shopper's address or another bank customer's email changed), so tests and
demonstrations can see collateral damage recorded beside a reward that, in telecom, does not notice it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from pydantic import JsonValue

from tau2.actors import Actor, ActorKind, ActorSpec, actor_kind
from tau2.episode import ActorTurn, Entry, Mode, SeatContext, ToolCall, hand_world_view
from tau2.world import Side, WorldView

NAME: Final = "tau2.testing:collateral_oracle"
CALL_ID: Final = "collateral-1"

Mentions = Callable[[object], bool]
"""Whether the task mentions a value anywhere in its text (its briefs, setup, solution, assertions)."""
Finder = Callable[[Mapping[str, Any], Mentions], dict[str, JsonValue] | None]
"""The arguments of one tool's call on a record the task never mentions, read from the state's JSON."""


def _telecom_line(state: Mapping[str, Any], mentions: Mentions) -> dict[str, JsonValue] | None:
    """`suspend_line` on an active line of a customer the task never names (nor any of their lines)."""
    lines = {line["line_id"]: line for line in state["crm"]["lines"]}
    for customer in state["crm"]["customers"]:
        owned = [lines[line_id] for line_id in customer["line_ids"] if line_id in lines]
        values = [customer["customer_id"], customer["full_name"], customer["phone_number"]]
        values += [value for line in owned for value in (line["line_id"], line["phone_number"])]
        if any(mentions(value) for value in values):
            continue
        for line in owned:
            if line["status"] == "Active":
                return {
                    "customer_id": customer["customer_id"],
                    "line_id": line["line_id"],
                    "reason": "collateral test",
                }
    return None


def _airline_user(state: Mapping[str, Any], mentions: Mentions) -> dict[str, JsonValue] | None:
    """`send_certificate` of $50 to a traveller the task never names."""
    for user_id, _ in _unmentioned(state["users"], mentions):
        return {"user_id": user_id, "amount": 50}
    return None


def _retail_user(state: Mapping[str, Any], mentions: Mentions) -> dict[str, JsonValue] | None:
    """`modify_user_address` of a shopper the task never names, to another street of their city."""
    for user_id, user in _unmentioned(state["users"], mentions):
        address = user["address"]
        return {
            "user_id": user_id,
            "address1": "1 Collateral Street",
            "address2": "",
            "city": address["city"],
            "state": address["state"],
            "country": address["country"],
            "zip": address["zip"],
        }
    return None


def _banking_user(state: Mapping[str, Any], mentions: Mentions) -> dict[str, JsonValue] | None:
    """`change_user_email` of a bank customer the task never names."""
    for user_id, _ in _unmentioned(state["users"]["data"], mentions):
        return {"user_id": user_id, "new_email": f"collateral.{user_id}@example.com"}
    return None


def _unmentioned(users: Mapping[str, Any], mentions: Mentions) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The users (by id) whose id, name and email the task never mentions."""
    for user_id, user in users.items():
        name = user.get("name")
        names = [name.get("first_name"), name.get("last_name")] if isinstance(name, dict) else [name]
        if not any(mentions(value) for value in (user_id, user.get("email"), *names)):
            yield user_id, user


FINDERS: Final[Mapping[str, Finder]] = {
    "suspend_line": _telecom_line,
    "send_certificate": _airline_user,
    "modify_user_address": _retail_user,
    "change_user_email": _banking_user,
}
"""The collateral writes the oracle knows, by the agent tool that makes them (the domains holding it)."""


class CollateralOracle:
    """Takes its first turn to call one of `FINDERS`' tools on a record its task never mentions (read from
    the episode's world view), then plays the oracle; the write fails the episode only where the reward
    compares the database."""

    def __init__(self, oracle: Actor) -> None:
        self._oracle = oracle
        self._view: WorldView | None = None
        self._context: SeatContext | None = None
        self._written = False

    async def start(self, context: SeatContext) -> None:
        """Start the oracle; the collateral write is still to come."""
        self._context = context
        self._written = False
        await self._oracle.start(context)

    def observe_world(self, view: WorldView) -> None:
        """Keep the world's view (to find the uninvolved record) and hand it to the oracle."""
        self._view = view
        hand_world_view(self._oracle, view)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """The collateral write first, then the oracle's turns."""
        if self._written:
            return await self._oracle.act(observation)
        self._written = True
        name, arguments = self._collateral_call()
        return ActorTurn(tool_calls=[ToolCall(call_id=CALL_ID, name=name, arguments=arguments)])

    def _collateral_call(self) -> tuple[str, dict[str, JsonValue]]:
        """The first of `FINDERS`' tools the seat holds that finds an uninvolved record."""
        assert self._context is not None, "start() comes before act()"
        if self._view is None:
            raise RuntimeError(f"{NAME} needs the episode's world view to find an uninvolved record")
        held = {schema["function"]["name"] for schema in self._context.tool_schemas}
        state = json.loads(self._view.snapshot())
        text = self._context.task.model_dump_json()

        def mentions(value: object) -> bool:
            return isinstance(value, str) and bool(value) and value in text

        for name, finder in FINDERS.items():
            if name in held and (arguments := finder(state, mentions)) is not None:
                return name, arguments
        raise RuntimeError(
            f"{NAME}: no record the task leaves alone to write with a tool it knows "
            f"({', '.join(FINDERS)}) in domain {self._context.task.domain}"
        )


def collateral_kind() -> ActorKind:
    """The kind `tau2.testing:collateral_oracle`: an agent that pairs with whatever the oracle pairs with."""

    def build(spec: ActorSpec, mode: Mode) -> Actor:
        oracle = actor_kind("oracle").factories[Side.AGENT](spec.model_copy(update={"kind": "oracle"}), mode)
        return CollateralOracle(oracle)

    return ActorKind(
        NAME,
        {Side.AGENT: build},
        description="the oracle plus one write to a record its task never mentions (for tests)",
        pairs_with=frozenset({"scripted", "null", "human", "llm"}),
    )
