"""`tau2 episode`: run one task once with the chosen actors and show both seats' views and the verdict."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tau2._display import markup_literal as literal
from tau2._display import output_console
from tau2.cli._config_options import EPISODE_SEED, episode_options, with_options
from tau2.cli.options import ConfigFile, configured_layers
from tau2.episode import Entry, EntryKind, EpisodeResult, Mode
from tau2.world import Side

EPISODE_OPTIONS = episode_options()
"""One option per run setting that shapes an episode, derived from `RunConfig`."""


@with_options([*EPISODE_OPTIONS, EPISODE_SEED])
def command(
    task_id: Annotated[str, typer.Option("--task-id", help="ID of the task to run.", show_default=False)],
    config: ConfigFile = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the episode result as JSON.")] = False,
    **given: Any,
) -> None:
    """Run one episode and print the conversation, the termination, each assertion and the reward.

    It takes the same seat and episode settings, with the same defaults, as `tau2 run` (a --config file
    of a run included: its run-only settings, such as trials, are not used).
    """
    from tau2.actors import make_actor, pairing_warning
    from tau2.cli._output import say
    from tau2.config import layered
    from tau2.episode import JudgePanel, run_episode
    from tau2.runner import prepare_episode

    layers = configured_layers(config, EPISODE_OPTIONS, given)
    setup = prepare_episode(layers, task_id, seed=given.get(EPISODE_SEED.parameter))
    pairing = pairing_warning(setup.agent, setup.user)
    for warning in [*setup.warnings, *([pairing] if pairing else [])]:
        say(f"warning: {warning}", err=True)
    mode = setup.config.mode
    agent_actor = make_actor(setup.agent, Side.AGENT, mode)
    user_actor = None if setup.user is None else make_actor(setup.user, Side.USER, mode)
    result = asyncio.run(
        run_episode(
            setup.task,
            agent_actor,
            user_actor,
            setup.config,
            data_dir=setup.data_dir,
            judge=JudgePanel.of(setup.judges),
            judge_always=layered(layers).judge_always,
            agent_label=setup.agent.label(),
            user_label=None if setup.user is None else setup.user.label(),
        )
    )
    if json_output:
        typer.echo(result.model_dump_json())
    else:
        show_episode(output_console(), result)
    if result.termination.is_infrastructure:
        detail = result.trajectory.termination_detail or "no detail"
        say(f"error: the episode was not judged: {result.termination.value}: {detail}", err=True)
        raise typer.Exit(1)


def show_episode(console: Console, result: EpisodeResult) -> None:
    """Print the conversation (one column per seat), the termination, assertions, actions and reward."""
    seats = [Side.AGENT] if result.config.mode is Mode.SOLO else [Side.AGENT, Side.USER]
    console.print(f"[bold]{literal(result.task_id)}[/]  mode: {result.config.label()}")
    conversation = Table(
        "#",
        *(f"{seat.value} ({literal(_label(result, seat))})" for seat in seats),
        caption="messages reach both seats; tool calls and results only the seat that made them",
        show_lines=True,
    )
    for entry in result.trajectory.entries:
        cells = [_cell(entry) if entry.seat is seat else "" for seat in seats]
        conversation.add_row(str(entry.index), *cells)
    console.print(conversation)
    detail = (
        f" ({literal(result.trajectory.termination_detail)})" if result.trajectory.termination_detail else ""
    )
    console.print(f"termination: {result.termination.value}{detail}")
    evaluation = result.evaluation
    for record in evaluation.assertions:
        mark = "[green]pass[/]" if record.passed else "[red]FAIL[/]"
        args = ", ".join(f"{key}={value!r}" for key, value in record.arguments.items())
        error = f" — {literal(record.error)}" if record.error else ""
        console.print(f"assertion {mark} {record.side.value}.{literal(record.name)}({literal(args)}){error}")
    if evaluation.expects_transfer:
        console.print(f"transfer expected: {'done' if evaluation.transferred else 'missing'}")
    for action in evaluation.actions:
        performed = "performed" if action.performed else "not performed"
        seat = (
            "" if not action.performed else (" by its seat" if action.by_right_seat else " by the wrong seat")
        )
        console.print(f"action {literal(action.action_id)} ({action.side.value}): {performed}{seat}")
    for check in evaluation.checks:
        unjudged = f"[yellow]{'not needed' if evaluation.judge_skipped else 'not judged'}[/]"
        outcome = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: unjudged}[check.passed]
        role = "gating" if check.gating else "diagnostic"
        item = f" {literal(check.item)}" if check.item else ""
        console.print(f"{check.kind.value.lower()} ({role}) {outcome}{item}")
    console.print(f"steps: {result.trajectory.steps}  tool errors: {evaluation.tool_errors}")
    perturbation = result.perturbation
    for event in [] if perturbation is None else perturbation.events:
        where = "" if event.entry is None else f" at entry {event.entry} ({literal(event.tool or '')})"
        detail = "" if event.detail is None else f": {literal(event.detail)}"
        repeat = " again" if event.repeat else ""
        console.print(f"perturbation {literal(event.kind)}: {literal(event.effect)}{repeat}{where}{detail}")
    if perturbation is not None and perturbation.noticed:
        console.print(f"the agent noticed: {literal(', '.join(perturbation.noticed))}")
    recall = evaluation.retrieval
    if recall is not None:
        shown = len(set(recall.required) & set(recall.retrieved))
        rate = "n/a" if recall.recall is None else f"{recall.recall:.3f}"
        console.print(
            f"retrieval {literal(recall.configuration)}: {shown} of {len(recall.required)} required "
            f"documents seen (recall@{recall.k} {rate})"
        )
    console.print(f"[bold]reward: {result.reward}[/]")


def _label(result: EpisodeResult, seat: Side) -> str:
    """The printable spec label of a seat's actor."""
    label = result.agent if seat is Side.AGENT else result.user
    return label or "actor"


def _cell(entry: Entry) -> str:
    """How one entry reads in its seat's column."""
    if entry.kind is EntryKind.MESSAGE:
        return f"[bold]{literal(entry.text or '')}[/]"
    if entry.kind is EntryKind.REJECTED_REPLY and entry.rejected is not None:
        return f"[red]✗ not accepted: {literal(entry.rejected.summary())}[/]"
    if entry.kind is EntryKind.ACTOR_ERROR:
        return f"[red]actor error: {literal(entry.text or '')}[/]"
    call = entry.tool_call
    name = call.name if call is not None else "?"
    if entry.kind is EntryKind.TOOL_CALL:
        args = ", ".join(f"{key}={value!r}" for key, value in (call.arguments if call else {}).items())
        side = f" [{call.side.value}]" if call is not None and call.side is not None else ""
        return f"[cyan]→ {literal(name)}({literal(args)}){literal(side)}[/]"
    result = entry.result
    text = literal(result.render()) if result is not None else ""
    return f"[red]← {text}[/]" if result is not None and not result.ok else f"[dim]← {text}[/]"
