"""`tau2 verify`: check that every task of a file is valid (its reference solution decides it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import DataDir


def command(
    tasks: Annotated[
        Path, typer.Argument(help="A τ²-bench task file or a tau2 suite file.", show_default=False)
    ],
    data_dir: DataDir = None,
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain", help="Domain of the tasks (default: as the file says, or as --data-dir tells)."
        ),
    ] = None,
) -> None:
    """Verify tasks: print each invalid task with the reason, then a summary. Exit 0 when all are valid."""
    from tau2.cli._output import say
    from tau2.episode import verify_task
    from tau2.errors import UserInputError
    from tau2.tau2bench import load_task_file

    loaded = load_task_file(tasks, domain, data_dir=data_dir)
    if not loaded:
        raise UserInputError(f"{tasks}: the file has no tasks")
    invalid = 0
    noted: Counter[str] = Counter()
    for task in loaded:
        verification = verify_task(task, data_dir)
        if not verification.valid:
            invalid += 1
            say(f"{verification.task_id}: {verification.reason}")
        for note in verification.notes:
            say(f"{verification.task_id}: note: {note}")
        noted.update(verification.notes)
    say(f"{len(loaded)} tasks: {len(loaded) - invalid} valid, {invalid} invalid")
    for note, count in noted.items():
        say(f"{count} of them noted: {note}")
    if invalid:
        raise typer.Exit(1)
