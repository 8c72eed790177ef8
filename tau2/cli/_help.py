"""Help texts shown as written: command docstrings and option descriptions are prose, not rich markup, so
a `[redacted]` or `[/RPM]` in them reaches the screen instead of being taken for a style tag."""

from __future__ import annotations

from typing import Any

from rich.markup import escape


def literal_help(command: Any) -> Any:
    """`command` (a click command, or a group with its subcommands) with every help text it shows escaped
    for rich markup; returned for chaining."""
    for attribute in ("help", "short_help"):
        text = getattr(command, attribute, None)
        if text:
            setattr(command, attribute, escape(text))
    for parameter in command.params:
        text = getattr(parameter, "help", None)
        if text:
            parameter.help = escape(text)
    for subcommand in getattr(command, "commands", {}).values():
        literal_help(subcommand)
    return command
