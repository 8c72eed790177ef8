"""`tau2 export`: write a run in another tool's format (a Potato project, a τ²-bench results file)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import RunDir

app = typer.Typer(no_args_is_help=True, help="Write a run in another tool's format.")

OutPath = Annotated[
    Path, typer.Option("-o", "--out", help="Where to write ('-': stdout).", show_default=False)
]


@app.command("potato")
def potato(
    run_dir: RunDir,
    out: OutPath,
    port: Annotated[int, typer.Option("--port", help="Port the Potato server will listen on.")] = 8000,
    show_outcome: Annotated[
        bool,
        typer.Option(
            "--show-outcome",
            help="Show annotators the assertions and the reward (default: they judge blind).",
        ),
    ] = False,
) -> None:
    """Write a Potato annotation project for the simulations of RUN_DIR (serve: potato start config.yaml)."""
    from tau2.annotation import POTATO_CONFIG_FILE as CONFIG_FILE
    from tau2.annotation import export_potato_project as export_project
    from tau2.cli._output import is_stdout
    from tau2.errors import UserInputError

    if is_stdout(out):
        raise UserInputError("--out -: a Potato project is a directory; give its path")
    count = export_project(run_dir, out, port=port, show_outcome=show_outcome)
    typer.echo(f"wrote {out} ({count} simulations); serve it with: cd {out} && potato start {CONFIG_FILE}")


@app.command("tau2bench")
def tau2bench(
    run_dir: RunDir,
    out: OutPath,
    submission: Annotated[
        Path | None,
        typer.Option(
            "--submission", metavar="FILE", help="Also write a leaderboard submission.json ('-': stdout)."
        ),
    ] = None,
    model_name: Annotated[
        str | None, typer.Option("--model-name", help="Model name for the submission.")
    ] = None,
    organization: Annotated[
        str | None, typer.Option("--organization", help="Organisation for the submission.")
    ] = None,
    also: Annotated[
        list[Path] | None,
        typer.Option("--also", metavar="RUN_DIR", help="Runs of other domains to add to the submission."),
    ] = None,
    custom: Annotated[
        bool,
        typer.Option(
            "--custom",
            help="Submit runs that are not of an official τ²-bench task set, marked as a custom submission.",
        ),
    ] = False,
) -> None:
    """Write RUN_DIR as a τ²-bench results file (and, with --submission, a leaderboard submission)."""
    from tau2._jsonfile import write_json
    from tau2.cli._output import is_stdout, output_file, say
    from tau2.errors import UserInputError
    from tau2.runs import load_run
    from tau2.tau2bench_results import export_tau2bench_results as export_results
    from tau2.tau2bench_results import refuse_existing
    from tau2.tau2bench_results import tau2bench_submission as build_submission

    if submission is not None and not is_stdout(submission):
        refuse_existing(submission)
    if submission is not None and organization is None:  # refused before anything is written
        raise UserInputError("--submission needs --organization (the model's organisation)")
    if is_stdout(out) and is_stdout(submission):
        raise UserInputError("--out - and --submission - both write to stdout: give one of them")
    leaderboard = None  # built first: a run the submission refuses leaves no file behind
    if submission is not None and organization is not None:
        run = load_run(run_dir)
        agent_model = run.manifest.agent.model
        name = model_name or (agent_model.name if agent_model is not None else run.manifest.agent.kind)
        user = run.manifest.user.label() if run.manifest.user is not None else None
        leaderboard = build_submission([run_dir, *(also or [])], name, organization, user, custom=custom)
    with output_file(out, "results.json") as path:
        simulations = export_results(run_dir, path)
    on_stdout = is_stdout(out) or is_stdout(submission)  # then our messages go to stderr
    say(f"wrote {out} ({simulations} simulations)", err=on_stdout)
    if submission is None or leaderboard is None:
        return
    with output_file(submission, "submission.json") as path:
        write_json(path, leaderboard)
    say(f"wrote {submission}", err=on_stdout)
