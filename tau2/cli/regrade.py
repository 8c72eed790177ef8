"""`tau2 regrade`: score a run's stored transcripts again, into a new run directory, either against other
task definitions (`--suite`, replayed in the world, no model called) or by other judges (`--judge-model`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tau2.cli._config_options import cache_options, judge_options, options_of, with_options
from tau2.cli.options import RunDir
from tau2.config import RunConfig

if TYPE_CHECKING:
    from tau2.llm import ModelSpec

JUDGE_OPTIONS = [*judge_options(), *options_of(RunConfig, only=["judge_always"])]
"""The judge options of `tau2 run`: the models (`--judge-model`, repeatable), their settings, and whether
they judge simulations a deterministic part already failed (`--judge-always`)."""
CACHE_OPTIONS = cache_options()
"""`--cache DIR`, as `tau2 run` has it: the model cache the judges ask first."""
SHOWN_IDS = 20
"""How many ids a line of tasks the run and the file do not share names (then `…`)."""


@with_options([*JUDGE_OPTIONS, *CACHE_OPTIONS])
def command(
    run_dir: RunDir,
    out: Annotated[
        Path,
        typer.Option("--out", help="The new run directory (new, or empty).", show_default=False),
    ],
    suite: Annotated[
        Path | None,
        typer.Option(
            "--suite",
            help="Task file (ours or τ²-bench's) to score the stored trajectories against.",
            show_default=False,
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="With --suite: the domain's data directory (default: the run's).",
            exists=True,
            file_okay=False,
        ),
    ] = None,
    **given: Any,
) -> None:
    """Score RUN's stored transcripts again into the new run OUT, leaving RUN as it was. With --suite, each
    trajectory's tool calls run again in a fresh world of the file's task and that task's checks judge it
    (no model is called); with --judge-model(s), the natural-language assertions are judged again. Prints
    each verdict that flips; `tau2 compare RUN OUT` shows them too. With --cache DIR, the judges answer
    from the model cache what they (or the run's judges) were asked before."""
    from tau2.cli._config_options import options_layer
    from tau2.config import layered
    from tau2.errors import UserInputError

    settings = layered([options_layer([*JUDGE_OPTIONS, *CACHE_OPTIONS], given)])
    judges = settings.judges
    if suite is not None and judges:
        raise UserInputError("--suite and --judge-model regrade in different ways: give one of them")
    if suite is None and data_dir is not None:
        raise UserInputError("--data-dir goes with --suite (a regrade by judges replays nothing)")
    if suite is not None and settings.cache is not None:
        raise UserInputError("--cache goes with --judge-model (a regrade against --suite asks no model)")
    if suite is not None:
        _against_suite(run_dir, suite, out, data_dir)
    elif judges:
        _by_judges(run_dir, judges, out, settings.cache, settings.judge_always)
    else:
        raise UserInputError(
            "nothing to regrade with: give --suite FILE (other task definitions) or --judge-model MODEL "
            "(other judges; repeat it for more)"
        )


def _against_suite(run_dir: Path, suite: Path, out: Path, data_dir: Path | None) -> None:
    from tau2.cli._output import say
    from tau2.regrade import regrade_suite

    report = regrade_suite(run_dir, suite, out, data_dir=data_dir)
    say(f"regraded {report.regraded} simulations of {report.source} against {report.suite} into {report.out}")
    if report.provenance_known:
        say(f"tasks whose content differs from the run's: {len(report.changed_tasks)}")
    else:
        say("the run recorded no task hashes (made before runs did): which tasks changed is unknown")
    for flip in report.flips:
        say(f"flip: {flip.describe()}")
    say(f"verdicts that flip: {len(report.flips)}")
    for ids, what in (
        (report.only_in_run, "tasks in the run but not in the file (not regraded)"),
        (report.only_in_suite, "tasks in the file but not in the run (never simulated)"),
        (report.not_regraded, "simulations not regraded (an infrastructure error, or no stored trajectory)"),
    ):
        if ids:
            more = ", …" if len(ids) > SHOWN_IDS else ""
            say(f"{len(ids)} {what}: {', '.join(ids[:SHOWN_IDS])}{more}")


def _by_judges(run_dir: Path, judges: list[ModelSpec], out: Path, cache: Path | None, always: bool) -> None:
    import asyncio

    from tau2.cli._output import say
    from tau2.errors import UserInputError
    from tau2.llm import AuthenticationError
    from tau2.regrade import regrade_judges

    try:
        result = asyncio.run(regrade_judges(run_dir, judges, out, cache=cache, always=always))
    except AuthenticationError as error:
        raise UserInputError(f"{error} (nothing was written to {out})") from None
    names = ", ".join(judge.name for judge in result.manifest.config.judges)
    gained = sum(flip.after > flip.before for flip in result.flips)
    changed = f"{len(result.flips)} reward{'' if len(result.flips) == 1 else 's'} changed"
    say(
        f"regraded {run_dir} into {out} (run {result.manifest.run_id}) with {names}: "
        f"{result.judged - result.judge_failures} of {result.simulations} simulations judged again, "
        f"{changed} ({gained} now pass, {len(result.flips) - gained} now fail)"
    )
    if result.not_needed:
        say(
            f"{result.not_needed} simulations not judged: a deterministic part of their reward had already "
            "failed, so their assertions are recorded as not needed (--judge-always judges them too)"
        )
    for flip in result.flips:
        say(f"  {flip.task_id} trial {flip.trial}: {flip.before:g} → {flip.after:g}")
    if result.judge_failures:
        say(
            f"{result.judge_failures} simulations whose judges failed are recorded as infrastructure errors "
            f"({result.most_common_failure}); `tau2 run --resume --out {out}` runs them again"
        )
    if result.judged and result.judge_failures == result.judged:
        say(
            f"error: no simulation was judged again: {result.judge_failures} judge failures; "
            f"{result.most_common_failure}",
            err=True,
        )
        raise typer.Exit(1)
