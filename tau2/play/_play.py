"""`tau2 play`: a person plays one seat of a task in the terminal, on the ordinary episode core.

A guided menu picks the domain, the suite, the task (shown with its intent and subtasks), the seat and
the other seat's actor; the person then sees the seat's policy or scenario and its tools, types messages
or fills a tool's arguments (validated before anything is sent), and can ask for help at any time
without the other seat seeing it. The finished episode is recorded as an ordinary run directory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pydantic import JsonValue

from tau2._display import markup_literal as literal
from tau2._jsonfile import parse_json
from tau2.actors import actor_kinds, make_actor
from tau2.config import RunConfig
from tau2.episode import (
    DONE_TOOL,
    Actor,
    ActorSpec,
    ActorTurn,
    Entry,
    EntryKind,
    EpisodeConfig,
    EpisodeResult,
    Mode,
    SeatContext,
    ToolCall,
    Turn,
)
from tau2.errors import ToolError, UserInputError
from tau2.findings import RunFindings
from tau2.llm import ModelSpec
from tau2.play._terminal import SessionEnded, Terminal
from tau2.runner import episode_record, resolved_seat, write_run
from tau2.stepping import EpisodeStepper, default_suite_name, domain_suites, find_task, load_tasks, seat_brief
from tau2.tasks import Task, available_domains, get_domain
from tau2.world import Side

HUMAN: Final = ActorSpec(kind="human")
"""The spec recorded for the person's seat."""
DEFAULT_OTHER: Final = {Side.AGENT: "oracle", Side.USER: "scripted"}
HELP: Final = """\
Commands (nothing here is sent to the other seat):
  TEXT              send TEXT as a message
  /call             pick a tool and fill in its arguments one by one
  /call NAME {json} call a tool with JSON arguments
  /tools            list your tools and their arguments
  /brief            show your policy (agent) or scenario (customer) again
  /stop             hang up (customer only)
  /done             end the ticket (solo agent only)
  /help             this help
  /quit             leave without recording the episode"""


@dataclass(frozen=True)
class PlaySetup:
    """What the menu (or the options) chose."""

    task: Task
    seat: Side
    mode: Mode
    other: ActorSpec | None
    """The other seat's actor; None in solo mode."""


def choose_setup(
    term: Terminal,
    *,
    domain: str | None = None,
    suite: str | None = None,
    task_id: str | None = None,
    seat: Side | None = None,
    mode: Mode | None = None,
    other: str | None = None,
    other_model: str | None = None,
) -> PlaySetup:
    """Ask for whatever was not given: domain → suite → task → seat → the other seat's actor (`other` is
    its kind, `other_model` the model of an `llm`). A task named without a suite is in the default one."""
    if domain is None:
        domain = term.choose("Domain", [(name, name) for name in available_domains()])
    if suite is None and task_id is None:
        suites = domain_suites(domain)
        if not suites:
            raise UserInputError(f"domain {domain!r} ships no suite; give --suite FILE")
        options = [(f"{name} ({len(load_tasks(domain, name))} tasks)", name) for name in suites]
        suite = term.choose(
            "Suite", options, list(suites).index(default_suite_name(domain) or next(iter(suites)))
        )
    tasks = load_tasks(domain, suite)
    task = (
        find_task(tasks, task_id)
        if task_id is not None
        else term.choose("Task", [(_task_label(t), t) for t in tasks])
    )
    if seat is None:
        seat, mode = term.choose(
            "Seat",
            [
                ("agent (talk with a simulated customer)", (Side.AGENT, Mode.INTERACTIVE)),
                ("customer (talk with a simulated agent)", (Side.USER, Mode.INTERACTIVE)),
                ("agent, solo (no customer: you hold both toolsets and a ticket)", (Side.AGENT, Mode.SOLO)),
            ],
        )
    mode = mode or Mode.INTERACTIVE
    if mode is Mode.SOLO and seat is Side.USER:
        raise UserInputError("solo mode has no customer seat: play the agent")
    if mode is Mode.SOLO:
        return PlaySetup(task=task, seat=seat, mode=mode, other=None)
    if other is None:
        spec = _choose_other(term, seat.other)
    else:
        spec = resolved_seat(ActorSpec(kind=other, model=other_model), seat.other)
        make_actor(spec, seat.other, mode)  # an unknown kind fails now, not after the menu
    return PlaySetup(task=task, seat=seat, mode=mode, other=spec)


