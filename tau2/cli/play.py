"""`tau2 play`: play one seat of a task yourself in the terminal; the episode is recorded as a run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from tau2 import Mode
from tau2.cli.options import DataDir


def command(
    domain: Annotated[str | None, typer.Option("--domain", help="Domain (asked when not given).")] = None,
    suite: Annotated[
        str | None,
        typer.Option("--suite", help="A suite of the domain, by name or file (asked when not given)."),
    ] = None,
    task_id: Annotated[
        str | None, typer.Option("--task-id", help="Task to play (asked when not given).")
    ] = None,
    seat: Annotated[
        str | None,
        typer.Option("--seat", help="agent or customer (asked when not given).", show_default=False),
    ] = None,
    mode: Annotated[Mode | None, typer.Option("--mode", help="interactive or solo (agent only).")] = None,
    other: Annotated[
        str | None, typer.Option("--other", help="Actor kind of the other seat (asked when not given).")
    ] = None,
    other_model: Annotated[
        str | None, typer.Option("--other-model", help="Model of an llm other seat.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run directory to record into (default: runs/play-<time>).")
    ] = None,
    data_dir: DataDir = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed passed to the other seat's actor.")] = 0,
) -> None:
    """Play a seat: pick domain, suite, task, seat and the other seat's actor, then converse.

    Leaving (/quit, or the end of the input) records nothing and exits 0; Ctrl-C exits 130.
    """
    from tau2.cli._signals import Stopped
    from tau2.errors import UserInputError
    from tau2.play import SessionEnded, Terminal
    from tau2.play import choose_play_setup as choose_setup
    from tau2.play import play_session as play
    from tau2.play import record_play as record
    from tau2.runner import check_new_run_dir
    from tau2.world import Side

    seats = {"agent": Side.AGENT, "customer": Side.USER, "user": Side.USER}
    if seat is not None and seat not in seats:
        raise UserInputError(f"--seat {seat!r}: expected agent or customer")
    chosen = None if seat is None else seats[seat]
    run_dir = out or Path("runs") / f"play-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    check_new_run_dir(run_dir)
    term = Terminal()
    try:
        setup = choose_setup(
            term,
            domain=domain,
            suite=suite,
            task_id=task_id,
            seat=chosen,
            mode=mode,
            other=other,
            other_model=other_model,
        )
        result = play(term, setup, data_dir, seed)
    except SessionEnded:  # left during the menu: the person's choice, not a failure
        typer.echo("left before the episode started; nothing was recorded", err=True)
        return
    except KeyboardInterrupt as interruption:
        raise Stopped(interruption, "nothing was recorded") from None
    if result is None:  # left during the conversation (play said so)
        return
    record(run_dir, setup, result)
    typer.echo(f"recorded in {run_dir}: `tau2 report {run_dir}` or `tau2 view {run_dir}`")
