"""`tau2 episode`: run one task once with the chosen actors and show both seats' views and the verdict."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tau2.actors.base import ActorSpec
from tau2.actors.registry import make_actor
from tau2.cli.options import AgentModel, AgentTransport, DataDir, UserModel, UserTransport
from tau2.compat.tau2bench import load_task_file
from tau2.episode import EpisodeResult, run_episode
from tau2.errors import UserInputError
from tau2.modes import EpisodeConfig, Mode
from tau2.task import Task
from tau2.tools import Side
from tau2.trajectory import Entry, EntryKind

_SHOWN_IDS = 5
"""How many task ids an unknown-id error lists."""


def command(
    suite: Annotated[
        Path,
        typer.Option("--suite", help="A tau2 suite file or a τ²-bench task file.", show_default=False),
    ],
    task_id: Annotated[str, typer.Option("--task-id", help="ID of the task to run.", show_default=False)],
    agent: Annotated[
        str, typer.Option("--agent", help="Agent kind: oracle, null, transfer, llm, …")
    ] = "oracle",
    user: Annotated[
        str, typer.Option("--user", help="User kind (interactive): scripted, llm, …")
    ] = "scripted",
    mode: Annotated[Mode, typer.Option("--mode", help="Who holds which tools.")] = Mode.INTERACTIVE,
    oracle_plan: Annotated[
        bool, typer.Option("--oracle-plan", help="Show the agent the reference solution.")
    ] = False,
    data_dir: DataDir = None,
    persona_text: Annotated[
        str | None, typer.Option("--persona-text", help="Persona text for the user, replacing the task's.")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=1, help="Actor turns before the episode is cut off.")
    ] = None,
    agent_model: AgentModel = None,
    user_model: UserModel = None,
    agent_transport: AgentTransport = None,
    user_transport: UserTransport = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed passed to the actors.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the episode result as JSON.")] = False,
) -> None:
    """Run one episode and print the conversation, the termination, each assertion and the reward."""
    task = _find_task(load_task_file(suite), task_id, suite)
    settings: dict[str, object] = {"mode": mode, "oracle_plan": oracle_plan, "seed": seed}
    if max_steps is not None:
        settings["max_steps"] = max_steps
    config = EpisodeConfig.model_validate(settings)
    agent_spec = ActorSpec(kind=agent, model=agent_model, transport=agent_transport or "auto")
    user_spec = ActorSpec(kind=user, model=user_model, transport=user_transport or "auto")
    agent_actor = make_actor(agent_spec, Side.AGENT, mode)
    user_actor = None if mode is Mode.SOLO else make_actor(user_spec, Side.USER, mode)
    result = asyncio.run(
        run_episode(
            task,
            agent_actor,
            user_actor,
            config,
            data_dir=data_dir,
            persona_text=persona_text,
            agent_label=agent_spec.label(),
            user_label=user_spec.label(),
        )
    )
    if json_output:
        typer.echo(result.model_dump_json())
    else:
        show_episode(Console(), result)


def _find_task(tasks: list[Task], task_id: str, path: Path) -> Task:
    """The task called `task_id`, or a one-line `UserInputError` listing a few ids of the file."""
    for task in tasks:
        if task.id == task_id:
            return task
    shown = ", ".join(task.id for task in tasks[:_SHOWN_IDS])
    more = f", … ({len(tasks)} tasks)" if len(tasks) > _SHOWN_IDS else ""
    raise UserInputError(f"{path}: no task with id {task_id!r} (ids: {shown or 'none'}{more})")


def show_episode(console: Console, result: EpisodeResult) -> None:
    """Print the conversation (one column per seat), the termination, assertions, actions and reward."""
    seats = [Side.AGENT] if result.config.mode is Mode.SOLO else [Side.AGENT, Side.USER]
    console.print(f"[bold]{escape(result.task_id)}[/]  mode: {result.config.label()}")
    conversation = Table(
        "#",
        *(f"{seat.value} ({escape(_label(result, seat))})" for seat in seats),
        caption="messages reach both seats; tool calls and results only the seat that made them",
        show_lines=True,
    )
    for entry in result.trajectory.entries:
        cells = [_cell(entry) if entry.seat is seat else "" for seat in seats]
        conversation.add_row(str(entry.index), *cells)
    console.print(conversation)
    detail = (
        f" ({escape(result.trajectory.termination_detail)})" if result.trajectory.termination_detail else ""
    )
    console.print(f"termination: {result.termination.value}{detail}")
    evaluation = result.evaluation
    for record in evaluation.assertions:
        mark = "[green]pass[/]" if record.passed else "[red]FAIL[/]"
        args = ", ".join(f"{key}={value!r}" for key, value in record.arguments.items())
        error = f" — {escape(record.error)}" if record.error else ""
        console.print(f"assertion {mark} {record.side.value}.{escape(record.name)}({escape(args)}){error}")
    if evaluation.expects_transfer:
        console.print(f"transfer expected: {'done' if evaluation.transferred else 'missing'}")
    for action in evaluation.actions:
        performed = "performed" if action.performed else "not performed"
        seat = (
            "" if not action.performed else (" by its seat" if action.by_right_seat else " by the wrong seat")
        )
        console.print(f"action {escape(action.action_id)} ({action.side.value}): {performed}{seat}")
    console.print(f"steps: {evaluation.steps}  tool errors: {evaluation.tool_errors}")
    console.print(f"[bold]reward: {result.reward}[/]")


def _label(result: EpisodeResult, seat: Side) -> str:
    """The printable spec label of a seat's actor."""
    label = result.agent if seat is Side.AGENT else result.user
    return label or "actor"


def _cell(entry: Entry) -> str:
    """How one entry reads in its seat's column."""
    if entry.kind is EntryKind.MESSAGE:
        return f"[bold]{escape(entry.text or '')}[/]"
    if entry.kind is EntryKind.ACTOR_ERROR:
        return f"[red]actor error: {escape(entry.text or '')}[/]"
    call = entry.tool_call
    name = call.name if call is not None else "?"
    if entry.kind is EntryKind.TOOL_CALL:
        args = ", ".join(f"{key}={value!r}" for key, value in (call.arguments if call else {}).items())
        side = f" [{call.side.value}]" if call is not None and call.side is not None else ""
        return f"[cyan]→ {escape(name)}({escape(args)}){escape(side)}[/]"
    result = entry.result
    text = escape(result.render()) if result is not None else ""
    return f"[red]← {text}[/]" if result is not None and not result.ok else f"[dim]← {text}[/]"
