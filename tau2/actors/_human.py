"""A person at the terminal playing either seat: sees that seat's view, types messages or commands.

Commands: `/call NAME {json arguments}` runs a tool, `/stop` ends the call (user), `/done` ends a solo
episode; any other line is a message to the other seat.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

from rich.console import Console

from tau2._display import markup_literal as literal
from tau2._display import output_console
from tau2._jsonfile import parse_json
from tau2.actors._scripted import reason_for_call
from tau2.episode import DONE_TOOL, ActorSpec, ActorTurn, Entry, EntryKind, SeatContext, ToolCall
from tau2.world import Side

LineReader = Callable[[str], Awaitable[str]]
"""Reads one line after showing a prompt."""


async def _read_stdin(prompt: str) -> str:
    """Read from stdin in a worker thread so other episodes keep running."""
    return await asyncio.to_thread(input, prompt)


class HumanActor:
    """Shows each observation on a console and turns each typed line into a turn."""

    def __init__(
        self, spec: ActorSpec | None = None, *, read: LineReader = _read_stdin, console: Console | None = None
    ) -> None:
        self.spec = spec
        self._read = read
        self._console = console or output_console()
        self._seat = Side.AGENT
        self._calls = 0

    async def start(self, context: SeatContext) -> None:
        """Show the seat's brief: what it holds and what it knows."""
        self._seat = context.seat
        self._calls = 0
        names = ", ".join(schema["function"]["name"] for schema in context.tool_schemas)
        self._console.print(f"[bold]You are the {context.seat.value}.[/] Tools: {literal(names)}")
        if context.seat is Side.USER:
            self._console.print(f"Your reason for calling: {literal(reason_for_call(context.task))}")
        elif context.task.ticket and len(context.sides) == 2:
            self._console.print(f"Ticket: {literal(context.task.ticket)}")
        self._console.print("Type a message, or /call NAME {json}, /stop (user), /done (solo).")

    async def act(self, observation: list[Entry]) -> ActorTurn:
        """Show what happened since the last turn, then read the next line."""
        for entry in observation:
            if entry.kind is EntryKind.MESSAGE and entry.seat is not self._seat:
                self._console.print(f"[bold]{entry.seat.value}:[/] {literal(entry.text or '')}")
            elif entry.kind is EntryKind.TOOL_RESULT and entry.result is not None:
                self._console.print(f"[dim]← {literal(entry.result.render())}[/]")
            elif entry.kind is EntryKind.ACTOR_ERROR:
                self._console.print(f"[red]{literal(entry.text or '')}[/]")
        return self.parse(await self._read(f"{self._seat.value}> "))

    def parse(self, line: str) -> ActorTurn:
        """Turn one typed line into a turn; a malformed command becomes an error the person sees."""
        text = line.strip()
        if text == "/stop":
            return ActorTurn(stop=True)
        if text == "/done":
            return self._call(DONE_TOOL, "{}")
        if text.startswith("/call"):
            name, _, arguments = text.removeprefix("/call").strip().partition(" ")
            if not name:
                return ActorTurn(error="usage: /call NAME {json arguments}")
            return self._call(name, arguments.strip() or "{}")
        return ActorTurn(text=text)

    def _call(self, name: str, arguments: str) -> ActorTurn:
        try:
            parsed = parse_json(arguments)
        except json.JSONDecodeError as error:
            return ActorTurn(error=f"arguments of {name} are not valid JSON: {error.msg}")
        if not isinstance(parsed, dict):
            return ActorTurn(error=f"arguments of {name} must be a JSON object")
        self._calls += 1
        return ActorTurn(tool_calls=[ToolCall(call_id=f"human-{self._calls}", name=name, arguments=parsed)])
