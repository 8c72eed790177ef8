"""`tau2 generate`: compose a domain's atomic subtasks into verified tasks and write a suite."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from tau2.cli._config_options import options_of, with_options
from tau2.cli.options import DataDir
from tau2.generator.options import GeneratorOptions, OutputFormat

GENERATOR_OPTIONS = options_of(GeneratorOptions)
"""One option per generator setting, derived from `GeneratorOptions`."""


@with_options(GENERATOR_OPTIONS)
def command(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="File to write ('-': stdout).", show_default=False)
    ],
    domain: Annotated[str, typer.Option("--domain", help="Domain whose subtask catalog to use.")] = "telecom",
    data_dir: DataDir = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="native (tau2 suite) or tau2-bench (task array).")
    ] = OutputFormat.NATIVE,
    lint: Annotated[bool, typer.Option("--lint/--no-lint", help="Lint the generated tasks.")] = True,
    catalog_extensions: Annotated[
        list[str] | None,
        typer.Option(
            "--catalog-extension",
            help="A catalog-extension TOML file, or an installed extension's name, layered on the catalog "
            "(repeatable).",
        ),
    ] = None,
    **given: Any,
) -> None:
    """Generate verified tasks from a domain's subtask catalog; exit 1 when any task was rejected."""
    from pydantic import ValidationError

    from tau2.cli._output import is_stdout, output_file, refuse_stdout_over, require_writable_path
    from tau2.errors import UserInputError
    from tau2.generator.export import write_generation
    from tau2.generator.pipeline import generate_stream
    from tau2.generator.summary import summary_lines
    from tau2.tasks import get_domain, load_catalog_extension, resolve_catalog_extension

    settings = {
        option.path[-1]: option.value(given[option.parameter])
        for option in GENERATOR_OPTIONS
        if given[option.parameter] is not None
    }
    try:
        options = GeneratorOptions(**{name: value for name, value in settings.items() if value is not None})
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        message = detail["msg"].removeprefix("Value error, ")
        field = detail["loc"][:1]
        flag = f"--{str(field[0]).replace('_', '-')}: " if field else ""
        raise UserInputError(flag + message) from None
    chosen = get_domain(domain)
    resolved = [resolve_catalog_extension(extension) for extension in catalog_extensions or ()]
    inputs = [*(path for path, _ in resolved), *([] if data_dir is None else [data_dir])]
    refuse_stdout_over(inputs)
    require_writable_path(output, "--output", inputs)
    extensions = [load_catalog_extension(path, chosen, origin) for path, origin in resolved]
    generation = generate_stream(chosen, options, data_dir, lint=lint, extensions=extensions)
    with output_file(output, f"{chosen.name}-generated.json") as path:
        write_generation(path, output_format, generation.domain, generation, data_dir)
    report = partial(typer.echo, err=is_stdout(output))  # the summary must not mix into the tasks on stdout
    report(f"wrote {output} ({output_format.value})")
    for line in summary_lines(generation):
        report(line)
    if data_dir is not None:
        report(f"these tasks target {data_dir}: verify or run them with --data-dir {data_dir}")
    if generation.rejected:
        raise typer.Exit(1)