def play(
    term: Terminal, setup: PlaySetup, data_dir: Path | None = None, seed: int = 0
) -> EpisodeResult | None:
    """Play the episode; returns its result, or None when the person left before the end (Ctrl-C is
    passed on as `KeyboardInterrupt`)."""
    seat = setup.seat
    config = EpisodeConfig(mode=setup.mode, seed=seed)
    actors: dict[Side, Actor | None] = {seat: None}
    labels = {seat: HUMAN.label()}
    if setup.other is not None:
        actors[seat.other] = make_actor(setup.other, seat.other, setup.mode)
        labels[seat.other] = setup.other.label()
    stepper = EpisodeStepper()
    seen = -1
    try:
        event = stepper.start(setup.task, actors, config, data_dir=data_dir, labels=labels)
        context = stepper.context(seat)
        if context is not None:
            _introduce(term, context)
        while isinstance(event, Turn):
            assert context is not None
            _show(term, event.observation, seat)
            seen = max([seen, *(entry.index for entry in event.observation)])
            event = stepper.send(_read_turn(term, context))
    except SessionEnded:
        term.say("[yellow]Left the session; nothing was recorded.[/]")
        return None
    finally:
        stepper.close()
    _show(term, [e for e in event.trajectory.entries if e.index > seen and e.visible_to(seat)], seat)
    _outcome(term, event)
    return event


def record(run_dir: Path, setup: PlaySetup, result: EpisodeResult) -> None:
    """Save the episode as a one-simulation run, so `tau2 report` and `tau2 view` read it."""
    agent, user = (HUMAN, setup.other) if setup.seat is Side.AGENT else (setup.other or HUMAN, HUMAN)
    settings = result.config.model_dump(exclude={"seed"})
    config = RunConfig.model_validate(
        {**settings, "agent": agent, "seed": result.seed or 0}
        | ({"user": user} if setup.mode is Mode.INTERACTIVE else {})
    )
    findings = RunFindings(get_domain(setup.task.domain), config.data_dir)
    simulation = episode_record(setup.task, 0, result, findings=findings)
    write_run(run_dir, tasks=[setup.task], config=config, records=[simulation])


def _task_label(task: Task) -> str:
    if task.intent:
        persona = f" (persona {task.persona})" if task.persona else ""
        return f"[{task.intent}] {' + '.join(task.subtasks)}{persona}"
    return f"{task.id}: {task.purpose}" if task.purpose else task.id


def _choose_other(term: Terminal, seat: Side) -> ActorSpec:
    kinds = [kind for kind in actor_kinds(seat) if kind != HUMAN.kind]
    default = kinds.index(DEFAULT_OTHER[seat]) if DEFAULT_OTHER[seat] in kinds else 0
    name = "agent" if seat is Side.AGENT else "customer"
    kind = term.choose(f"Who plays the {name}", [(k, k) for k in kinds], default)
    if kind != "llm":
        return ActorSpec(kind=kind)
    model = ""
    while not model:
        model = term.ask("Model (e.g. openai/gpt-4o-mini): ")
    return ActorSpec(kind=kind, model=ModelSpec(name=model))


def _introduce(term: Terminal, context: SeatContext) -> None:
    role = "the agent" if context.seat is Side.AGENT else "the customer"
    term.say(f"\n[bold]You are {role}.[/]", f"[bold]Your brief[/]\n{literal(seat_brief(context))}")
    _list_tools(term, context)
    term.say("[dim]Type a message, /call to use a tool, /help for help.[/]")


def _list_tools(term: Terminal, context: SeatContext) -> None:
    term.say("[bold]Your tools[/]")
    for number, schema in enumerate(context.tool_schemas, 1):
        function = schema["function"]
        parameters = function.get("parameters", {})
        required = set(parameters.get("required", []))
        arguments = ", ".join(
            f"{name}{'' if name in required else '?'}: {_type(spec)}"
            for name, spec in parameters.get("properties", {}).items()
        )
        summary = next(iter((function.get("description") or "").strip().splitlines()), "")
        term.say(f"  {number:>2}. {literal(function['name'])}({literal(arguments)}) — {literal(summary)}")


