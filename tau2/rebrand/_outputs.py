"""A renamed task's expected outputs and texts with the values its replay traced: the numbers the agent must
say, and the amounts of money the brief, the ticket and the assertions write."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from tau2.rebrand._documents import task_texts
from tau2.rebrand._numbers import MONEY, PLAIN, decimals_of, money_mentions, to_decimal, written
from tau2.rebrand._renaming import Renaming
from tau2.tasks import Task


def with_values(task: Task, values: Mapping[Decimal, Decimal], renaming: Renaming) -> Task:
    """A renamed task's texts with the traced values: numbers the agent must say, amounts of money the
    brief and the assertions write. With a rule that changes every amount of money, the other amounts the
    texts write change by it, and so does a number the agent must say that the texts write as money."""
    everywhere = next((rule for rule in renaming.rules if rule.money_in_texts), None)
    if not values and everywhere is None:
        return task
    amounts = {to_decimal(match["amount"]) for text in task_texts([task]) for match in MONEY.finditer(text)}

    def money(value: Decimal) -> Decimal | None:
        traced = values.get(value)
        if traced is not None or everywhere is None:
            return traced
        return everywhere.change(value)

    def text(value: str) -> str:
        return money_mentions(value, money)

    def item(value: str) -> str:
        if PLAIN.match(value.replace(",", "")):
            number = to_decimal(value)
            new = values.get(number)
            if new is None and number in amounts:
                new = money(number)
            if new is not None:
                return written(new, decimals_of(value), thousands="," in value)
        return text(value)

    return _texts_changed(task, text, item)


def _texts_changed(task: Task, text: Callable[[str], str], item: Callable[[str], str]) -> Task:
    """`task` with `text` applied to its brief, ticket, purpose and assertions, `item` to the information
    the agent must communicate."""
    scenario = task.user_scenario
    instructions = scenario.instructions
    if isinstance(instructions, str):
        new_instructions: Any = text(instructions)
    else:
        new_instructions = instructions.model_copy(
            update={
                "reason_for_call": text(instructions.reason_for_call),
                "known_info": None if instructions.known_info is None else text(instructions.known_info),
                "unknown_info": None
                if instructions.unknown_info is None
                else text(instructions.unknown_info),
                "task_instructions": text(instructions.task_instructions),
            }
        )
    evaluation = task.evaluation
    return task.model_copy(
        update={
            "user_scenario": scenario.model_copy(update={"instructions": new_instructions}),
            "ticket": None if task.ticket is None else text(task.ticket),
            "purpose": None if task.purpose is None else text(task.purpose),
            "evaluation": evaluation.model_copy(
                update={
                    "communicate_info": None
                    if evaluation.communicate_info is None
                    else [item(value) for value in evaluation.communicate_info],
                    "nl_assertions": None
                    if evaluation.nl_assertions is None
                    else [text(value) for value in evaluation.nl_assertions],
                }
            ),
        }
    )
