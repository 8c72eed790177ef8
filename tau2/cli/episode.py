"""`tau2 episode`: run one task once with the chosen actors and show both seats' views and the verdict."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from tau2._display import markup_literal as literal
from tau2.cli.options import (
    AgentApiBase,
    AgentArg,
    AgentKind,
    AgentMaxRetries,
    AgentModel,
    AgentRetryBudget,
    AgentTextToolCalls,
    AgentTimeout,
    AgentTransport,
    DataDir,
    DomainOption,
    EmbeddingApiBase,
    EmbeddingModel,
    JudgeApiBase,
    JudgeArg,
    JudgeMaxRetries,
    JudgeModel,
    JudgeRetryBudget,
    JudgeTimeout,
    MaxActorRetries,
    MaxErrors,
    MaxSteps,
    ModeOption,
    OraclePlan,
    PersonaOption,
    PolicyVariant,
    RetrievalOption,
    RetrievalTopK,
    SuiteOption,
    UserApiBase,
    UserArg,
    UserKind,
    UserMaxRetries,
    UserModel,
    UserRetryBudget,
    UserTextToolCalls,
    UserTimeout,
    UserTransport,
    episode_options,
    model_request,
    retrieval_options,
    seat_request,
)
from tau2.episode import Entry, EntryKind, EpisodeResult, Mode
from tau2.world import Side


def command(
    task_id: Annotated[str, typer.Option("--task-id", help="ID of the task to run.", show_default=False)],
    suite: SuiteOption = None,
    domain: DomainOption = None,
    agent: AgentKind = None,
    agent_model: AgentModel = None,
    agent_api_base: AgentApiBase = None,
    agent_arg: AgentArg = None,
    agent_timeout: AgentTimeout = None,
    agent_retry_budget: AgentRetryBudget = None,
    agent_max_retries: AgentMaxRetries = None,
    agent_transport: AgentTransport = None,
    agent_text_tool_calls: AgentTextToolCalls = None,
    user: UserKind = None,
    user_model: UserModel = None,
    user_api_base: UserApiBase = None,
    user_arg: UserArg = None,
    user_timeout: UserTimeout = None,
    user_retry_budget: UserRetryBudget = None,
    user_max_retries: UserMaxRetries = None,
    user_transport: UserTransport = None,
    user_text_tool_calls: UserTextToolCalls = None,
    mode: ModeOption = None,
    oracle_plan: OraclePlan = None,
    max_steps: MaxSteps = None,
    max_errors: MaxErrors = None,
    max_actor_retries: MaxActorRetries = None,
    policy_variant: PolicyVariant = None,
    retrieval: RetrievalOption = None,
    retrieval_top_k: RetrievalTopK = None,
    embedding_model: EmbeddingModel = None,
    embedding_api_base: EmbeddingApiBase = None,
    persona: PersonaOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Seed passed to the actors.")] = None,
    data_dir: DataDir = None,
    judge_model: JudgeModel = None,
    judge_api_base: JudgeApiBase = None,
    judge_arg: JudgeArg = None,
    judge_timeout: JudgeTimeout = None,
    judge_retry_budget: JudgeRetryBudget = None,
    judge_max_retries: JudgeMaxRetries = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the episode result as JSON.")] = False,
) -> None:
    """Run one episode and print the conversation, the termination, each assertion and the reward.

    It takes the same seat and episode options, with the same defaults, as `tau2 run`.
    """
    from tau2.actors import make_actor, pairing_warning
    from tau2.cli._output import say
    from tau2.episode import NLJudge, run_episode
    from tau2.runner import RunRequest, prepare_episode

    request = RunRequest(
        suite=suite,
        domain=domain,
        agent=seat_request(
            agent,
            agent_model,
            agent_api_base,
            agent_arg,
            agent_timeout,
            agent_transport,
            retry_budget=agent_retry_budget,
            max_retries=agent_max_retries,
            seat="agent",
            text_tool_calls=agent_text_tool_calls,
        ),
        user=seat_request(
            user,
            user_model,
            user_api_base,
            user_arg,
            user_timeout,
            user_transport,
            retry_budget=user_retry_budget,
            max_retries=user_max_retries,
            seat="user",
            text_tool_calls=user_text_tool_calls,
        ),
        episode=episode_options(
            mode,
            oracle_plan,
            max_steps,
            max_errors,
            max_actor_retries,
            policy_variant,
            retrieval_options(retrieval, retrieval_top_k, embedding_model, embedding_api_base),
        ),
        persona=persona,
        seed=seed,
        data_dir=data_dir,
        judge=model_request(
            judge_model,
            judge_api_base,
            judge_arg,
            judge_timeout,
            retry_budget=judge_retry_budget,
            max_retries=judge_max_retries,
            option="judge",
        ),
    )
    setup = prepare_episode(request, task_id)
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
            judge=None if setup.judge is None else NLJudge(setup.judge),
            agent_label=setup.agent.label(),
            user_label=None if setup.user is None else setup.user.label(),
        )
    )
    if json_output:
        typer.echo(result.model_dump_json())
    else:
        show_episode(Console(), result)
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
        outcome = {True: "[green]pass[/]", False: "[red]FAIL[/]", None: "[yellow]not judged[/]"}[check.passed]
        role = "gating" if check.gating else "diagnostic"
        item = f" {literal(check.item)}" if check.item else ""
        console.print(f"{check.kind.value.lower()} ({role}) {outcome}{item}")
    console.print(f"steps: {result.trajectory.steps}  tool errors: {evaluation.tool_errors}")
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
