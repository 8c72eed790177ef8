"""`tau2 run`: simulate a suite's tasks × trials concurrently into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
    SplitOption,
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
from tau2.runs import MAX_TRIALS

MAX_WORKERS = 1_024
"""More worker processes than any machine has cores; a typo must not fork thousands of processes."""


def command(
    out: Annotated[Path, typer.Option("--out", help="Run directory (new, or existing with --resume).")],
    suite: SuiteOption = None,
    domain: DomainOption = None,
    task_ids: Annotated[
        list[str] | None,
        typer.Option("--task-ids", help="Run only these tasks (comma-separated, repeatable)."),
    ] = None,
    split: SplitOption = None,
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
    trials: Annotated[
        int | None, typer.Option("--trials", min=1, max=MAX_TRIALS, help="Trials per task (default 1).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Run seed (default 0).")] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Domain data directory (default: the domain's own).")
    ] = None,
    judge_model: JudgeModel = None,
    judge_api_base: JudgeApiBase = None,
    judge_arg: JudgeArg = None,
    judge_timeout: JudgeTimeout = None,
    judge_retry_budget: JudgeRetryBudget = None,
    judge_max_retries: JudgeMaxRetries = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency", min=1, help="Simulations in flight at once (default 32; kept on resume)."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=MAX_WORKERS,
            help="Worker processes, each with its own event loop; --concurrency is split between them.",
        ),
    ] = 1,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="Run the workers as actors on this Ray cluster ('auto', 'local' or host:port; needs the "
            "ray extra); --workers sets how many.",
        ),
    ] = None,
    rate_limit: Annotated[
        list[str] | None,
        typer.Option(
            "--rate-limit",
            help="PROVIDER=CONCURRENCY or PROVIDER=CONCURRENCY/RPM; PROVIDER may be an API host:port "
            "(repeatable; kept on resume).",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run in --out: run only its missing simulations.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    debug_turn_delay: Annotated[
        float, typer.Option("--debug-turn-delay", min=0.0, hidden=True, help="Sleep before every actor turn.")
    ] = 0.0,
) -> None:
    """Run every task × trial, append one record per simulation to OUT/results.jsonl, print a summary.

    Configuration options omitted on --resume keep the run's values; given ones must match them.
    """
    import asyncio

    from tau2.actors import pairing_warning
    from tau2.cli._output import say
    from tau2.cli._signals import Stopped
    from tau2.errors import UserInputError
    from tau2.llm import AuthenticationError, current_settings, default_limits
    from tau2.runner import (
        ProgressBar,
        RunRequest,
        Tally,
        execute_on_workers,
        execute_run,
        nothing_judged,
        parse_rate_limit,
        parse_task_ids,
        prepare_run,
        run_summary,
    )
    from tau2.runs import RunDirectoryLock, latest_records

    limits = dict(parse_rate_limit(item) for item in rate_limit or []) or None
    request = RunRequest(
        suite=suite,
        domain=domain,
        task_ids=parse_task_ids(task_ids or []),
        split=split,
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
        trials=trials,
        seed=seed,
        data_dir=data_dir,
        concurrency=concurrency,
        rate_limits=limits,
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
    with RunDirectoryLock(out) as lock:
        lock.acquire()  # before anything in the directory is read or written
        prepared = prepare_run(request, out, resume=resume)
        manifest = prepared.manifest
        for key, limit in manifest.rate_limits.items():
            default_limits().configure(key, limit)
        pairing = pairing_warning(manifest.agent, manifest.user)
        for warning in [*prepared.warnings, *([pairing] if pairing else [])]:
            say(f"warning: {warning}", err=True)
        tally = Tally(len(manifest.task_ids) * manifest.trials, prepared.previous)
        try:
            with ProgressBar(tally, enabled=not quiet) as bar:
                limits_by_key = dict(manifest.rate_limits)
                if ray is not None:
                    from tau2.runner import execute_on_ray

                    execution = execute_on_ray(
                        prepared,
                        bar,
                        address=ray,
                        concurrency=manifest.concurrency,
                        workers=workers,
                        limits=limits_by_key,
                        retry=current_settings().retry,
                        turn_delay_s=debug_turn_delay,
                    )
                elif workers > 1:
                    execution = execute_on_workers(
                        prepared,
                        bar,
                        concurrency=manifest.concurrency,
                        workers=workers,
                        limits=limits_by_key,
                        retry=current_settings().retry,
                        turn_delay_s=debug_turn_delay,
                    )
                else:
                    execution = execute_run(
                        prepared, bar, concurrency=manifest.concurrency, turn_delay_s=debug_turn_delay
                    )
                written = asyncio.run(execution)
        except AuthenticationError as error:
            raise UserInputError(
                f"{error} (the run stopped; finished simulations are saved: fix the credentials, then "
                f"`tau2 run --resume --out {out}` continues)"
            ) from None
        except KeyboardInterrupt as interruption:
            note = f"finished simulations are saved; `tau2 run --resume --out {out}` continues"
            raise Stopped(interruption, note) from None
    records = latest_records([*prepared.previous, *written])
    say(run_summary(manifest, records, out))
    failure = nothing_judged(records)
    if failure is not None:
        say(f"error: {failure}", err=True)
        raise typer.Exit(1)
