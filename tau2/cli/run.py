"""`tau2 run`: simulate a suite's tasks × trials concurrently into a resumable run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import AgentModel, AgentTransport, UserModel, UserTransport
from tau2.modes import EpisodeConfig, Mode

_DEFAULTS = EpisodeConfig()


def command(
    out: Annotated[Path, typer.Option("--out", help="Run directory (new, or existing with --resume).")],
    suite: Annotated[
        Path | None, typer.Option("--suite", help="A tau2 suite file or a τ²-bench task file.")
    ] = None,
    domain: Annotated[
        str | None,
        typer.Option("--domain", help="Run the domain's default suite; with --suite, the tasks' domain."),
    ] = None,
    task_ids: Annotated[
        list[str] | None,
        typer.Option("--task-ids", help="Run only these tasks (comma-separated, repeatable)."),
    ] = None,
    mode: Annotated[Mode | None, typer.Option("--mode", help="interactive (default) or solo.")] = None,
    oracle_plan: Annotated[
        bool | None, typer.Option("--oracle-plan/--no-oracle-plan", help="Show the agent the reference plan.")
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent", help="Agent kind: oracle, null, transfer, llm (default), or any registered kind."
        ),
    ] = None,
    agent_model: AgentModel = None,
    agent_api_base: Annotated[
        str | None, typer.Option("--agent-api-base", help="API base of an llm agent's server.")
    ] = None,
    agent_arg: Annotated[
        list[str] | None,
        typer.Option(
            "--agent-arg", help="KEY=VALUE provider argument of an llm agent (JSON value; repeatable)."
        ),
    ] = None,
    agent_transport: AgentTransport = None,
    user: Annotated[
        str | None, typer.Option("--user", help="User kind: scripted, llm (default), or any registered kind.")
    ] = None,
    user_model: UserModel = None,
    user_api_base: Annotated[
        str | None, typer.Option("--user-api-base", help="API base of an llm user's server.")
    ] = None,
    user_arg: Annotated[
        list[str] | None,
        typer.Option(
            "--user-arg", help="KEY=VALUE provider argument of an llm user (JSON value; repeatable)."
        ),
    ] = None,
    user_transport: UserTransport = None,
    persona: Annotated[
        str | None,
        typer.Option(
            "--persona", help="Persona for every task (library name or .toml path); default: each task's."
        ),
    ] = None,
    trials: Annotated[
        int | None, typer.Option("--trials", min=1, help="Trials per task (default 1).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Run seed (default 0).")] = None,
    max_steps: Annotated[
        int | None,
        typer.Option("--max-steps", min=1, help=f"Actor turns per episode (default {_DEFAULTS.max_steps})."),
    ] = None,
    max_errors: Annotated[
        int | None,
        typer.Option(
            "--max-errors", min=1, help=f"Failed tool calls per episode (default {_DEFAULTS.max_errors})."
        ),
    ] = None,
    policy_variant: Annotated[
        str | None, typer.Option("--policy-variant", help="Agent policy variant (default manual).")
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Domain data directory (default: the domain's own).")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Simulations in flight at once.")
    ] = 32,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
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
            "(repeatable).",
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
    import sys

    from tau2.errors import UserInputError
    from tau2.llm.hooks import current_settings
    from tau2.llm.limits import default_limits
    from tau2.rundir import latest_records
    from tau2.runner import (
        ProgressBar,
        RunRequest,
        SeatRequest,
        Tally,
        execute_on_workers,
        execute_run,
        parse_assignments,
        parse_rate_limit,
        parse_task_ids,
        prepare_run,
        run_summary,
    )
    from tau2.runner.lock import RunDirectoryLock

    limits = [parse_rate_limit(item) for item in rate_limit or []]
    request = RunRequest(
        suite=suite,
        domain=domain,
        task_ids=parse_task_ids(task_ids or []),
        mode=mode,
        oracle_plan=oracle_plan,
        agent=SeatRequest(
            kind=agent,
            model=agent_model,
            api_base=agent_api_base,
            args=parse_assignments("--agent-arg", agent_arg or []),
            transport=agent_transport,
        ),
        user=SeatRequest(
            kind=user,
            model=user_model,
            api_base=user_api_base,
            args=parse_assignments("--user-arg", user_arg or []),
            transport=user_transport,
        ),
        persona=persona,
        trials=trials,
        seed=seed,
        max_steps=max_steps,
        max_errors=max_errors,
        policy_variant=policy_variant,
        data_dir=data_dir,
    )
    with RunDirectoryLock(out) as lock:
        if out.is_dir():
            lock.acquire()  # before a resume reads (and may repair) the store
        prepared = prepare_run(request, out, resume=resume)
        if not out.is_dir():
            lock.acquire()
            if any(out.iterdir()):  # another new run took the directory between the check and the lock
                raise UserInputError(f"{out}: not empty; another run started in it")
        for key, limit in limits:
            default_limits().configure(key, limit)
        for warning in prepared.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        manifest = prepared.manifest
        tally = Tally(len(manifest.task_ids) * manifest.trials, prepared.previous)
        try:
            with ProgressBar(tally, enabled=not quiet) as bar:
                if ray is not None:
                    from tau2.runner.ray_workers import execute_on_ray

                    execution = execute_on_ray(
                        prepared,
                        bar,
                        address=ray,
                        concurrency=concurrency,
                        workers=workers,
                        limits=dict(limits),
                        retry=current_settings().retry,
                        turn_delay_s=debug_turn_delay,
                    )
                elif workers > 1:
                    execution = execute_on_workers(
                        prepared,
                        bar,
                        concurrency=concurrency,
                        workers=workers,
                        limits=dict(limits),
                        retry=current_settings().retry,
                        turn_delay_s=debug_turn_delay,
                    )
                else:
                    execution = execute_run(
                        prepared, bar, concurrency=concurrency, turn_delay_s=debug_turn_delay
                    )
                written = asyncio.run(execution)
        except KeyboardInterrupt:
            print(
                f"interrupted: finished simulations are saved; `tau2 run --resume --out {out}` continues",
                file=sys.stderr,
            )
            raise typer.Exit(130) from None
    typer.echo(run_summary(manifest, latest_records([*prepared.previous, *written]), out))
