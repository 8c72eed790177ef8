"""The simulated-user audit on constructed trajectories of the mock domain (the customer holds the lamp's
tools, the agent the power account's): each check fires on its fault and stays quiet on a sound
conversation."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tau2.audit import SeatTools, audit_trajectory, user_checks
from tau2.domains.mock.tasks import BOTH
from tau2.episode import GREETING, Entry, EntryKind, RejectedReply, TerminationReason, ToolCall, Trajectory
from tau2.llm import ModelToolCall
from tau2.tasks import Task, UserInstructions, get_domain
from tau2.world import Side, ToolResult

TOOLS = SeatTools.of(get_domain("mock"))


class Talk:
    """Builds a trajectory one entry at a time, the way the episode core records it."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.agent("Hi! How can I help you today?")

    def _add(self, seat: Side, kind: EntryKind, **fields: Any) -> Talk:
        self.entries.append(Entry(index=len(self.entries), seat=seat, kind=kind, **fields))
        return self

    def agent(self, text: str) -> Talk:
        return self._add(Side.AGENT, EntryKind.MESSAGE, text=text)

    def user(self, text: str) -> Talk:
        return self._add(Side.USER, EntryKind.MESSAGE, text=text)

    def call(self, seat: Side, name: str, content: Any = "ok", **arguments: Any) -> Talk:
        call = ToolCall(call_id=f"c{len(self.entries)}", name=name, arguments=arguments, side=seat)
        self._add(seat, EntryKind.TOOL_CALL, tool_call=call)
        return self._add(seat, EntryKind.TOOL_RESULT, tool_call=call, result=ToolResult.success(content))

    def ended(
        self, reason: TerminationReason = TerminationReason.USER_STOP, detail: str | None = None
    ) -> Trajectory:
        return Trajectory(entries=self.entries, termination=reason, termination_detail=detail)


def fired(trajectory: Trajectory, task: Task | None = BOTH) -> dict[str, str]:
    return {finding.check: finding.detail for finding in audit_trajectory(trajectory, TOOLS, task)}


def sound() -> Talk:
    """A conversation with nothing to report: the customer does what it is asked and checks the result."""
    return (
        Talk()
        .user("My lamp is dark.")
        .call(Side.AGENT, "enable_power", {"changed": True}, customer="Ada")
        .agent("I turned your power on. Please plug_in the lamp.")
        .call(Side.USER, "plug_in", "The lamp is plugged in.")
        .user("I plugged it in and it is lit now.")
        .agent("Great. Is there anything else?")
        .user("No, thanks. Bye!")
    )


def test_every_check_has_a_rule() -> None:
    assert all(check.rule for check in user_checks().values())


def test_a_sound_conversation_has_no_finding() -> None:
    assert fired(sound().ended()) == {}


def test_hanging_up_on_an_open_request() -> None:
    talk = Talk().user("My lamp is dark.").agent("Could you flip the switch on the lamp, please?")
    assert "asked for 'flip the switch'" in fired(talk.user("Bye.").ended())["ended_with_open_request"]
    answered = talk.call(Side.USER, "flip_switch", "The switch is on.").user("Done, bye.")
    assert "ended_with_open_request" not in fired(answered.ended())


def test_hanging_up_after_the_agents_last_change_unverified() -> None:
    talk = (
        Talk()
        .user("My lamp is dark.")
        .agent("Please plug_in the lamp.")
        .call(Side.USER, "plug_in", "Plugged in.")
        .user("It is plugged in but still dark.")
        .call(Side.AGENT, "enable_power", {"changed": True}, customer="Ada")
        .agent("I enabled your power; it should work now.")
        .user("Thanks, bye.")
    )
    assert "enable_power" in fired(talk.ended())["ended_unverified"]
    checked = talk.call(Side.USER, "look_at_lamp", "The lamp is lit.").user("It is lit. Bye.")
    assert "ended_unverified" not in fired(checked.ended())
    agent_side = BOTH.model_copy(update={"evaluation": BOTH.evaluation.model_copy(update={"assertions": []})})
    assert "ended_unverified" not in fired(talk.ended(), agent_side), (
        "nothing is judged on the customer's side"
    )


