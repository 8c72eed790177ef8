"""Perturbations: their settings in a run configuration, their seeded draws, the two built-in kinds at the
episode's hooks (a call kept from the world, a fact withheld), what a simulation records of them, the
conformance check of a kind, and kinds registered as plugins."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tau2.actors import make_actor
from tau2.config import RunConfig
from tau2.domains.mock.tasks import BOTH
from tau2.episode import ActorSpec, EntryKind, EpisodeConfig, EpisodeResult, Mode, run_episode
from tau2.errors import ErrorCode, UserInputError
from tau2.perturbations import (
    DROPPED_CALL,
    FAULT,
    FAULT_MESSAGES,
    WITHHELD_FACT,
    CallAttempt,
    EpisodePerturbation,
    EpisodeStart,
    Interception,
    PerturbationEvent,
    PerturbationKind,
    PerturbationSettings,
    Step,
    ToolFaultSettings,
    available_perturbations,
    check_perturbation,
    get_perturbation,
    perturbation_rng,
    register_perturbation,
)
from tau2.tasks import UserInstructions, initialize_world
from tau2.world import Side, ToolResult


async def play(perturbations: dict[str, Any], *, seed: int = 7, task: Any = BOTH) -> EpisodeResult:
    """One interactive episode of the mock task by the oracle agent and the scripted user."""
    config = EpisodeConfig(mode=Mode.INTERACTIVE, seed=seed, perturbations=perturbations)
    agent = make_actor(ActorSpec(kind="oracle"), Side.AGENT, Mode.INTERACTIVE)
    user = make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE)
    return await run_episode(task, agent, user, config)


def calls(result: EpisodeResult, seat: Side) -> list[tuple[str, bool]]:
    """Each tool call of `seat` and whether its result was a success, in order."""
    return [
        (entry.tool_call.name, bool(entry.result and entry.result.ok))
        for entry in result.trajectory.entries
        if entry.kind is EntryKind.TOOL_RESULT and entry.seat is seat and entry.tool_call is not None
    ]


def test_the_built_in_kinds_are_registered_under_the_plugin_group() -> None:
    assert {"tool_faults", "unreliable_user"} <= set(available_perturbations())
    assert get_perturbation("tool_faults").settings is ToolFaultSettings


def test_a_run_configuration_reads_writes_and_refuses_perturbations(tmp_path: Path) -> None:
    config = RunConfig(
        domain="mock",
        perturbations={
            "tool_faults": {"rate": 0.25, "mode": "persistent"},
            "unreliable_user": {"drop_rate": 1},
        },
    )
    assert config.episode.perturbations == config.perturbations
    path = tmp_path / "run.toml"
    path.write_text(config.to_toml(), encoding="utf-8")
    assert "[perturbations.tool_faults]" in path.read_text(encoding="utf-8")
    assert RunConfig.from_file(path) == config
    assert "perturbations" not in RunConfig(domain="mock").model_dump()
    with pytest.raises(ValueError, match=r"unknown perturbation 'nope' \(perturbations: .*tool_faults"):
        RunConfig(perturbations={"nope": {}})
    with pytest.raises(ValueError, match=r"tool_faults\.rate: Input should be less than or equal to 1"):
        RunConfig(perturbations={"tool_faults": {"rate": 2}})
    path.write_text('[perturbations.tool_faults]\nseat = "phone"\n', encoding="utf-8")
    with pytest.raises(UserInputError, match=r"run\.toml: perturbations: tool_faults\.seat: "):
        RunConfig.from_file(path)


def test_each_kind_draws_from_a_stream_of_the_seed_and_its_name() -> None:
    same = [perturbation_rng(5, "tool_faults").random() for _ in range(2)]
    assert same[0] == same[1]
    assert perturbation_rng(5, "tool_faults").random() != perturbation_rng(6, "tool_faults").random()
    assert perturbation_rng(5, "tool_faults").random() != perturbation_rng(5, "unreliable_user").random()


async def test_an_agent_write_fault_fails_before_the_world_and_the_task() -> None:
    result = await play({"tool_faults": {"rate": 1.0, "kinds": ["write"], "mode": "persistent"}})
    assert calls(result, Side.AGENT)[0] == ("enable_power", False)
    assert result.reward == 0.0
    assert not any(change.path.startswith("power") for change in result.state_changes)
    record = result.perturbation
    assert record is not None
    event = record.events[0]
    assert (event.kind, event.effect, event.seat, event.tool, event.repeat) == (
        "tool_faults",
        FAULT,
        Side.AGENT,
        "enable_power",
        False,
    )
    entry = result.trajectory.entries[event.entry or 0]
    assert entry.kind is EntryKind.TOOL_CALL and entry.tool_call and entry.tool_call.name == "enable_power"
    failure = result.trajectory.entries[(event.entry or 0) + 1].result
    assert failure is not None and failure.error is not None
    assert failure.error.code is ErrorCode.UNAVAILABLE and failure.error.message in FAULT_MESSAGES
    assert not result.evaluation.actions[0].performed  # a call kept from the world did nothing there


class _Attempts:
    """Calls of one tool offered to a kind's effect as a seat would make them."""

    def __init__(self, settings: dict[str, Any], seed: int = 1) -> None:
        kind = get_perturbation("tool_faults")
        self.effect = kind.episode(kind.settings.model_validate(settings), perturbation_rng(seed, kind.name))
        self.world = initialize_world(BOTH)

    def call(self, name: str, seat: Side = Side.AGENT, **arguments: Any) -> Interception | None:
        tool = self.world.tools.tool(name)
        assert tool is not None
        return self.effect.intercept(CallAttempt(seat, tool, arguments, self.world))


