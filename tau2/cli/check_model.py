"""`tau2 check-model`: probe each seat's model before a run, one line per check."""

from __future__ import annotations

from typing import Any

import typer

from tau2.cli._config_options import model_options, with_options

MARKS = {"pass": "✓", "warn": "!", "fail": "✗", "info": "·"}
"""How each outcome is marked at the start of its line."""

MODEL_OPTIONS = model_options()
"""The model settings of each seat and of the judge, derived from `ModelSpec` (and the seats' text tool calls
from `ActorSpec`)."""


@with_options(MODEL_OPTIONS)
def command(**given: Any) -> None:
    """Check each named model (reachable, authenticated, chat, tool calls, context window, pricing).

    It takes the model options of `tau2 run`; each check is one line, and a failed check (✗) makes the
    command exit 1. Warnings (!) are worth reading but do not stop a run. With --agent-text-tool-calls or
    --user-text-tool-calls, tool calls the model writes as text count when tau2 can read them, as in a run.
    """
    import asyncio

    from tau2.cli._config_options import options_layer
    from tau2.config import layered
    from tau2.errors import UserInputError
    from tau2.llm import probe_model, resolve_transport
    from tau2.runner import resolved_model

    config = layered([options_layer(MODEL_OPTIONS, given)])
    judges = {f"judge {n}": spec for n, spec in enumerate(config.extra_judges, start=2)}
    models = {"agent": config.agent.model, "user": config.user.model, "judge": config.judge, **judges}
    specs = {seat: resolved_model(spec) for seat, spec in models.items() if spec is not None}
    if not specs:
        raise UserInputError("no model to check: give --agent-model, --user-model or --judge-model")
    text_calls = {"agent": config.agent.text_tool_calls, "user": config.user.text_tool_calls}
    for seat, enabled in text_calls.items():
        if enabled and seat not in specs:
            raise UserInputError(f"--{seat}-text-tool-calls: no --{seat}-model to check")
    failed = False
    for seat, spec in specs.items():
        if spec is None:
            continue
        where = f" at {spec.api_base}" if spec.api_base else ""
        typer.echo(f"{seat}: {spec.name}{where} ({resolve_transport(spec)} transport)")
        option = f"--{seat}-text-tool-calls" if seat in text_calls else None
        probe = probe_model(spec, text_tool_calls=text_calls.get(seat, False), text_calls_option=option)
        for check in asyncio.run(probe):
            typer.echo(f"  {MARKS[check.outcome]} {check.name}: {check.detail}")
            failed = failed or check.outcome == "fail"
    if failed:
        raise typer.Exit(1)
