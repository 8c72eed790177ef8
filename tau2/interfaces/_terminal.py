"""The terminal of a play session: numbered menus and prompts that re-ask until the answer is valid."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import Console, RenderableType

from tau2._display import markup_literal as literal

T = TypeVar("T")

LineReader = Callable[[str], str]
"""Shows a prompt and returns the next line typed (EOFError at the end of the input)."""


class SessionEnded(Exception):
    """The person left the session (end of input, or `/quit`)."""


class Terminal:
    """Reads lines and prints to one console; every question is asked until its answer is valid."""

    def __init__(self, read: LineReader = input, console: Console | None = None) -> None:
        self._read = read
        self.console = console or Console(highlight=False)

    def say(self, *renderables: RenderableType) -> None:
        """Print, one renderable per line."""
        for renderable in renderables:
            self.console.print(renderable)

    def ask(self, prompt: str) -> str:
        """The next line typed, stripped; the end of the input (or Ctrl-C) ends the session."""
        try:
            return self._read(prompt).strip()
        except (EOFError, KeyboardInterrupt):
            raise SessionEnded("end of input") from None

    def choose(self, title: str, options: Sequence[tuple[str, T]], default: int = 0) -> T:
        """A numbered menu: the answer is an option's number or its exact label; empty takes the default."""
        self.say(f"[bold]{literal(title)}[/]")
        for number, (label, _) in enumerate(options, 1):
            mark = " [dim](default)[/]" if number - 1 == default else ""
            self.say(f"  {number:>3}. {literal(label)}{mark}")
        labels = {label: value for label, value in options}
        while True:
            answer = self.ask(f"{title} [1-{len(options)}]: ")
            if not answer:
                return options[default][1]
            if answer in labels:
                return labels[answer]
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1][1]
            self.say(f"[red]Give a number from 1 to {len(options)}.[/]")
