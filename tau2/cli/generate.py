"""`tau2 generate`: compose a domain's atomic subtasks into verified tasks and write a suite."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from tau2.cli.options import DataDir
from tau2.generator.options import Order, OutputFormat, PersonaAssignment, TargetMode

_LIST = "comma-separated, repeatable"


def command(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="File to write ('-': stdout).", show_default=False)
    ],
    domain: Annotated[str, typer.Option("--domain", help="Domain whose subtask catalog to use.")] = "telecom",
    intents: Annotated[
        list[str] | None, typer.Option("--intents", help=f"Intents to generate ({_LIST}; default all).")
    ] = None,
    personas: Annotated[
        list[str] | None,
        typer.Option("--personas", help=f"Personas by name or .toml path ({_LIST}; default none,easy,hard)."),
    ] = None,
    persona_assignment: Annotated[
        PersonaAssignment,
        typer.Option(
            "--persona-assignment", help="cross: every composition under every persona; rotate: τ²-bench."
        ),
    ] = PersonaAssignment.CROSS,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", help=f"Drop compositions with these subtasks ({_LIST}).")
    ] = None,
    include_optional: Annotated[
        list[str] | None, typer.Option("--include-optional", help=f"Optional subtasks to offer ({_LIST}).")
    ] = None,
    min_subtasks: Annotated[int, typer.Option("--min-subtasks", help="Fewest subtasks per task.")] = 1,
    max_subtasks: Annotated[
        int | None, typer.Option("--max-subtasks", help="Most subtasks per task (default no limit).")
    ] = None,
    sample_per_bin: Annotated[
        int | None,
        typer.Option("--sample-per-bin", help="Sample this many per (intent, #subtasks, persona) bin."),
    ] = None,
    max_transfer_share: Annotated[
        float | None,
        typer.Option(
            "--max-transfer-share",
            help="At most this share (0-1) of each (intent, #subtasks, persona) bin are transfer tasks.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of sampling and target spreading.")] = 0,
    target: Annotated[
        TargetMode, typer.Option("--target", help="fixed: the first eligible target; spread: all of them.")
    ] = TargetMode.FIXED,
    order: Annotated[
        Order, typer.Option("--order", help="workflow: by the workflow graph; tau2: by subtask name.")
    ] = Order.WORKFLOW,
    data_dir: DataDir = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="native (tau2 suite) or tau2-bench (task array).")
    ] = OutputFormat.NATIVE,
    lint: Annotated[bool, typer.Option("--lint/--no-lint", help="Lint the generated tasks.")] = True,
    catalog: Annotated[
        str,
        typer.Option(
            "--catalog",
            help="The domain's catalog: base (its own; for telecom τ²-bench's faults) or a named one "
            "(telecom: extended, with new faults).",
        ),
    ] = "base",
    catalog_extensions: Annotated[
        list[str] | None,
        typer.Option(
            "--catalog-extension",
            help="A catalog-extension TOML file, or an installed extension's name, layered on the catalog "
            "(repeatable).",
        ),
    ] = None,
) -> None:
    """Generate verified tasks from a domain's subtask catalog; exit 1 when any task was rejected."""
    from pydantic import ValidationError

    from tau2.cli._output import is_stdout, output_file, require_writable_path
    from tau2.errors import UserInputError
    from tau2.generator.export import write_generation
    from tau2.generator.options import GeneratorOptions
    from tau2.generator.pipeline import generate
    from tau2.generator.summary import summary_lines
    from tau2.tasks import load_catalog_extension, resolve_catalog_extension
    from tau2.world import get_domain

    try:
        options = GeneratorOptions(
            intents=_names(intents),
            personas=_names(personas) or ("none", "easy", "hard"),
            persona_assignment=persona_assignment,
            exclude=_names(exclude),
            include_optional=_names(include_optional),
            min_subtasks=min_subtasks,
            max_subtasks=max_subtasks,
            sample_per_bin=sample_per_bin,
            max_transfer_share=max_transfer_share,
            seed=seed,
            target=target,
            order=order,
            catalog=catalog,
        )
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        message = detail["msg"].removeprefix("Value error, ")
        field = detail["loc"][:1]
        flag = f"--{str(field[0]).replace('_', '-')}: " if field else ""
        raise UserInputError(flag + message) from None
    require_writable_path(output, "--output")
    chosen = get_domain(domain)
    extensions = [
        load_catalog_extension(path, chosen, origin)
        for path, origin in map(resolve_catalog_extension, catalog_extensions or ())
    ]
    generation = generate(chosen, options, data_dir, lint=lint, extensions=extensions)
    with output_file(output, f"{chosen.name}-generated.json") as path:
        write_generation(path, output_format, chosen.name, generation, data_dir)
    report = partial(typer.echo, err=is_stdout(output))  # the summary must not mix into the tasks on stdout
    report(f"wrote {output} ({output_format.value})")
    for line in summary_lines(generation):
        report(line)
    if data_dir is not None:
        report(f"these tasks target {data_dir}: verify or run them with --data-dir {data_dir}")
    if generation.rejected:
        raise typer.Exit(1)


def _names(values: list[str] | None) -> tuple[str, ...]:
    """Values of a list option, each possibly comma-separated, without blanks."""
    return tuple(name.strip() for value in values or () for name in value.split(",") if name.strip())
