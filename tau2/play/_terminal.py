"""The terminal of a play session: numbered menus and prompts that re-ask until the answer is valid."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import Console, RenderableType

from tau2._display import markup_literal as literal
from tau2._display import output_console

T = TypeVar("T")

PAGE = 20
"""Options a menu lists at a time; a longer one is narrowed by typing words."""
LineReader = Callable[[str], str]
"""Shows a prompt and returns the next line typed (EOFError at the end of the input)."""


class SessionEnded(Exception):
    """The person left the session (`/quit`, or the end of the input): a choice, not a failure."""


class Terminal:
    """Reads lines and prints to one console; every question is asked until its answer is valid."""

    def __init__(self, read: LineReader = input, console: Console | None = None) -> None:
        self._read = read
        self.console = console or output_console(highlight=False)

    def say(self, *renderables: RenderableType) -> None:
        """Print, one renderable per line."""
        for renderable in renderables:
            self.console.print(renderable)

    def ask(self, prompt: str) -> str:
        """The next line typed, stripped; the end of the input (Ctrl-D) ends the session (Ctrl-C, a
        `KeyboardInterrupt`, stops the command)."""
        try:
            return self._read(prompt).strip()
        except EOFError:
            raise SessionEnded("end of input") from None

    def choose(self, title: str, options: Sequence[tuple[str, T]], default: int = 0) -> T:
        """A numbered menu: the answer is an option's number or its exact label, empty takes the default,
        and other words narrow the list to the options whose labels hold them all (numbers stay as
        first shown). At most `PAGE` options are listed at a time."""
        self.say(f"[bold]{literal(title)}[/]")
        self._list(options, range(len(options)), default)
        labels = {label: value for label, value in options}
        narrow = ", or words to narrow the list" if len(options) > PAGE else ""
        while True:
            answer = self.ask(f"{title} [1-{len(options)}{narrow}]: ")
            if not answer:
                return options[default][1]
            if answer in labels:
                return labels[answer]
            if answer.isdecimal():
                if 1 <= int(answer) <= len(options):
                    return options[int(answer) - 1][1]
                self.say(f"[red]Give a number from 1 to {len(options)}.[/]")
                continue
            words = answer.casefold().split()
            matches = [n for n, (label, _) in enumerate(options) if all(w in label.casefold() for w in words)]
            if matches:
                self._list(options, matches, default)
            else:
                self.say(f"[red]No option holds {literal(answer)}; try other words or a number.[/]")

    def _list(self, options: Sequence[tuple[str, T]], positions: Sequence[int], default: int) -> None:
        """List the options at `positions` (the first `PAGE` of them) under their numbers."""
        for position in positions[:PAGE]:
            mark = " [dim](default)[/]" if position == default else ""
            self.say(f"  {position + 1:>3}. {literal(options[position][0])}{mark}")
        if len(positions) > PAGE:
            more = len(positions) - PAGE
            self.say(f"  [dim]… and {more} more: type words from their names to narrow the list[/]")
