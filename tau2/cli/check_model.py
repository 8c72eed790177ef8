"""`tau2 check-model`: probe each seat's model before a run, one line per check."""

from __future__ import annotations

import typer

from tau2.cli.options import (
    AgentApiBase,
    AgentArg,
    AgentModel,
    AgentTextToolCalls,
    AgentTimeout,
    AgentTransport,
    JudgeApiBase,
    JudgeArg,
    JudgeModel,
    JudgeTimeout,
    UserApiBase,
    UserArg,
    UserModel,
    UserTextToolCalls,
    UserTimeout,
    UserTransport,
    model_request,
)

MARKS = {"pass": "✓", "warn": "!", "fail": "✗", "info": "·"}
"""How each outcome is marked at the start of its line."""


def command(
    agent_model: AgentModel = None,
    agent_api_base: AgentApiBase = None,
    agent_arg: AgentArg = None,
    agent_timeout: AgentTimeout = None,
    agent_transport: AgentTransport = None,
    agent_text_tool_calls: AgentTextToolCalls = None,
    user_model: UserModel = None,
    user_api_base: UserApiBase = None,
    user_arg: UserArg = None,
    user_timeout: UserTimeout = None,
    user_transport: UserTransport = None,
    user_text_tool_calls: UserTextToolCalls = None,
    judge_model: JudgeModel = None,
    judge_api_base: JudgeApiBase = None,
    judge_arg: JudgeArg = None,
    judge_timeout: JudgeTimeout = None,
) -> None:
    """Check each named model (reachable, authenticated, chat, tool calls, context window, pricing).

    It takes the model options of `tau2 run`; each check is one line, and a failed check (✗) makes the
    command exit 1. Warnings (!) are worth reading but do not stop a run. With --agent-text-tool-calls or
    --user-text-tool-calls, tool calls the model writes as text count when tau2 can read them, as in a run.
    """
    import asyncio

    from tau2.errors import UserInputError
    from tau2.llm import ModelSpec, probe_model, resolve_transport

    requests = {
        "agent": model_request(
            agent_model, agent_api_base, agent_arg, agent_timeout, agent_transport, option="agent"
        ),
        "user": model_request(
            user_model, user_api_base, user_arg, user_timeout, user_transport, option="user"
        ),
        "judge": model_request(judge_model, judge_api_base, judge_arg, judge_timeout, option="judge"),
    }
    specs: dict[str, ModelSpec] = {}
    for seat, request in requests.items():
        spec = request.apply(None, seat)
        if spec is not None:
            specs[seat] = spec
    if not specs:
        raise UserInputError("no model to check: give --agent-model, --user-model or --judge-model")
    text_calls = {"agent": bool(agent_text_tool_calls), "user": bool(user_text_tool_calls)}
    for seat, enabled in text_calls.items():
        if enabled and seat not in specs:
            raise UserInputError(f"--{seat}-text-tool-calls: no --{seat}-model to check")
    failed = False
    for seat, spec in specs.items():
        where = f" at {spec.api_base}" if spec.api_base else ""
        typer.echo(f"{seat}: {spec.name}{where} ({resolve_transport(spec)} transport)")
        option = f"--{seat}-text-tool-calls" if seat in text_calls else None
        probe = probe_model(spec, text_tool_calls=text_calls.get(seat, False), text_calls_option=option)
        for check in asyncio.run(probe):
            typer.echo(f"  {MARKS[check.outcome]} {check.name}: {check.detail}")
            failed = failed or check.outcome == "fail"
    if failed:
        raise typer.Exit(1)
