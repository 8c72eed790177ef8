"""Executing a prepared run on Ray: one async actor per worker, each with its own event loop and many
simulations in flight, on a local or remote Ray cluster; the driver stays the run's single writer.

Ray restarts an actor that dies and retries the simulations it had in flight (a record is written only when
one comes back, so nothing is written twice). Every node needs tau2, and the run's suite and data
directory at the same paths, since actors read them as the driver does. Needs the `ray` extra.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from tau2.errors import UserInputError
from tau2.llm import AuthenticationError, call_settings, default_limits
from tau2.runner._driver import Driver
from tau2.runner._execute import judge_of, simulate
from tau2.runner._plan import Unit
from tau2.runner._prepare import PreparedRun
from tau2.runner._workers import RESTARTS_PER_WORKER, WorkerSetup, split_concurrency
from tau2.runs import SimulationRecord

_REFUSED = "!"
"""Actor to driver, before the error's text: the provider refused the credentials; stop the run."""


class SimulationActor:
    """A Ray actor running simulations of one run on its own event loop (its methods are coroutines)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self._setup = setup
        self._judge = judge_of(setup.prepared.manifest)
        for key, limit in setup.limits.items():
            default_limits().configure(key, limit)

    async def simulate(self, unit: str) -> str:
        """Simulate one unit (as JSON) and return its record as JSON, or `!` and the reason when the
        provider refused the credentials (not an error: Ray would retry it)."""
        setup = self._setup
        try:
            with call_settings(retry=setup.retry):
                record = await simulate(setup.prepared, Unit.model_validate_json(unit), self._judge)
        except AuthenticationError as error:
            return _REFUSED + str(error)
        return record.model_dump_json()


def _ray() -> Any:
    """Import Ray, or explain how to install it."""
    try:
        import ray
    except ImportError:
        raise UserInputError("the ray executor (--ray) needs Ray: pip install 'tau2[ray]'") from None
    return ray


async def execute_on_ray(prepared: PreparedRun, driver: Driver) -> None:
    """Simulate every pending unit on `prepared.config.executor.workers` Ray actors, handing each record
    to the driver as it comes back. The executor's address names the cluster: `auto`, host:port, or
    `local` for a new local cluster."""
    ray = _ray()
    if not prepared.units:
        return
    executor = prepared.config.executor
    setup = WorkerSetup.of(prepared)
    slots = split_concurrency(min(prepared.config.concurrency, len(prepared.units)), executor.workers)
    if not ray.is_initialized():
        ray.init(address=None if executor.address == "local" else executor.address, log_to_driver=False)
    remote = ray.remote(SimulationActor)
    actors = [
        remote.options(
            max_concurrency=share, max_restarts=RESTARTS_PER_WORKER, max_task_retries=RESTARTS_PER_WORKER
        ).remote(setup)
        for share in slots
    ]
    pending = deque(prepared.units)

    async def lane(actor: Any) -> None:
        while pending:
            unit = pending.popleft()
            driver.unit_started()
            try:
                data = await actor.simulate.remote(unit.model_dump_json())
            except BaseException:
                driver.unit_abandoned()
                raise
            if data.startswith(_REFUSED):
                raise AuthenticationError(data[len(_REFUSED) :])
            driver.unit_finished(SimulationRecord.model_validate_json(data))

    try:
        async with asyncio.TaskGroup() as group:
            for actor, share in zip(actors, slots, strict=True):
                for _ in range(share):
                    group.create_task(lane(actor))
    finally:
        for actor in actors:
            ray.kill(actor)
