"""Executing runs on Ray: one async actor per worker, each with its own event loop and many simulations in
flight, on a local or remote Ray cluster; the driver stays every run's single writer.

An actor that dies (killed, crashed) loses only its simulations in flight: the driver hands them to a
replacement actor, as it does for worker processes (a record is written only when one comes back, so
nothing is written twice). The driver does this itself rather than through Ray's actor restarts, which
cannot promise that an actor restarted mid-run still finds the setup it was created with. A local
cluster (`--ray local`) dies with its driver, however the driver ends (see `tau2.runner._ray_local`).
Every node needs tau2, and the runs' suites, data directories and model cache at the same paths, since
actors read them as the driver does. Needs the `ray` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tau2._distribution import install_hint
from tau2.errors import UserInputError
from tau2.llm import AuthenticationError, call_settings, default_limits
from tau2.runner._execute import judge_of, model_cache, simulate
from tau2.runner._lanes import WorkerLost, run_lanes
from tau2.runner._plan import ArmUnit, UnitStream
from tau2.runner._prepare import PreparedRun
from tau2.runner._ray_local import init_local, installation_as_working_directory, quiet_notices
from tau2.runner._recorder import Recorder
from tau2.runner._workers import RESTARTS_PER_WORKER, WorkerSetup, split_concurrency
from tau2.runs import SimulationRecord

_REFUSED = "!"
"""Actor to driver, before the error's text: the provider refused the credentials; stop the run."""


class SimulationActor:
    """A Ray actor running simulations of the runs on its own event loop (its methods are coroutines)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self._setup = setup
        self._cache = model_cache(setup.runs)
        for key, limit in setup.limits.items():
            default_limits().configure(key, limit)

    async def simulate(self, item: bytes) -> str:
        """Simulate one `ArmUnit` (as `ArmUnit.dump` writes it) and return its record as JSON, or `!` and
        the reason when the provider refused the credentials (not an error: Ray would retry it)."""
        setup = self._setup
        unit = ArmUnit.load(item)
        prepared = setup.runs[unit.arm]
        try:
            with call_settings(retry=setup.retry, cache=self._cache):
                record = await simulate(prepared, unit.unit, judge_of(prepared.manifest))
        except AuthenticationError as error:
            return _REFUSED + str(error)
        return record.model_dump_json()


def _ray() -> Any:
    """Import Ray, or explain how to install it."""
    try:
        import ray
    except ImportError:
        raise UserInputError(f"the ray executor (--ray) needs Ray: {install_hint('ray')}") from None
    return ray


async def execute_on_ray(runs: Sequence[PreparedRun], units: UnitStream, recorder: Recorder) -> None:
    """Simulate the stream's units on the runs' `executor.workers` Ray actors, handing each record to the
    recorder as it comes back. The executor's address names the cluster: `auto`, host:port, or `local`
    for a new local cluster."""
    ray = _ray()
    settings = runs[0].config
    executor = settings.executor
    slots = split_concurrency(min(settings.concurrency, len(units)), executor.workers)
    if not slots:
        return
    setup = WorkerSetup.of(runs)
    if not ray.is_initialized():
        with installation_as_working_directory():
            if executor.address == "local":
                init_local(ray)
            else:
                quiet_notices()
                ray.init(address=executor.address, log_to_driver=False)
    shared_setup = ray.put(setup)  # one copy in the object store for every actor, replacements too
    remote = ray.remote(SimulationActor)
    actors = [remote.options(max_concurrency=share).remote(shared_setup) for share in slots]
    restarts = RESTARTS_PER_WORKER * len(slots)

    async def simulate_on(worker: int, item: ArmUnit) -> SimulationRecord:
        nonlocal restarts
        actor = actors[worker]
        try:
            data = await actor.simulate.remote(item.dump())
        except ray.exceptions.RayActorError as error:
            if actors[worker] is actor:  # the first of its lanes to hear of the loss
                if restarts == 0:
                    raise RuntimeError(f"Ray workers keep dying; the run stopped: {error}") from None
                restarts -= 1
                ray.kill(actor)  # gone for good, even if it was only unreachable
                actors[worker] = remote.options(max_concurrency=slots[worker]).remote(shared_setup)
            raise WorkerLost from None
        if data.startswith(_REFUSED):
            raise AuthenticationError(data[len(_REFUSED) :])
        return SimulationRecord.model_validate_json(data)

    try:
        await run_lanes(slots, units, recorder, simulate_on)
    finally:
        for actor in actors:
            ray.kill(actor)
