"""Runner pieces: seeds, unit planning, the results store, manifest comparison, options, tallies."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tau2.cli._option_text import parse_assignments, parse_rate_limit, parse_task_ids
from tau2.config import ConfigLayer, RunConfig, layered
from tau2.domains.mock.tasks import BOTH, NEEDS_HUMAN
from tau2.episode import (
    ActorSpec,
    EpisodeConfig,
    EpisodeResult,
    EpisodeTiming,
    EvaluationResult,
    Mode,
    TerminationReason,
    Trajectory,
)
from tau2.errors import UserInputError
from tau2.llm import ModelSpec, Usage
from tau2.runner import (
    RecordWriter,
    Tally,
    crash_record,
    derive_seed,
    differences,
    episode_record,
    pending_units,
    resolved_seat,
    set_aside_damaged,
)
from tau2.runs import DAMAGED_FILE, RunManifest, SimulationRecord, latest_records, read_records
from tau2.world import Side


def record(
    task_id: str = "t",
    trial: int = 0,
    *,
    reward: float = 1.0,
    termination: TerminationReason = TerminationReason.USER_STOP,
    usage: dict[Side, Usage] | None = None,
) -> SimulationRecord:
    return SimulationRecord(
        task_id=task_id,
        trial=trial,
        seed=derive_seed(0, task_id, trial),
        mode=Mode.INTERACTIVE,
        reward=reward,
        termination=termination,
        usage=usage or {},
    )


def manifest(settings: dict[str, object] | None = None, **provenance: object) -> RunManifest:
    """A manifest of the mock domain: `settings` over a small configuration, `provenance` over its own."""
    config = {"agent": "oracle", "user": "scripted", "trials": 2, "seed": 0, **(settings or {})}
    values: dict[str, object] = {
        "run_id": "abc",
        "created_at": datetime(2025, 1, 1, tzinfo=UTC),
        "config": RunConfig.model_validate(config),
        "suite_path": "/suite.json",
        "suite_hash": "sha256:00",
        "domain": "mock",
        "task_ids": ["a", "b"],
    }
    return RunManifest.model_validate({**values, **provenance})


# Seeds and planning


def test_seeds_are_a_documented_hash_of_run_seed_task_and_trial() -> None:
    import hashlib

    digest = hashlib.sha256(b"7\x00task-1\x003").digest()
    assert derive_seed(7, "task-1", 3) == int.from_bytes(digest[:4], "big") >> 1
    seeds = {derive_seed(seed, task, trial) for seed in (0, 1) for task in ("a", "b") for trial in range(5)}
    assert len(seeds) == 20
    assert all(0 <= seed < 2**31 for seed in seeds)


def test_pending_units_go_trial_by_trial_and_skip_finished_units() -> None:
    units = pending_units(["a", "b"], 2, 5, [])
    assert [(unit.task_id, unit.trial) for unit in units] == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
    assert all(unit.seed == derive_seed(5, unit.task_id, unit.trial) for unit in units)
    done = [record("a", 0), record("b", 1, reward=0.0)]
    assert [(u.task_id, u.trial) for u in pending_units(["a", "b"], 2, 5, done)] == [("b", 0), ("a", 1)]


def test_infrastructure_errors_are_pending_again_until_superseded() -> None:
    failed = record("a", 0, reward=0.0, termination=TerminationReason.INFRASTRUCTURE_ERROR)
    assert [(u.task_id, u.trial) for u in pending_units(["a"], 1, 0, [failed])] == [("a", 0)]
    effective = latest_records([failed, record("a", 0)])
    assert pending_units(["a"], 1, 0, effective) == []


# The store


def test_set_aside_moves_torn_and_damaged_lines_to_the_sidecar(tmp_path: Path) -> None:
    path, sidecar = tmp_path / "results.jsonl", tmp_path / DAMAGED_FILE
    assert set_aside_damaged(path) == 0
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c":')
    assert set_aside_damaged(path) == 1
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert sidecar.read_bytes() == b'{"c":\n'
    assert set_aside_damaged(path) == 0
    power_loss = b"\x00" * 300 + b"\n"
    path.write_bytes(b'{"a": 1}\ngarbage\n' + power_loss + b'{"d": 4}\n[1]\n\xff\xfe\n')
    assert set_aside_damaged(path) == 4
    assert path.read_bytes() == b'{"a": 1}\n{"d": 4}\n'
    assert sidecar.read_bytes() == b'{"c":\ngarbage\n' + power_loss + b"[1]\n\xff\xfe\n"
    assert not [item for item in tmp_path.iterdir() if item.name.endswith(".tmp")]
    (tmp_path / ".results.jsonl.k1ll3d.tmp").write_bytes(b'{"a": 1}\n')  # a rewrite cut short by a kill
    assert set_aside_damaged(path) == 0
    assert not [item for item in tmp_path.iterdir() if item.name.endswith(".tmp")]


def test_set_aside_keeps_a_file_of_readable_lines_untouched(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"a": 1}\n\n{"b": 2}\n')
    before = path.stat()
    assert set_aside_damaged(path) == 0
    assert path.stat().st_ino == before.st_ino
    assert not (tmp_path / DAMAGED_FILE).exists()


async def test_writer_appends_one_json_line_per_record_after_existing_ones(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(record("old").model_dump_json() + "\n")
    async with RecordWriter(path) as writer:
        for index in range(50):
            writer.write(record(f"t{index}"))
    assert writer.written == 50
    records, warnings = read_records(path)
    assert warnings == []
    assert [item.task_id for item in records] == ["old", *(f"t{index}" for index in range(50))]


async def test_writer_reports_a_failed_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tau2.runs._store as store

    def broken(descriptor: int, records: list[SimulationRecord], path: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "_append", broken)
    with pytest.raises(OSError, match="No space"):
        async with RecordWriter(tmp_path / "results.jsonl") as writer:
            writer.write(record())


# Manifests and options


def test_differences_name_nested_fields_and_hashes_but_ignore_identity() -> None:
    stored = manifest(hashes={"policy": "sha256:aaaaaaaaaaaaaaaa"})
    same = manifest(
        run_id="other",
        suite_path="/moved.json",
        versions={"tau2": "9"},
        **{"hashes": {"policy": "sha256:aaaaaaaaaaaaaaaa"}},
    )
    assert differences(stored, same) == []
    changed = manifest(
        {"user": ActorSpec(kind="llm", model=ModelSpec(name="m")), "max_steps": 5},
        task_ids=["a"],
        hashes={"policy": "sha256:bbbbbbbbbbbbbbbb", "persona": "sha256:cc"},
    )
    assert differences(stored, changed) == [
        "episode.max_steps (100 → 5)",
        "user.kind (scripted → llm)",
        'user.model (None → {"name": "m", "api_base": null, "args": {}, "timeout_s": 120.0, '
        '"max_retries": null, "retry_budget_s": 300.0, "transport": "auto"})',
        "persona (none → cc)",
        "policy (aaaaaaaaaaaa → bbbbbbbbbbbb)",
        "task_ids (2 items → 1 items)",
    ]


def _seat(given: dict[str, object], stored: ActorSpec | None, seat: Side = Side.AGENT) -> ActorSpec:
    """A seat's settings given over a stored seat (as a resume layers them), resolved like a run's."""
    base = None if stored is None else RunConfig.model_validate({seat.value: stored})
    spec: ActorSpec = getattr(layered([ConfigLayer({seat.value: given})], base), seat.value)
    return resolved_seat(spec, seat)


def test_seat_settings_resolve_against_a_stored_spec() -> None:
    model = ModelSpec(name="m", api_base="http://x", args={"temperature": 0}, transport="litellm")
    stored = ActorSpec(kind="llm", model=model)
    assert _seat({}, stored) == stored
    resolved = _seat({"model": {"name": "n"}}, stored).model
    assert resolved is not None and resolved.name == "n" and resolved.api_base == "http://x"
    assert _seat({"kind": "oracle"}, stored) == ActorSpec(kind="oracle")
    with pytest.raises(UserInputError, match="--user llm needs --user-model"):
        _seat({}, None, Side.USER)
    with pytest.raises(UserInputError, match="do not apply to actor kind 'oracle'"):
        _seat({"kind": "oracle", "model": "m"}, None)


def test_option_parsers() -> None:
    assert parse_assignments("--agent-arg", []) is None
    parsed = parse_assignments("--agent-arg", ["temperature=0.5", 'stop=["x"]', "name=plain text"])
    assert parsed == {"temperature": 0.5, "stop": ["x"], "name": "plain text"}
    with pytest.raises(UserInputError, match="expected KEY=VALUE"):
        parse_assignments("--agent-arg", ["novalue"])
    assert parse_task_ids(["a,b", " c ", "a"]) == ["a", "b", "c"]
    assert parse_task_ids([]) is None
    key, limit = parse_rate_limit("localhost:8000=8/600")
    assert key == "localhost:8000" and limit.max_concurrent == 8 and limit.requests_per_minute == 600
    assert parse_rate_limit("openai=4")[1].requests_per_minute is None
    for bad in ("openai", "openai=0", "openai=x", "=4", "openai=4/", "openai=4/-1"):
        with pytest.raises(UserInputError, match="--rate-limit"):
            parse_rate_limit(bad)


# Records and tallies


def test_episode_and_crash_records_carry_the_task_facts() -> None:
    config = EpisodeConfig(mode=Mode.SOLO, oracle_plan=True, seed=42)
    trajectory = Trajectory(
        termination=TerminationReason.AGENT_STOP, steps=3, usage={Side.AGENT: Usage(calls=3, cost=None)}
    )
    evaluation = EvaluationResult(reward=1.0, assertions_passed=True, tool_errors=1)
    result = EpisodeResult(
        task_id=BOTH.id,
        config=config,
        trajectory=trajectory,
        evaluation=evaluation,
        seed=42,
        timing=EpisodeTiming(setup_s=0.5, conversation_s=1.0, evaluation_s=0.25),
    )
    made = episode_record(BOTH, 2, result)
    assert (made.task_id, made.trial, made.seed, made.mode, made.oracle_plan) == (
        "both",
        2,
        42,
        Mode.SOLO,
        True,
    )
    assert (made.steps, made.tool_errors, made.duration_s, made.success) == (3, 1, 1.75, True)
    assert made.usage[Side.AGENT].cost is None and made.trajectory is not None
    assert dict(made.trajectory) == dict(trajectory)
    crashed = crash_record(NEEDS_HUMAN, 0, config, RuntimeError("boom"))
    assert crashed.excluded and crashed.expects_transfer
    assert crashed.termination_detail == "runner: RuntimeError: boom"


def test_tally_averages_pass_1_over_tasks_and_keeps_unpriced_cost_visible() -> None:
    tally = Tally(6, [record("a", 0), record("a", 1, reward=0.0)])
    assert (tally.done, tally.pass_1) == (2, 0.5)
    tally.start()
    assert tally.running == 1
    tally.finish(
        record("b", 0, usage={Side.AGENT: Usage(prompt_tokens=900, completion_tokens=300, cost=0.5)})
    )
    assert (tally.running, tally.done, tally.pass_1) == (0, 3, 0.75)
    assert tally.cost_text() == "$0.5000"
    tally.add(
        record(
            "c", 0, termination=TerminationReason.INFRASTRUCTURE_ERROR, usage={Side.USER: Usage(cost=None)}
        )
    )
    assert (tally.infra_errors, tally.done, tally.pass_1) == (1, 3, 0.75)
    assert (tally.passed, tally.failed) == (2, 1)  # judged outcomes, apart from infrastructure errors
    assert tally.cost_text() == "$0.5000 + unpriced"
    assert (
        "3/6 done · 0 running · 2 passed · 1 failed · 1 infra errors · pass^1 0.750 · 1.2k tokens · "
        "$0.5000 + unpriced" in tally.stats_text()
    )
    assert Tally(1, [record(usage={Side.USER: Usage(cost=None)})]).cost_text() == "unpriced"


def test_records_round_trip_through_json_lines() -> None:
    line = record("a", usage={Side.AGENT: Usage(calls=1, cost=None)}).model_dump_json()
    assert SimulationRecord.model_validate(json.loads(line)).usage[Side.AGENT].cost is None
