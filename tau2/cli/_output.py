"""Printing lines that hold data (task ids, reasons, paths) with their control characters made inert."""

from __future__ import annotations

import typer

from tau2._display import inert


def say(text: str, *, err: bool = False) -> None:
    """Echo one line of text built from data, safe for the terminal."""
    typer.echo(inert(text), err=err)
