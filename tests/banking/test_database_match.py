"""A banking run that stores `1` where τ²-bench's reference stores `true` fails the database match, as it
fails τ²-bench's hash comparison (Python alone would call the two databases equal)."""

from __future__ import annotations

from pathlib import Path

from tau2 import initialize_world, load_task_file
from tau2.episode._basis import database_check


def test_a_banking_run_that_orders_expedited_shipping_with_1_fails_as_in_tau2bench(
    banking_data: Path,
) -> None:
    """τ²-bench's task 36 orders a replacement card with `"expedited_shipping": true`; the same call with
    `1` stores `1.0` (numbers in a hidden tool's arguments are read as floats), which its hash tells apart."""
    (task,) = [
        task for task in load_task_file(banking_data / "tasks", "banking_knowledge") if task.id == "task_036"
    ]
    world = initialize_world(task, banking_data)
    for step in task.evaluation.solution:
        arguments = dict(step.arguments)
        if isinstance(arguments.get("arguments"), str):
            arguments["arguments"] = arguments["arguments"].replace(
                '"expedited_shipping": true', '"expedited_shipping": 1'
            )
        world.call(step.side, step.name, arguments)
    orders = world.state.credit_card_orders.data.values()
    assert [order["expedited_shipping"] for order in orders if order.get("expedited_shipping") == 1] == [1.0]
    assert database_check(task, world, banking_data, gating=True).passed is False