def test_a_transient_fault_lets_the_same_call_through_again_and_a_persistent_one_never() -> None:
    transient = _Attempts({"rate": 1.0})
    assert transient.call("enable_power", customer="Ada") is not None
    assert transient.call("enable_power", customer="Ada") is None
    assert transient.call("enable_power", customer="Bob") is not None  # another call draws again
    persistent = _Attempts({"rate": 1.0, "mode": "persistent"})
    first = persistent.call("enable_power", customer="Ada")
    again = persistent.call("enable_power", customer="Ada")
    assert first is not None and not first.repeat
    assert again is not None and again.repeat


def test_faults_apply_only_to_the_seats_tools_and_kinds_given() -> None:
    agent_only = _Attempts({"rate": 1.0})
    assert agent_only.call("plug_in", Side.USER) is None
    assert agent_only.call("transfer_to_human_agents", summary="x") is None  # generic tools only when listed
    assert _Attempts({"rate": 1.0, "seat": "user"}).call("enable_power", customer="Ada") is None
    assert _Attempts({"rate": 1.0, "seat": "both"}).call("plug_in", Side.USER) is not None
    named = _Attempts({"rate": 1.0, "tools": ["get_account"]})
    assert named.call("enable_power", customer="Ada") is None
    assert named.call("get_account", customer="Ada") is not None
    reads = _Attempts({"rate": 1.0, "kinds": ["read"]})
    assert reads.call("enable_power", customer="Ada") is None
    assert reads.call("get_account", customer="Ada") is not None


def test_a_retried_transient_fault_is_noticed() -> None:
    result_steps = [
        Step(index=1, seat=Side.AGENT, tool="enable_power", arguments={"customer": "Ada"}),
        Step(index=3, seat=Side.AGENT, tool="enable_power", arguments={"customer": "Ada"}),
    ]
    effect = _Attempts({"rate": 1.0}).effect
    events = [
        PerturbationEvent(kind="tool_faults", effect=FAULT, seat=Side.AGENT, tool="enable_power", entry=1)
    ]
    assert effect.noticed(result_steps, events)
    assert not effect.noticed(result_steps[:1], events)


