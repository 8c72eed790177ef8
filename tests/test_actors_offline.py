"""Offline actors (oracle, scripted user, null, transfer, human), their shared phrases, and the registry."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys

import pytest
from rich.console import Console

from tau2.actors import (
    RESOLVED_PHRASE,
    ActorKind,
    ModelUse,
    Request,
    actor_kinds,
    format_request,
    is_resolved,
    make_actor,
    parse_request,
    register_actor,
)
from tau2.actors._human import HumanActor
from tau2.actors._null import NULL_LINE, NullAgent
from tau2.actors._oracle import (
    AFTER_CLOSING,
    AFTER_CLOSING_SUMMARY,
    ASK_AGAIN,
    CLOSING,
    MAX_REQUESTS,
    NO_TRANSFER,
    TRANSFER_SUMMARY,
    OracleAgent,
)
from tau2.actors._requests import format_report
from tau2.actors._scripted import GIVE_UP, GOODBYE, ScriptedUser, reason_for_call
from tau2.actors._transfer import TransferAgent
from tau2.domains.mock.tasks import BOTH, UNPLUGGED, mock_task
from tau2.episode import (
    DONE_TOOL,
    GREETING,
    Actor,
    ActorSpec,
    ActorTurn,
    Entry,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    Mode,
    SeatContext,
    TerminationReason,
    ToolCall,
    run_episode,
    seat_contexts,
)
from tau2.errors import UserInputError
from tau2.llm import ModelSpec
from tau2.tasks import EnvCall, SolutionStep, Task, UserScenario, get_domain, register_domain
from tau2.world import NEUTRAL_PHRASING, RequestPhrasing, Side, ToolResult

IDLE_LINE = NEUTRAL_PHRASING.idle_line
PHONE = RequestPhrasing(request_prefix="Please do this on your phone:", idle_line="What now, on my phone?")


def context(task: Task, seat: Side, mode: Mode = Mode.INTERACTIVE) -> SeatContext:
    return seat_contexts(task, get_domain(task.domain), EpisodeConfig(mode=mode))[seat]


def message(seat: Side, text: str, index: int = 0) -> Entry:
    return Entry(index=index, seat=seat, kind=EntryKind.MESSAGE, text=text)


def calls(turn: ActorTurn) -> list[tuple[str, dict[str, object]]]:
    return [(call.name, dict(call.arguments)) for call in turn.tool_calls]


# Shared phrases


@pytest.mark.parametrize("phrasing", [NEUTRAL_PHRASING, PHONE])
def test_a_request_round_trips(phrasing: RequestPhrasing) -> None:
    arguments = {"app_name": "messaging", "permission": "sms"}
    text = format_request("grant_app_permission", arguments, phrasing)
    expected = '{"app_name": "messaging", "permission": "sms"}'
    assert text == f"{phrasing.request_prefix} grant_app_permission {expected}"
    assert parse_request(text, phrasing) == Request(name="grant_app_permission", arguments=arguments)


def test_the_neutral_request_is_understood_in_every_domain_and_a_domains_own_only_there() -> None:
    neutral, phone = format_request("plug_in", {}), format_request("plug_in", {}, PHONE)
    assert neutral == "Please do this on your side: plug_in {}"
    assert parse_request(neutral, PHONE) == Request(name="plug_in", arguments={})
    assert parse_request(phone, NEUTRAL_PHRASING) is None
    both = f"{format_request('look', {}, PHONE)} and then {neutral}"
    assert parse_request(both, PHONE) == Request(name="look", arguments={})  # the first request in the text


@pytest.mark.parametrize("line", ["", "  ", "two\nlines"])
def test_a_phrasing_is_one_non_empty_line(line: str) -> None:
    with pytest.raises(ValueError, match="must be one non-empty line"):
        RequestPhrasing(request_prefix=line)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Sure! please do this on your phone: `toggle_data` {} and tell me.",
            Request(name="toggle_data", arguments={}),
        ),
        ("Please do this on your phone: reboot_device", Request(name="reboot_device", arguments={})),
        ("Please do this on your phone: set_x {not json}", Request(name="set_x", arguments={})),
        ("Please do this on your phone: set_x [1, 2]", Request(name="set_x", arguments={})),
        (
            'Please do this on your phone:set_network_mode_preference {"mode": "4g_5g_preferred"} thanks',
            Request(name="set_network_mode_preference", arguments={"mode": "4g_5g_preferred"}),
        ),
        ("Could you restart your phone?", None),
        ("Please do this on your phone:", None),
        ("PLEASE DO THIS ON YOUR SIDE: `plug_in`", Request(name="plug_in", arguments={})),
    ],
)
def test_requests_are_parsed_robustly(text: str, expected: Request | None) -> None:
    assert parse_request(text, PHONE) == expected


def test_the_resolved_phrase_is_recognised() -> None:
    assert is_resolved(CLOSING)
    assert is_resolved(f"Great. {RESOLVED_PHRASE.upper()}")
    assert not is_resolved("Is your issue resolved?")


# Oracle


async def test_oracle_interactive_acts_asks_and_closes() -> None:
    oracle = OracleAgent()
    await oracle.start(context(BOTH, Side.AGENT))
    first = await oracle.act([message(Side.USER, "My lamp is dark.")])
    assert calls(first) == [("enable_power", {"customer": "Ada"})]
    ask = await oracle.act([])
    assert ask.text == format_request("plug_in", {})
    assert not ask.tool_calls
    close = await oracle.act([message(Side.USER, "I did it.")])
    assert close.text == CLOSING
    # a customer who answers the closing instead of hanging up is handed to a human, not told it again
    [(name, arguments)] = calls(await oracle.act([message(Side.USER, "It is still dark.")]))
    assert name == "transfer_to_human_agents" and arguments == {"summary": AFTER_CLOSING_SUMMARY}


class WritesCallsAsText:
    """A customer that never acts: it answers every request by writing the call out as text, as a small
    model served without a tool-call parser does."""

    async def start(self, context: SeatContext) -> None:
        self._spoke = False

    async def act(self, observation: list[Entry]) -> ActorTurn:
        if not self._spoke:
            self._spoke = True
            return ActorTurn(text="My lamp is dark.")
        return ActorTurn(text='```json\n{"name": "plug_in", "arguments": {}}\n```')


class NeverHangsUp:
    """A customer that does what it is asked but answers the closing instead of ending the call."""

    def __init__(self) -> None:
        self._scripted = ScriptedUser()

    async def start(self, context: SeatContext) -> None:
        await self._scripted.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        turn = await self._scripted.act(observation)
        return ActorTurn(text="Is that all?") if turn.stop else turn


def agent_messages_of(result: EpisodeResult) -> list[str]:
    return [
        entry.text or ""
        for entry in result.trajectory.entries
        if entry.seat is Side.AGENT and entry.kind is EntryKind.MESSAGE
    ]


async def test_oracle_asks_again_then_transfers_a_customer_who_does_not_act() -> None:
    result = await run_episode(BOTH, OracleAgent(), WritesCallsAsText(), EpisodeConfig(seed=1))
    agent_messages = agent_messages_of(result)
    request = format_request("plug_in", {})
    assert agent_messages[1:] == [request, f"{ASK_AGAIN} {request}", f"{ASK_AGAIN} {request}"]
    assert len(agent_messages) - 1 == MAX_REQUESTS
    assert not any(is_resolved(text) for text in agent_messages)
    assert result.termination is TerminationReason.TRANSFER and result.reward == 0.0


class ClaimsWithoutActing:
    """A customer that says it did every step and never calls a tool, as a small model often does."""

    async def start(self, context: SeatContext) -> None:
        self._spoke = False

    async def act(self, observation: list[Entry]) -> ActorTurn:
        if not self._spoke:
            self._spoke = True
            return ActorTurn(text="My lamp is dark.")
        return ActorTurn(text="Done! I plugged it in and it shows: lit: yes; plugged in: yes; switch: on")


class ActsWithoutSaying:
    """A customer that makes every call it is asked for and says nothing useful about it."""

    def __init__(self, times: int = 1) -> None:
        self._times = times

    async def start(self, context: SeatContext) -> None:
        self._phrasing = context.phrasing
        self._spoke = False

    async def act(self, observation: list[Entry]) -> ActorTurn:
        if not self._spoke:
            self._spoke = True
            return ActorTurn(text="My lamp is dark.")
        said = [entry.text or "" for entry in observation if entry.kind is EntryKind.MESSAGE]
        request = parse_request(said[-1], self._phrasing) if said else None
        if request is not None:
            call = ToolCall(call_id=f"c{len(said)}", name=request.name, arguments=request.arguments)
            return ActorTurn(tool_calls=[call] * self._times)
        if any(is_resolved(text) for text in said):
            return ActorTurn(text="bye", stop=True)
        return ActorTurn(text="ok")


async def test_oracle_never_says_resolved_to_a_customer_who_only_claims_the_step() -> None:
    # the claim even quotes what the step would show: only the world tells it was not done
    result = await run_episode(BOTH, OracleAgent(), ClaimsWithoutActing(), EpisodeConfig(seed=1))
    agent_messages = agent_messages_of(result)
    request = format_request("plug_in", {})
    assert agent_messages[1:] == [request] + [f"{ASK_AGAIN} {request}"] * (MAX_REQUESTS - 1)
    assert not any(is_resolved(text) for text in agent_messages)
    *_, transfer = result.trajectory.tool_calls()
    assert (transfer.name, transfer.arguments) == ("transfer_to_human_agents", {"summary": TRANSFER_SUMMARY})
    assert result.termination is TerminationReason.TRANSFER and result.reward == 0.0


async def test_oracle_takes_a_step_the_world_shows_done_whatever_the_customer_says() -> None:
    result = await run_episode(BOTH, OracleAgent(), ActsWithoutSaying(), EpisodeConfig(seed=1))
    agent_messages = agent_messages_of(result)
    assert agent_messages[1:] == [format_request("plug_in", {}), CLOSING]
    assert result.termination is TerminationReason.USER_STOP and result.reward == 1.0


SWITCHED_OFF = mock_task(
    "switched_off",
    [EnvCall(side=Side.USER, name="flip_switch")],
    [SolutionStep(side=Side.USER, name="flip_switch", action_id="flip_switch_0")],
)


async def test_oracle_asks_again_when_the_customer_undoes_a_toggle_it_was_asked_for() -> None:
    # flipping twice leaves the switch off: said done twice over, the step is not done in the world
    result = await run_episode(SWITCHED_OFF, OracleAgent(), ActsWithoutSaying(times=2), EpisodeConfig(seed=1))
    agent_messages = agent_messages_of(result)
    assert not any(is_resolved(text) for text in agent_messages)
    assert agent_messages[2] == f"{ASK_AGAIN} {format_request('flip_switch', {})}"
    assert result.reward == 0.0


async def test_oracle_transfers_a_customer_who_does_not_hang_up_instead_of_repeating_its_claim() -> None:
    result = await run_episode(BOTH, OracleAgent(), NeverHangsUp(), EpisodeConfig(seed=1))
    agent_messages = agent_messages_of(result)
    assert sum(is_resolved(text) for text in agent_messages) == 1
    assert result.termination is TerminationReason.TRANSFER
    assert result.reward == 1.0, "the lamp is lit: the transfer does not undo a solved task"


async def test_oracle_asks_again_when_the_scripted_user_reports_a_failed_step() -> None:
    oracle = OracleAgent()
    await oracle.start(context(BOTH, Side.AGENT))
    await oracle.act([message(Side.USER, "My lamp is dark.")])
    await oracle.act([])
    failed = format_report("plug_in", "Error (invalid_state): no socket", ok=False)
    again = await oracle.act([message(Side.USER, failed)])
    assert again.text == f"{ASK_AGAIN} {format_request('plug_in', {})}"
    done = await oracle.act([message(Side.USER, format_report("plug_in", "lit: yes"))])
    assert done.text == CLOSING


async def test_oracle_closes_once_where_there_is_no_transfer_tool() -> None:
    oracle = OracleAgent()
    await oracle.start(context(BOTH, Side.AGENT).model_copy(update={"transfer_tool": None}))
    await oracle.act([message(Side.USER, "My lamp is dark.")])
    await oracle.act([])
    assert (await oracle.act([message(Side.USER, "I did it.")])).text == CLOSING
    assert (await oracle.act([message(Side.USER, "Still dark.")])).text == AFTER_CLOSING


async def test_oracle_says_it_cannot_resolve_where_there_is_no_transfer_tool() -> None:
    oracle = OracleAgent()
    await oracle.start(context(BOTH, Side.AGENT).model_copy(update={"transfer_tool": None}))
    await oracle.act([message(Side.USER, "My lamp is dark.")])
    await oracle.act([])
    written = '{"name": "plug_in", "arguments": {}}'
    for _ in range(MAX_REQUESTS - 1):
        assert (await oracle.act([message(Side.USER, written)])).text.startswith(ASK_AGAIN)
    assert (await oracle.act([message(Side.USER, written)])).text == NO_TRANSFER


async def test_oracle_solo_performs_every_step_then_done() -> None:
    oracle = OracleAgent()
    await oracle.start(context(BOTH, Side.AGENT, Mode.SOLO))
    turns = [await oracle.act([]) for _ in range(3)]
    assert [calls(turn) for turn in turns] == [
        [("enable_power", {"customer": "Ada"})],
        [("plug_in", {})],
        [(DONE_TOOL, {})],
    ]
    ids = [turn.tool_calls[0].call_id for turn in turns]
    assert len(set(ids)) == 3


# Scripted user


async def test_scripted_user_states_its_reason_then_does_exactly_what_is_asked() -> None:
    user = ScriptedUser()
    await user.start(context(UNPLUGGED, Side.USER))
    opening = await user.act([message(Side.AGENT, GREETING)])
    assert opening.text == "My lamp is dark." and not opening.stop
    action = await user.act([message(Side.AGENT, format_request("plug_in", {}))])
    assert calls(action) == [("plug_in", {})]
    [call] = action.tool_calls
    result = ToolResult.success("lit: yes")
    observed = [
        Entry(index=3, seat=Side.USER, kind=EntryKind.TOOL_CALL, tool_call=call),
        Entry(index=4, seat=Side.USER, kind=EntryKind.TOOL_RESULT, tool_call=call, result=result),
    ]
    report = await user.act(observed)
    assert report.text == "I did plug_in. It shows: lit: yes"
    bye = await user.act([message(Side.AGENT, CLOSING)])
    assert bye == ActorTurn(text=GOODBYE, stop=True)


async def test_scripted_user_hangs_up_after_its_patience_runs_out() -> None:
    user = ScriptedUser(patience=2)
    await user.start(context(UNPLUGGED, Side.USER))
    await user.act([message(Side.AGENT, GREETING)])
    assert (await user.act([message(Side.AGENT, NULL_LINE)])).text == IDLE_LINE
    final = await user.act([message(Side.AGENT, NULL_LINE)])
    assert final == ActorTurn(text=GIVE_UP, stop=True)


async def test_a_request_resets_the_scripted_users_patience() -> None:
    user = ScriptedUser(patience=2)
    await user.start(context(UNPLUGGED, Side.USER))
    await user.act([message(Side.AGENT, GREETING)])
    await user.act([message(Side.AGENT, NULL_LINE)])
    await user.act([message(Side.AGENT, format_request("look_at_lamp", {}))])
    await user.act([])  # the report (no result observed: a plain statement)
    assert (await user.act([message(Side.AGENT, NULL_LINE)])).text == IDLE_LINE


async def test_the_offline_seats_speak_the_domains_wording() -> None:
    worded = register_domain(dataclasses.replace(get_domain("mock"), name="mock-worded", phrasing=PHONE))
    task = BOTH.model_copy(update={"domain": worded.name})
    result = await run_episode(task, OracleAgent(), ScriptedUser(), EpisodeConfig())
    said = [entry.text for entry in result.trajectory.entries if entry.kind is EntryKind.MESSAGE]
    assert "Please do this on your phone: plug_in {}" in said
    assert result.reward == 1.0
    user = ScriptedUser()
    await user.start(context(task, Side.USER))
    await user.act([message(Side.AGENT, GREETING)])
    assert (await user.act([message(Side.AGENT, NULL_LINE)])).text == PHONE.idle_line


async def test_telecom_keeps_its_phone_wording() -> None:
    phrasing = get_domain("telecom").phrasing
    assert phrasing.request_prefix == "Please do this on your phone:"
    assert phrasing.idle_line == "I'm not sure what to do. What should I do on my phone?"


def test_unstructured_instructions_are_the_reason_for_calling() -> None:
    task = UNPLUGGED.model_copy(update={"user_scenario": UserScenario(instructions="My lamp broke.")})
    assert reason_for_call(task) == "My lamp broke."


# Null and transfer


async def test_null_agent_apologises_or_stops() -> None:
    null = NullAgent()
    await null.start(context(UNPLUGGED, Side.AGENT))
    assert (await null.act([])).text == NULL_LINE
    await null.start(context(UNPLUGGED, Side.AGENT, Mode.SOLO))
    assert calls(await null.act([])) == [(DONE_TOOL, {})]


async def test_transfer_agent_transfers_first() -> None:
    agent = TransferAgent()
    await agent.start(context(UNPLUGGED, Side.AGENT))
    [(name, arguments)] = calls(await agent.act([]))
    assert name == "transfer_to_human_agents" and arguments["summary"]
    assert (await agent.act([])).text
    await agent.start(context(UNPLUGGED, Side.AGENT, Mode.SOLO))
    await agent.act([])
    assert calls(await agent.act([])) == [(DONE_TOOL, {})]


async def test_transfer_agent_needs_a_transfer_tool() -> None:
    without = context(UNPLUGGED, Side.AGENT).model_copy(update={"transfer_tool": None})
    with pytest.raises(ValueError, match="no transfer tool"):
        await TransferAgent().start(without)


# Human


async def test_human_lines_become_turns() -> None:
    human = HumanActor(console=Console(file=io.StringIO()))
    await human.start(context(UNPLUGGED, Side.USER))
    assert human.parse("  hello there ") == ActorTurn(text="hello there")
    assert human.parse("/stop") == ActorTurn(stop=True)
    assert calls(human.parse('/call plug_in {"x": 1}')) == [("plug_in", {"x": 1})]
    assert calls(human.parse("/call plug_in")) == [("plug_in", {})]
    assert calls(human.parse("/done")) == [(DONE_TOOL, {})]
    assert human.parse("/call plug_in {oops").error is not None
    assert human.parse("/call plug_in [1]").error is not None
    assert human.parse("/call").error is not None


async def test_a_human_agent_can_play_a_whole_episode() -> None:
    lines = iter(['/call enable_power {"customer": "Ada"}', format_request("plug_in", {}), CLOSING])

    async def read(prompt: str) -> str:
        assert prompt == "agent> "
        return next(lines)

    screen = io.StringIO()
    human = HumanActor(read=read, console=Console(file=screen, width=200))
    result = await run_episode(BOTH, human, ScriptedUser(), EpisodeConfig())
    assert result.reward == 1.0 and result.termination is TerminationReason.USER_STOP
    shown = screen.getvalue()
    assert "You are the agent." in shown and "user: My lamp is dark." in shown
    assert '← {"changed": true}' in shown
    assert "plug_in()" not in shown  # the user's tool traffic is not part of the agent's view


# Registry


@pytest.mark.parametrize(
    ("kind", "seat", "cls"),
    [
        ("oracle", Side.AGENT, OracleAgent),
        ("null", Side.AGENT, NullAgent),
        ("transfer", Side.AGENT, TransferAgent),
        ("human", Side.AGENT, HumanActor),
        ("scripted", Side.USER, ScriptedUser),
        ("human", Side.USER, HumanActor),
    ],
)
def test_built_in_kinds(kind: str, seat: Side, cls: type) -> None:
    actor = make_actor(ActorSpec(kind=kind), seat)
    assert isinstance(actor, cls)
    assert isinstance(actor, Actor)


def test_unknown_kinds_and_wrong_seats_list_the_kinds() -> None:
    with pytest.raises(UserInputError, match=r"unknown agent kind 'robot' \(agent kinds: .*oracle"):
        make_actor(ActorSpec(kind="robot"), Side.AGENT)
    with pytest.raises(
        UserInputError, match=r"'scripted' is for the user seat \(agent kinds: .*null, oracle"
    ):
        make_actor(ActorSpec(kind="scripted"), Side.AGENT)
    with pytest.raises(
        UserInputError, match=r"'oracle' is for the agent seat \(user kinds: human, llm, scripted"
    ):
        make_actor(ActorSpec(kind="oracle"), Side.USER)


def test_users_can_register_their_own_kinds() -> None:
    modes: list[Mode] = []

    def factory(spec: ActorSpec, mode: Mode) -> Actor:
        modes.append(mode)
        return NullAgent(spec)

    register_actor(ActorKind("polite", {Side.AGENT: factory}, ModelUse.OPTIONAL))
    assert "polite" in actor_kinds(Side.AGENT) and "polite" not in actor_kinds(Side.USER)
    actor = make_actor(ActorSpec(kind="polite", model=ModelSpec(name="m")), Side.AGENT, Mode.SOLO)
    assert isinstance(actor, NullAgent) and actor.spec is not None and actor.spec.model == ModelSpec(name="m")
    assert modes == [Mode.SOLO]


def test_llm_kinds_pick_the_class_for_the_seat_and_mode() -> None:
    llm = pytest.importorskip("tau2.actors._llm")
    spec = ActorSpec(kind="llm", model=ModelSpec(name="openai/gpt-4o-mini"))
    assert type(make_actor(spec, Side.AGENT)) is llm.LLMAgent
    assert type(make_actor(spec, Side.AGENT, Mode.SOLO)) is llm.SoloAgent
    assert type(make_actor(spec, Side.USER)) is llm.LLMUser


def test_offline_actors_and_the_cli_never_import_litellm() -> None:
    code = (
        "import sys, tau2.cli, tau2.actors._registry as r; from tau2.episode._actor import ActorSpec; "
        "from tau2.world._tools import Side; r.make_actor(ActorSpec(kind='oracle'), Side.AGENT); "
        "r.make_actor(ActorSpec(kind='scripted'), Side.USER); "
        "assert 'litellm' not in sys.modules and 'tau2.actors._llm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