def _type(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return " | ".join(json.dumps(value) for value in spec["enum"])
    if "anyOf" in spec:
        return " | ".join(_type(option) for option in spec["anyOf"])
    return str(spec.get("type", "any"))


def _show(term: Terminal, entries: list[Entry], seat: Side) -> None:
    """What the seat observed: the other seat's messages, its own tool results and errors."""
    for entry in entries:
        if entry.kind is EntryKind.MESSAGE and entry.seat is not seat:
            who = "agent" if entry.seat is Side.AGENT else "customer"
            term.say(f"[bold cyan]{who}:[/] {literal(entry.text or '')}")
        elif entry.kind is EntryKind.TOOL_RESULT and entry.result is not None and entry.tool_call is not None:
            style = "green" if entry.result.ok else "red"
            term.say(f"[{style}]← {literal(entry.tool_call.name)}: {literal(entry.result.render())}[/]")
        elif entry.kind is EntryKind.ACTOR_ERROR:
            term.say(f"[red]not sent: {literal(entry.text or '')}[/]")


def _read_turn(term: Terminal, context: SeatContext) -> ActorTurn:
    """Read until the person produces a turn; help and listings are answered locally."""
    you = "agent" if context.seat is Side.AGENT else "customer"
    calls = 0
    while True:
        line = term.ask(f"{you}> ")
        command, _, rest = line.partition(" ")
        if not line:
            continue
        if command == "/help":
            term.say(HELP)
        elif command == "/tools":
            _list_tools(term, context)
        elif command == "/brief":
            term.say(literal(seat_brief(context)))
        elif command == "/quit":
            raise SessionEnded("quit")
        elif command == "/stop":
            if context.seat is Side.USER:
                return ActorTurn(text=rest.strip() or None, stop=True)
            term.say("[red]Only the customer can hang up.[/]")
        elif command == "/done":
            if DONE_TOOL in _tool_names(context):
                return ActorTurn(tool_calls=[ToolCall(call_id="human-done", name=DONE_TOOL)])
            term.say("[red]/done ends a solo ticket; in a conversation the customer hangs up.[/]")
        elif command == "/call":
            call = _fill_call(term, context, rest.strip(), calls + 1)
            if call is not None:
                return ActorTurn(tool_calls=[call])
        elif command.startswith("/"):
            term.say(f"[red]Unknown command {literal(command)}; /help lists them.[/]")
        else:
            return ActorTurn(text=line)


def _tool_names(context: SeatContext) -> list[str]:
    return [schema["function"]["name"] for schema in context.tool_schemas]


def _fill_call(term: Terminal, context: SeatContext, given: str, number: int) -> ToolCall | None:
    """A validated tool call from `/call NAME {json}`, or from a menu and one prompt per argument."""
    names = _tool_names(context)
    name, _, raw = given.partition(" ")
    if not name:
        name = term.choose("Tool", [(tool, tool) for tool in names])
    if name not in names:
        term.say(f"[red]{literal(name)} is not one of your tools; /tools lists them.[/]")
        return None
    schema = context.tool_schemas[names.index(name)]["function"].get("parameters", {})
    if raw.strip():
        try:
            arguments = parse_json(raw)
        except json.JSONDecodeError as error:
            term.say(f"[red]The arguments are not valid JSON: {literal(error.msg)}.[/]")
            return None
        if not isinstance(arguments, dict):
            term.say("[red]The arguments must be a JSON object.[/]")
            return None
    else:
        arguments = _ask_arguments(term, schema)
    problem = _invalid(context, name, arguments)
    if problem is not None:
        term.say(f"[red]Not sent: {literal(problem)}[/]")
        return None
    return ToolCall(call_id=f"human-{context.seat.value}-{number}-{name}", name=name, arguments=arguments)


def _ask_arguments(term: Terminal, schema: dict[str, Any]) -> dict[str, JsonValue]:
    """One prompt per argument: JSON when it parses (numbers, booleans), text otherwise; empty skips an
    optional argument and re-asks a required one."""
    required = set(schema.get("required", []))
    arguments: dict[str, JsonValue] = {}
    for name, spec in schema.get("properties", {}).items():
        hint = f"{name} ({_type(spec)}{'' if name in required else ', optional'})"
        description = spec.get("description")
        if description:
            term.say(f"  [dim]{literal(name)}: {literal(description)}[/]")
        while True:
            answer = term.ask(f"  {hint}: ")
            if answer or name not in required:
                break
            term.say(f"[red]{literal(name)} is required.[/]")
        if answer:
            arguments[name] = answer if spec.get("type") == "string" else _json_or_text(answer)
    return arguments


def _json_or_text(text: str) -> JsonValue:
    try:
        value: JsonValue = parse_json(text)
    except json.JSONDecodeError:
        return text
    return value


def _invalid(context: SeatContext, name: str, arguments: dict[str, Any]) -> str | None:
    """Why the world would refuse these arguments, checked before the call is sent."""
    if name == DONE_TOOL:
        return None
    tool = get_domain(context.task.domain).tools.tool(name)
    if tool is None:
        return None
    try:
        tool.validate(arguments)
    except ToolError as error:
        return error.message
    return None


def _outcome(term: Terminal, result: EpisodeResult) -> None:
    evaluation = result.evaluation
    term.say(f"\n[bold]Episode over:[/] {result.termination.value}")
    for assertion in evaluation.assertions:
        mark = "[green]pass[/]" if assertion.passed else "[red]FAIL[/]"
        term.say(f"  assertion {mark} {literal(assertion.name)}({literal(json.dumps(assertion.arguments))})")
    if evaluation.expects_transfer:
        term.say(f"  transfer expected: {'done' if evaluation.transferred else 'missing'}")
    term.say(f"[bold]reward: {result.reward}[/]")