async def test_a_dropped_customer_write_leaves_the_world_while_the_customer_is_answered_as_if_done() -> None:
    plain = await play({})
    dropped = await play({"unreliable_user": {"drop_rate": 1.0}})
    assert plain.reward == 1.0 and dropped.reward == 0.0
    (first_plain,) = [
        e for e in plain.trajectory.entries if e.kind is EntryKind.TOOL_RESULT and e.seat is Side.USER
    ]
    user_results = [
        e for e in dropped.trajectory.entries if e.kind is EntryKind.TOOL_RESULT and e.seat is Side.USER
    ]
    assert user_results[0].result == first_plain.result  # what the call would have returned
    assert not any("plug" in change.path for change in dropped.state_changes)
    record = dropped.perturbation
    assert record is not None
    assert {event.effect for event in record.events} == {DROPPED_CALL}
    assert len(record.events) == len(user_results)  # every write dropped, each asked again
    assert record.noticed == ["unreliable_user"]  # the oracle had it done again
    # the customer's next message is what it says after a call that worked
    after = [e.text for e in plain.trajectory.entries if e.seat is Side.USER and e.kind is EntryKind.MESSAGE]
    said = [e.text for e in dropped.trajectory.entries if e.seat is Side.USER and e.kind is EntryKind.MESSAGE]
    assert said[1] == after[1]


def _with_known_info(text: str) -> Any:
    instructions = BOTH.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    scenario = BOTH.user_scenario.model_copy(
        update={"instructions": instructions.model_copy(update={"known_info": text})}
    )
    return BOTH.model_copy(update={"user_scenario": scenario})


async def test_a_withheld_fact_is_left_out_of_the_brief_the_customer_is_given() -> None:
    task = _with_known_info("You are Ada. Your meter number is M-1234.")
    kind = get_perturbation("unreliable_user")
    withheld = []
    for seed in range(20):
        effect = kind.episode(kind.settings(withhold_rate=0.5), perturbation_rng(seed, kind.name))
        start = effect.before_episode(EpisodeStart(task, None))
        if start.task == task:
            assert not effect.events
            continue
        (event,) = effect.events
        assert event.effect == WITHHELD_FACT
        assert event.detail is not None and event.detail not in start.task.user_scenario.text()
        withheld.append(event.detail)
    assert set(withheld) == {"You are Ada.", "Your meter number is M-1234."}
    result = await play({"unreliable_user": {"withhold_rate": 1.0}}, task=task)
    record = result.perturbation
    assert record is not None and record.events[0].effect == WITHHELD_FACT
    assert result.played is not None and result.played.user_scenario != task.user_scenario


async def test_rate_zero_changes_nothing_and_records_nothing() -> None:
    plain = await play({})
    zero = await play(
        {
            "tool_faults": {"rate": 0.0, "seat": "both"},
            "unreliable_user": {"drop_rate": 0.0, "withhold_rate": 0.0},
        }
    )
    assert zero.perturbation is None and zero.played is None
    strip = {"config", "timing", "trajectory"}
    assert zero.model_dump(exclude=strip) == plain.model_dump(exclude=strip)
    assert [e.model_dump(exclude={"elapsed_s"}) for e in zero.trajectory.entries] == [
        e.model_dump(exclude={"elapsed_s"}) for e in plain.trajectory.entries
    ]


async def test_the_same_seed_perturbs_the_same_way() -> None:
    settings = {"tool_faults": {"rate": 0.5, "seat": "both"}}
    draws = [await play(settings, seed=seed) for seed in (3, 3, 4, 5, 6, 7, 8)]
    assert draws[0].perturbation == draws[1].perturbation
    assert len({str(result.perturbation) for result in draws}) > 1


def test_the_built_in_kinds_pass_their_conformance_check() -> None:
    task = _with_known_info("You are Ada. Your meter number is M-1234.")
    assert check_perturbation("tool_faults", task, {"rate": 0.5, "seat": "both"}) == []
    assert check_perturbation("unreliable_user", task, {"drop_rate": 0.5, "withhold_rate": 0.5}) == []