def test_stating_a_number_from_nowhere() -> None:
    talk = Talk().user("My lamp is dark. My account number is 88123.")
    assert fired(talk.ended())["unfounded_fact"] == "stated '88123'"
    told = (
        Talk()
        .agent("Your account is 88123.")
        .call(Side.USER, "look_at_lamp", "Lamp L-4471 is dark.")
        .user("Account 88123, and the lamp says L-4471. I am Ada, it has been 2.0 hours.")
    )
    task = BOTH.model_copy(
        update={
            "user_scenario": BOTH.user_scenario.model_copy(update={"persona_text": "You waited 2.0 hours."})
        }
    )
    assert "unfounded_fact" not in fired(told.ended(), task)
    assert "unfounded_fact" not in fired(talk.ended(), None), "without the task the check does not run"


def test_claiming_an_action_without_the_call() -> None:
    talk = (
        Talk()
        .user("My lamp is dark.")
        .agent("Please plug_in the lamp.")
        .user("I've plugged it in, still dark.")
    )
    assert "no tool call since the agent spoke" in fired(talk.ended())["claimed_action_without_call"]
    opening = Talk().user("I've turned it off and on again already; the lamp stays dark.")
    assert "claimed_action_without_call" not in fired(opening.ended()), "the opening message is not a claim"


def test_trying_the_agents_tools() -> None:
    talk = Talk().user("My lamp is dark.").call(Side.USER, "enable_power", "refused", customer="Ada")
    assert fired(talk.ended())["tried_other_seat_tool"] == "entry 2 calls enable_power, an agent tool"
    rejected = RejectedReply(tool_calls=[ModelToolCall(id="x", name="get_account", arguments="{}")])
    attempt = Talk()._add(Side.USER, EntryKind.REJECTED_REPLY, rejected=rejected)
    assert "get_account" in fired(attempt.ended())["tried_other_seat_tool"]


def test_ignoring_a_request_to_use_its_tools() -> None:
    talk = (
        Talk()
        .user("My lamp is dark.")
        .agent("Please look at the lamp and tell me what you see.")
        .user("It is dark, as I said.")
        .agent("Please look at lamp again.")
    )
    assert "asked for 'look at the lamp'" in fired(talk.ended())["ignored_request"]
    assert "ignored_request" not in fired(sound().ended())


def test_never_ending_the_call() -> None:
    assert "never_ended" in fired(sound().ended(TerminationReason.MAX_STEPS))
    assert "never_ended" not in fired(sound().ended())


@pytest.mark.parametrize(
    "text", [GREETING, "Hello! How can I assist you today?", "Is there anything else I can help you with?"]
)
def test_taking_the_agents_role(text: str) -> None:
    assert "took_agent_role" in fired(Talk().user(text).ended())


def test_a_customer_asking_for_help_does_not_take_the_agents_role() -> None:
    assert "took_agent_role" not in fired(Talk().user("Can you help me? My lamp is dark.").ended())


def with_reason(instructions: str | UserInstructions) -> Task:
    """The mock task with another reason for calling (free text, or structured)."""
    scenario = BOTH.user_scenario.model_copy(update={"instructions": instructions})
    return BOTH.model_copy(update={"user_scenario": scenario})


def test_a_customer_mirroring_the_agents_lines_never_states_its_problem() -> None:
    talk = Talk().user("Hello.")
    for line in ["Let me look at your account first.", "Is your lamp dark?", "Please plug the lamp in."]:
        talk.agent(line).user(line)  # the agent's line, repeated word for word
    detail = fired(talk.ended())["never_stated_problem"]
    assert detail == "it said none of its reason's key words ('lamp', 'dark') before the agent did (1 needed)"


@pytest.mark.parametrize(
    ("reason", "said", "stated"),
    [
        ("My lamp is dark.", "My lamp is dark.", True),
        ("My lamp is dark.", "Hi, the lamps went darker last night", True),  # other forms of its words
        ("My lamp is dark.", "My lamp is broken.", True),  # one key word of two is enough
        ("My lamp is dark.", "Hello, I need some help please.", False),  # function words and chat only
        ("Your phone has been showing 'No Service' for hours.", "My phone is broken.", False),
        ("Your phone has been showing 'No Service' for hours.", "My phone shows no service.", True),
        (
            UserInstructions(
                reason_for_call="You want to cancel reservation EHGLP3.",
                known_info="Your user id is mia_li_3668.",
                task_instructions="Insist on a refund.",
            ),
            "My user id is mia_li_3668.",  # facts of the brief, not its reason for calling
            False,
        ),
        (
            "You are Kenji Tanaka. You want to change the email on your account.",  # a free-text brief
            "Hi, I would like to change my email address.",
            True,
        ),
    ],
)
def test_stating_its_problem(reason: str | UserInstructions, said: str, stated: bool) -> None:
    found = fired(Talk().user(said).ended(), with_reason(reason))
    assert ("never_stated_problem" not in found) is stated


