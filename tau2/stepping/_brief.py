"""What a seat played from outside is told: its policy or scenario, as plain text for people and learners."""

from __future__ import annotations

from tau2.actors import LATE_INFO_LEAD, render_plan
from tau2.episode import Mode, SeatContext
from tau2.tasks import UserInstructions
from tau2.world import Side


def seat_brief(context: SeatContext) -> str:
    """The agent's policy (with the ticket in solo mode and the plan when shown), or the user's scenario."""
    if context.seat is Side.USER:
        return _scenario(context)
    solo = context.config.mode is Mode.SOLO
    parts = [context.policy or "(this domain has no written policy)"]
    if solo and context.task.ticket:
        parts.append(f"Ticket: {context.task.ticket}")
    if context.config.oracle_plan:
        parts.append("Reference plan:\n" + render_plan(context.task.evaluation.solution, solo))
    return "\n\n".join(parts)


def _scenario(context: SeatContext) -> str:
    instructions = context.task.user_scenario.instructions
    if isinstance(instructions, UserInstructions):
        lines = [f"Why you are calling: {instructions.reason_for_call}"]
        if instructions.known_info:
            lines.append(f"What you know: {instructions.known_info}")
        if instructions.late_info:
            lines.append(f"{LATE_INFO_LEAD} {instructions.late_info}")
        if instructions.unknown_info:
            lines.append(f"What you do not know: {instructions.unknown_info}")
        lines.append(f"How to act: {instructions.task_instructions}")
        text = "\n".join(lines)
    else:
        text = instructions
    if context.persona_text:
        text += f"\n\nWho you are: {context.persona_text}"
    return text
