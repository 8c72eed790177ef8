"""System prompts of the LLM seats: the agent, the solo agent and the simulated customer.

Each prompt is built only from what its seat may know: the agent gets the policy (and, in oracle-plan
mode, the reference plan); the solo agent also gets the ticket; the customer gets its scenario and persona.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import JsonValue

from tau2.episode import DONE_TOOL
from tau2.tasks import SolutionStep, UserInstructions
from tau2.world import Side

LLM_PROMPT_VERSION = "1"
"""The version of the LLM seats' prompts (the guides below and how prompts are assembled): bump it whenever
their text changes, so runs name the prompt their simulated user played by; a test pins the templates'
hash to it."""

LATE_INFO_LEAD = "What you know but say only once the agent asks for it, never in your first message:"
"""How a brief's late information (`UserInstructions.late_info`) is introduced to the customer."""

END_CALL = "end_call"
"""The customer's pseudo-tool for hanging up; the actor turns it into a stop signal."""

AGENT_GUIDE = """\
You are a customer support agent in a live chat with a customer. Your company's policy is below: follow it.

How to work:
- Every reply is either one message to the customer or one or more tool calls. Never both in the same reply.
- Your tools reach the company's back-office systems only. You cannot touch the customer's device or \
anything else on their side: when something must be done or checked there, ask the customer to do it, one \
clear step at a time, and wait for them to report what happened.
- Do not guess facts, identifiers or outcomes. Look them up with your tools or ask the customer.
- Before you change anything on an account, make sure you are dealing with its owner and that the policy \
allows the change.
- When the problem is fixed, tell the customer. When the policy says the case must go to a human, use the \
transfer tool."""

SOLO_GUIDE = f"""\
You are a customer support agent resolving a written ticket on your own. Your company's policy is below: \
follow it.

How to work:
- Nobody is on the line. You cannot send messages or ask questions, so every reply must be one or more tool \
calls.
- You hold both the back-office tools and the tools of the customer's device, and you act on the customer's \
behalf within what the ticket allows. The ticket contains every fact and permission the customer gave.
- Do not guess facts, identifiers or outcomes: look them up with your tools.
- Check the result of every change before you move on.
- When the ticket's problem is resolved, call `{DONE_TOOL}`. When the policy says the case must go to a \
human, use the transfer tool instead: that ends your work."""

SOLO_OPENING = "Work on the ticket now. Reply with tool calls only."

USER_GUIDE = f"""\
You are playing a customer who has contacted a company's support chat. The support agent is the \
other side of the conversation. You are the customer, not an assistant: stay in that role until the end, \
and never say that you are an AI or part of a simulation.

How to behave:
- Write short, natural chat messages and handle one thing at a time.
- You have tools that act on your own device and its surroundings. Use them only to do what the agent asks \
you to do or to check what the agent asks about. Do not troubleshoot on your own initiative.
- Every statement you make about your device must come from a tool result you received in this chat. Never \
guess or invent what the device shows or what an action did; if you are unsure, run the tool that checks it.
- When the agent asks for something you know, tell them. Do not volunteer information the agent has not \
asked for, and if you are asked for something you do not know, say so.
- Every reply is either one message to the agent or one or more tool calls. Never both in the same reply, \
with one exception: `{END_CALL}` may come with a short goodbye.
- If you are given a persona whose habits depart from these rules (for example reporting a step without \
doing it), play those habits: the persona is part of the experiment.
- To end the conversation, call the `{END_CALL}` tool, and no other tool in that reply. Do it once your \
scenario says the issue is resolved, or once the agent has transferred you to a human agent. Do not end it \
for any other reason unless your scenario tells you to."""


TALKING_USER_GUIDE = f"""\
You are playing a customer who has contacted a company's support chat. The support agent is the \
other side of the conversation. You are the customer, not an assistant: stay in that role until the end, \
and never say that you are an AI or part of a simulation.

How to behave:
- Write short, natural chat messages and handle one thing at a time.
- You cannot look anything up or change anything yourself: the agent does that. You only talk.
- Say only what your scenario gives you. When the agent asks for something you know, tell them; do not \
volunteer information the agent has not asked for; if you are asked for something you do not know, say \
so rather than inventing it.
- Follow your scenario's instructions about what to accept, refuse or insist on, and answer the agent's \
confirmation questions accordingly.
- If you are given a persona whose habits depart from these rules, play those habits: the persona is part \
of the experiment.
- To end the conversation, call the `{END_CALL}` tool (a short goodbye may come with it). Do it once your \
request is handled or cannot be handled, or once the agent has transferred you to a human agent. Do not \
end it for any other reason unless your scenario tells you to."""
"""The customer's guide in domains where the customer holds no tools (airline, retail)."""


def agent_system_prompt(policy: str | None, plan: str | None = None) -> str:
    """The interactive agent's instructions, policy and optional reference plan."""
    return _join(AGENT_GUIDE, _section("Policy", policy), _plan_section(plan))


def solo_system_prompt(policy: str | None, ticket: str, plan: str | None = None) -> str:
    """The solo agent's instructions, policy, ticket and optional reference plan."""
    return _join(SOLO_GUIDE, _section("Policy", policy), _section("Ticket", ticket), _plan_section(plan))


def user_system_prompt(
    instructions: UserInstructions | str, persona_text: str | None, *, talk_only: bool = False
) -> str:
    """The simulated customer's guidelines (`talk_only`: a customer without tools), scenario and persona."""
    if isinstance(instructions, str):
        scenario = instructions
    else:
        scenario = _join(
            f"Why you are contacting support: {instructions.reason_for_call}",
            f"What you know: {instructions.known_info}" if instructions.known_info else None,
            f"{LATE_INFO_LEAD} {instructions.late_info}" if instructions.late_info else None,
            f"What you do not know: {instructions.unknown_info}" if instructions.unknown_info else None,
            f"How to act: {instructions.task_instructions}" if instructions.task_instructions else None,
        )
    persona = _section("Who you are", persona_text)
    guide = TALKING_USER_GUIDE if talk_only else USER_GUIDE
    return _join(guide, _section("Your scenario", scenario), persona)


def render_plan(steps: Sequence[SolutionStep], solo: bool) -> str:
    """Numbered reference steps, each saying which seat performs it (in solo mode, always the agent)."""
    lines = []
    for number, step in enumerate(steps, start=1):
        arguments = _arguments(step.arguments)
        if step.side is Side.USER and not solo:
            action = f"The customer runs `{step.name}` on their device{arguments}"
        elif step.side is Side.USER:
            action = f"You run `{step.name}` on the customer's device{arguments}"
        else:
            action = f"You call `{step.name}`{arguments}"
        lines.append(f"{number}. {action}.")
    return "\n".join(lines)


def _arguments(arguments: dict[str, JsonValue]) -> str:
    """` with a=1, b=x` (strings unquoted), or nothing when there are no arguments."""
    if not arguments:
        return ""
    shown = (
        f"{key}={value if isinstance(value, str) else json.dumps(value)}" for key, value in arguments.items()
    )
    return " with " + ", ".join(shown)


def _plan_section(plan: str | None) -> str | None:
    if not plan:
        return None
    return _section(
        "Reference plan",
        "A verified solution of this case, in order. Each step says who performs it.\n" + plan,
    )


def _section(title: str, body: str | None) -> str | None:
    return f"## {title}\n{body.strip()}" if body and body.strip() else None


def _join(*parts: str | None) -> str:
    return "\n\n".join(part for part in parts if part)
