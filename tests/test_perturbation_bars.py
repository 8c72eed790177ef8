"""The bars perturbations are held to, on whole offline runs by the oracle agent and the scripted user (the
shipped domains' default suites, and τ²-bench's whole airline and retail task sets when they are beside the
repository): rate 0 changes no record, the faults recorded match the rate set, agent-side write faults fail
exactly the tasks whose reference changes the world with an agent write, and a customer whose writes are
all dropped fails exactly the telecom tasks whose fix needs one, while the audit blames none of those
failures on the simulated user."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binom

from tau2 import run
from tau2.audit import Cause, audit_run
from tau2.config import RunConfig
from tau2.episode import EntryKind
from tau2.metrics import Bootstrap
from tau2.runs import Run, SimulationRecord, load_run
from tau2.tasks import Task, get_domain, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import Side, StateMark, ToolKind, WorldView

SHARED_CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
"""τ²-bench's public data beside the repository (see tests/conftest.py)."""
DOMAINS = ("telecom", "airline", "retail", "banking_knowledge", "mock")


def _run(tmp_path: Path, name: str, domain: str, perturbations: dict[str, Any], trials: int = 1) -> Run:
    suite, data_dir = _suite(domain)
    config = RunConfig(
        suite=suite,
        domain=_name(domain),
        data_dir=data_dir,
        agent="oracle",
        user="scripted",
        trials=trials,
        seed=11,
        concurrency=8,
        perturbations=perturbations,
    )
    run(config, tmp_path / name)
    return load_run(tmp_path / name)


@cache
def _suite(domain: str) -> tuple[Path, Path | None]:
    """The task file and data directory of `domain`: τ²-bench's whole task set beside the repository for
    airline and retail (a skip with a reason when it is absent), else the domain's default suite."""
    if domain.startswith("tau2-"):
        root = SHARED_CONFORMANCE / domain
        if not root.is_dir():
            pytest.skip(f"conformance data not present at {root}")
        return root / "tasks.json", root
    suite = get_domain(domain).default_suite
    assert suite is not None
    return Path(suite), None


@cache
def _tasks(domain: str) -> dict[str, Task]:
    suite, data_dir = _suite(domain)
    return {task.id: task for task in load_task_file(suite, _name(domain), data_dir=data_dir)}


def _name(domain: str) -> str:
    return domain.removeprefix("tau2-")


def _needs(task: Task, side: Side, data_dir: Path | None) -> bool:
    """Whether the task's reference solution has a write by `side` that changes the world (a reference
    write the domain refuses, as a few of τ²-bench's do, changes nothing a fault could prevent)."""
    tools = get_domain(task.domain).tools
    world = initialize_world(task, data_dir)
    steps = task.evaluation.solution
    rehearsal = WorldView(world, StateMark(world)).rehearse([(s.side, s.name, s.arguments) for s in steps])
    return any(
        step.side is side
        and (tool := tools.tool(step.name)) is not None
        and tool.kind is ToolKind.WRITE
        and bool(changes)
        for step, changes in zip(steps, rehearsal.changes, strict=True)
    )


def _comparable(record: SimulationRecord) -> dict[str, Any]:
    """A record without what differs between two runs of one configuration: the run, its timing and the
    hashes of its configuration."""
    data = record.model_dump(mode="json", exclude={"run_id", "duration_s", "provenance"})
    trajectory = data.get("trajectory") or {}
    trajectory.pop("duration_s", None)
    for entry in trajectory.get("entries", []):
        entry.pop("elapsed_s", None)
    return data


@pytest.mark.parametrize("domain", DOMAINS)
def test_rate_zero_of_every_perturbation_records_what_an_unperturbed_run_does(
    tmp_path: Path, domain: str
) -> None:
    zero = {
        "tool_faults": {"rate": 0.0, "seat": "both", "kinds": ["read", "write", "generic"]},
        "unreliable_user": {"drop_rate": 0.0, "withhold_rate": 0.0},
        "identifier_format": {"rate": 0.0},
        "instruction_variant": {},
    }
    plain = _run(tmp_path, "plain", domain, {})
    perturbed = _run(tmp_path, "zero", domain, zero)
    assert [_comparable(record) for record in perturbed.records] == [
        _comparable(record) for record in plain.records
    ]


def test_faults_over_two_thousand_simulations_match_the_rate_set(tmp_path: Path) -> None:
    rate = 0.3
    trials = -(-2_000 // len(_tasks("telecom")))
    faults = {"tool_faults": {"rate": rate, "seat": "both", "mode": "persistent"}}
    records = list(_run(tmp_path, "faults", "telecom", faults, trials=trials).records)
    assert len(records) >= 2_000
    tools = get_domain("telecom").tools
    subject = 0
    drawn = 0
    for record in records:
        assert record.trajectory is not None
        for entry in record.trajectory.entries:
            call = entry.tool_call
            tool = None if call is None or call.side is None else tools.tool(call.name)
            if entry.kind is EntryKind.TOOL_CALL and tool is not None and tool.kind is not ToolKind.GENERIC:
                subject += 1
        events = [] if record.perturbation is None else record.perturbation.events
        subject -= sum(event.repeat for event in events)  # a persistent fault again draws nothing
        drawn += sum(not event.repeat for event in events)
    low, high = binom.interval(0.99, subject, rate)
    assert low <= drawn <= high, (drawn, subject)


@pytest.mark.parametrize("domain", [*DOMAINS, "tau2-airline", "tau2-retail"])
def test_persistent_agent_write_faults_fail_exactly_the_tasks_needing_an_agent_write(
    tmp_path: Path, domain: str
) -> None:
    plain = {record.task_id: record.reward for record in _run(tmp_path, "plain", domain, {}).records}
    faults = {"tool_faults": {"rate": 1.0, "seat": "agent", "kinds": ["write"], "mode": "persistent"}}
    faulted = {record.task_id: record.reward for record in _run(tmp_path, "faults", domain, faults).records}
    data_dir = _suite(domain)[1]
    needing = {task_id for task_id, task in _tasks(domain).items() if _needs(task, Side.AGENT, data_dir)}
    assert needing, "the suite has tasks needing an agent write"
    assert {task_id: faulted[task_id] for task_id in needing} == dict.fromkeys(needing, 0.0)
    assert {k: v for k, v in faulted.items() if k not in needing} == {
        k: v for k, v in plain.items() if k not in needing
    }


def test_a_customer_whose_writes_are_dropped_fails_every_task_needing_one_and_is_not_blamed(
    tmp_path: Path,
) -> None:
    dropped = _run(tmp_path, "dropped", "telecom", {"unreliable_user": {"drop_rate": 1.0}})
    needing = {task_id for task_id, task in _tasks("telecom").items() if _needs(task, Side.USER, None)}
    assert len(needing) > 50
    rewards = {record.task_id: record.reward for record in dropped.records}
    assert {task_id: rewards[task_id] for task_id in needing} == dict.fromkeys(needing, 0.0)
    audit = audit_run(dropped, Bootstrap(samples=100))
    failed = [simulation for simulation in audit.simulations if simulation.task_id in needing]
    assert len(failed) == len(needing)
    assert [s.task_id for s in failed if s.cause is Cause.SIMULATED_USER] == []