@given(st.lists(st.text(max_size=60), min_size=1, max_size=5), st.text(max_size=60))
def test_a_customer_that_only_repeats_the_agent_never_states_its_problem(
    lines: list[str], reason: str
) -> None:
    talk = Talk()
    for line in lines:
        talk.user(talk.entries[-1].text or "").agent(line)
    found = fired(talk.user(lines[-1]).ended(), with_reason(f"{reason} My lamp is dark."))
    assert "never_stated_problem" in found


@given(st.text(max_size=200))
def test_a_customer_opening_with_its_reason_states_it(reason: str) -> None:
    assert "never_stated_problem" not in fired(Talk().user(reason).ended(), with_reason(reason))


def test_the_customer_seat_failing() -> None:
    broken = sound().ended(TerminationReason.ACTOR_ERROR, "user actor: The turn was empty.")
    assert "user_seat_failed" in fired(broken)
    agent_failed = sound().ended(TerminationReason.ACTOR_ERROR, "agent actor: The turn was empty.")
    assert "user_seat_failed" not in fired(agent_failed)


IDENTIFIERS = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", min_size=3, max_size=10).filter(
    lambda token: any(ch.isdigit() for ch in token) and any(ch.isalpha() for ch in token)
)


@given(st.lists(IDENTIFIERS, min_size=1, max_size=4, unique=True), IDENTIFIERS)
def test_identifiers_the_customer_was_given_are_founded_and_new_ones_are_not(
    given_tokens: list[str], new: str
) -> None:
    persona = "Your references are " + ", ".join(given_tokens) + "."
    task = BOTH.model_copy(
        update={"user_scenario": BOTH.user_scenario.model_copy(update={"persona_text": persona})}
    )
    repeated = Talk().user("My references: " + " and ".join(given_tokens) + ".").ended()
    assert "unfounded_fact" not in fired(repeated, task)
    known = re.sub(r"[^a-z0-9]", "", task.user_scenario.text().lower())
    if new.lower() not in known:  # the rule compares letters and digits only
        invented = Talk().user(f"My reference is {new}.").ended()
        assert fired(invented, task)["unfounded_fact"] == f"stated {new!r}"


_TELECOM_TOOLS = SeatTools.of(get_domain("telecom"))
_TOOL_WORDS = sorted({word for name in _TELECOM_TOOLS.customer for word in name.split("_")})
_TOOL_NAMES = sorted(_TELECOM_TOOLS.customer)
_OTHER_PIECES = ["the", "your", " ", "_", ".", "İ", "ı", "ſ", "K", "phone.", "x", "1", "-", "\n", "é"]


@example(".check app status")
@example("_check app status")
@example("xcheck_app_status; 1check app status")
@example("1x.check_app_status")
@example("é check app status")
@settings(max_examples=1000)
@given(
    st.lists(
        st.sampled_from(
            [*_TOOL_WORDS, *_TOOL_NAMES, *(name.replace("_", " ") for name in _TOOL_NAMES), *_OTHER_PIECES]
        )
        | st.text(max_size=4),
        max_size=12,
    ).map("".join)
)
def test_the_quick_pass_over_a_request_never_changes_what_the_pattern_finds(text: str) -> None:
    match = _FIRST_REQUEST_PATTERN.search(text)
    assert _TELECOM_TOOLS.requested(text) == (None if match is None else match[0])


def _first_request_pattern(names: frozenset[str]) -> re.Pattern[str]:
    """The request pattern as first written (every form tried at every place), the oracle of the fast
    one."""
    between = r"\s+(?:(?:a|an|the|your|my)\s+)?"
    forms = []
    for name in sorted(names, key=len, reverse=True):
        forms.append(rf"(?<![\w.])(?:\w+\.)?{re.escape(name)}(?!\w)")
        words = name.split("_")
        if len(words) > 1:
            forms.append(r"\b" + between.join(map(re.escape, words)) + r"\b")
    return re.compile("|".join(forms), re.IGNORECASE)


_FIRST_REQUEST_PATTERN = _first_request_pattern(_TELECOM_TOOLS.customer)


def test_a_request_written_with_letters_the_pattern_folds_is_still_found() -> None:
    name = sorted(_TELECOM_TOOLS.customer)[0]
    spelled = name.replace("s", "ſ").replace("i", "ı").replace("k", "K")
    assert _TELECOM_TOOLS.requested(f"Please run {spelled} now") == spelled