class _Rate(PerturbationSettings):
    rate: float = 0.5


class _Unseeded(EpisodePerturbation):
    """Draws from the global stream and perturbs at its defaults: both are defects."""

    def __init__(self, settings: _Rate, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.rate = settings.rate

    def intercept(self, attempt: CallAttempt) -> Interception | None:
        if random.random() < self.rate:  # the defect this test plants
            return Interception(ToolResult.failure(ErrorCode.UNAVAILABLE, "down"), effect=FAULT)
        return None


class _WorldTouching(EpisodePerturbation):
    def intercept(self, attempt: CallAttempt) -> Interception | None:
        attempt.world.call(attempt.tool.side, attempt.tool.name, attempt.arguments)
        return None


def test_the_conformance_check_names_a_kinds_defects() -> None:
    unseeded = PerturbationKind("unseeded", _Rate, _Unseeded)
    random.seed(3)  # the planted defect draws from the global stream: fixed here so the test is deterministic
    problems = check_perturbation(unseeded, BOTH, {"rate": 0.5}, seeds=range(8))
    assert any("default settings perturb" in problem for problem in problems)
    assert any("same seed differ" in problem for problem in problems)
    touching = PerturbationKind("touching", PerturbationSettings, lambda s, n, r: _WorldTouching(n, r))
    assert check_perturbation(touching, BOTH, {}) == ["intercepting enable_power changed the world"]
    assert check_perturbation("nope", BOTH, {})[0].startswith("unknown perturbation 'nope'")


class _FlakyPhone(PerturbationSettings):
    every: int = 0
    """Every n-th customer call fails (0: none)."""


class _Phone(EpisodePerturbation):
    def __init__(self, settings: _FlakyPhone, name: str, rng: random.Random) -> None:
        super().__init__(name, rng)
        self.every = settings.every
        self.seen = 0

    def intercept(self, attempt: CallAttempt) -> Interception | None:
        if attempt.seat is not Side.USER or not self.every:
            return None
        self.seen += 1
        if self.seen % self.every:
            return None
        return Interception(ToolResult.failure(ErrorCode.UNAVAILABLE, "no signal"), effect="no_signal")


async def test_a_kind_registered_in_code_runs_in_an_episode_and_is_recorded() -> None:
    register_perturbation(PerturbationKind("flaky_phone", _FlakyPhone, _Phone, "the phone loses signal"))
    assert "flaky_phone" in available_perturbations()
    result = await play({"flaky_phone": {"every": 1}})
    record = result.perturbation
    assert record is not None
    first = record.events[0]
    assert (first.kind, first.effect, first.tool) == (
        "flaky_phone",
        "no_signal",
        "plug_in",
    )
    assert result.reward == 0.0


async def test_the_customer_is_audited_against_the_brief_it_was_given() -> None:
    from tau2.findings import RunFindings
    from tau2.runner import episode_record, with_findings
    from tau2.tasks import get_domain

    result = await play({})
    entries = list(result.trajectory.entries)
    first = next(i for i, e in enumerate(entries) if e.seat is Side.USER and e.kind is EntryKind.MESSAGE)
    entries[first] = entries[first].model_copy(update={"text": "My meter M-9876 shows the lamp is dark."})
    said = result.model_copy(update={"trajectory": result.trajectory.model_copy(update={"entries": entries})})
    record = episode_record(BOTH, 0, said)
    played = _with_known_info("You are Ada. Your meter is M-9876.")  # as a perturbation may rewrite it
    findings = RunFindings(get_domain("mock"), None)
    as_written = with_findings(record, BOTH, findings).user_findings or []
    as_played = with_findings(record, BOTH, findings, played=played).user_findings or []
    assert "unfounded_fact" in {finding.check for finding in as_written}
    assert "unfounded_fact" not in {finding.check for finding in as_played}
