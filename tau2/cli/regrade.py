"""`tau2 regrade`: judge a run's stored transcripts again with other judges, into a new run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tau2.cli._config_options import judge_options, with_options
from tau2.cli.options import RunDir

JUDGE_OPTIONS = judge_options()
"""The judge options of `tau2 run`: the models (`--judge-model`, repeatable) and their settings."""


@with_options(JUDGE_OPTIONS)
def command(
    run_dir: RunDir,
    out: Annotated[
        Path,
        typer.Option("--out", help="The new run directory (new, or empty).", show_default=False),
    ],
    **given: Any,
) -> None:
    """Judge the natural-language assertions of RUN's stored transcripts again with the --judge-model(s),
    without running a conversation, into the new run OUT: its records are RUN's with the new verdicts and
    the rewards they give. RUN is left as it was; `tau2 compare RUN OUT` lists the rewards that flip.
    """
    import asyncio

    from tau2.audit import regrade_judges
    from tau2.cli._config_options import options_layer
    from tau2.cli._output import say
    from tau2.config import layered
    from tau2.errors import UserInputError
    from tau2.llm import AuthenticationError

    config = layered([options_layer(JUDGE_OPTIONS, given)])
    try:
        result = asyncio.run(regrade_judges(run_dir, config.judges, out))
    except AuthenticationError as error:
        raise UserInputError(f"{error} (nothing was written to {out})") from None
    judges = ", ".join(judge.name for judge in result.manifest.config.judges)
    gained = sum(flip.after > flip.before for flip in result.flips)
    changed = f"{len(result.flips)} reward{'' if len(result.flips) == 1 else 's'} changed"
    say(
        f"regraded {run_dir} into {out} (run {result.manifest.run_id}) with {judges}: {result.judged} of "
        f"{result.simulations} simulations judged again, {changed} "
        f"({gained} now pass, {len(result.flips) - gained} now fail)"
    )
    for flip in result.flips:
        say(f"  {flip.task_id} trial {flip.trial}: {flip.before:g} → {flip.after:g}")
