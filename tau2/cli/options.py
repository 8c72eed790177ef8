"""Options and arguments shared by several subcommands, declared once, and the report commands' output.
(The options that set configuration fields are derived from the fields: see `_config_options`.)"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import RenderableType

    from tau2.cli._config_options import DerivedOption
    from tau2.config import ConfigLayer
    from tau2.metrics import Bootstrap

RunDir = Annotated[Path, typer.Argument(help="A run directory (written by `tau2 run`).", show_default=False)]
DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Directory with the domain's data files (default: the domain's own data).",
        exists=True,
        file_okay=False,
    ),
]
JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print JSON instead of tables (schema: docs/reports.md).")
]
HtmlFile = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="FILE",
        help="Also write a self-contained HTML page with plots ('-': print it instead of the tables).",
    ),
]
BootstrapSamples = Annotated[
    int,
    typer.Option("--bootstrap-samples", min=1, help="Bootstrap resamples for intervals (at most 100,000)."),
]
BootstrapSeed = Annotated[int, typer.Option("--bootstrap-seed", help="Seed of the bootstrap.")]
MaxK = Annotated[
    int | None,
    typer.Option("--max-k", min=1, help="Show pass^k for k = 1..K (default 8; at most the runs' trials)."),
]


AllowMismatch = Annotated[
    bool,
    typer.Option(
        "--allow-mismatch",
        help="Compare runs even when their scores rest on other content (another domain, other task content, "
        "other domain data); the differences are printed as warnings.",
    ),
]


def refuse_mismatches(mismatches: Sequence[str], allow: bool) -> None:
    """Stop with exit 2 and one line naming every difference when runs to be compared rest on other content
    (`tau2.runs.check_provenance`) and the user did not give --allow-mismatch."""
    from tau2.errors import UserInputError

    if mismatches and not allow:
        raise UserInputError(
            f"cannot compare: {'; '.join(mismatches)} (the scores rest on different content; "
            "--allow-mismatch compares anyway)"
        )


def bootstrap_options(samples: int, seed: int) -> Bootstrap:
    """The bootstrap the report options ask for; more resamples than `Bootstrap` allows (time grows with
    them: a typo would run for days) is one line, before any run is read."""
    from tau2.errors import UserInputError
    from tau2.metrics import Bootstrap
    from tau2.metrics.bootstrap import MAX_SAMPLES

    if samples > MAX_SAMPLES:
        raise UserInputError(
            f"--bootstrap-samples {samples}: at most {MAX_SAMPLES:,} (intervals settle long before)"
        )
    return Bootstrap(samples=samples, seed=seed)


ConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="A TOML file of settings (field names as in the manifest); options given override its values.",
    ),
]
PrintConfig = Annotated[
    bool,
    typer.Option(
        "--print-config", help="Print the settings this command would use, as TOML for --config, and stop."
    ),
]


def configured_layers(
    config: Path | None, options: Sequence[DerivedOption], given: Mapping[str, Any]
) -> list[ConfigLayer]:
    """The settings a command was given: those of its `--config` file, then its options."""
    from tau2.cli._config_options import options_layer
    from tau2.config import ConfigLayer, RunConfig, dotted

    layers = [options_layer(options, given)]
    if config is not None:
        from_file = ConfigLayer.of(RunConfig.from_file(config)).values
        layers.insert(0, ConfigLayer(from_file, name=lambda path: f"{config}: {dotted(path)}"))
    return layers


R = TypeVar("R", bound="BaseModel")


def guard_outputs(html: Path | None, inputs: Sequence[Path]) -> None:
    """Refuse, before anything is read, a report whose output would land on what it reads (`inputs`, the
    run or experiment directories): an `--html` path that is one of their files or a link to one, or
    standard output sent into one."""
    from tau2.cli._output import refuse_stdout_over, require_writable_path

    refuse_stdout_over(inputs)
    if html is not None:
        require_writable_path(html, "--html", inputs)


def emit_report(
    report: R,
    warnings: Sequence[str],
    *,
    html: Path | None,
    json_output: bool,
    page: Callable[[R], Iterable[str]],
    summary: Callable[[R], Sequence[RenderableType]],
) -> None:
    """Print warnings on stderr, write the HTML page (given in parts, written as they come) if asked, then
    print the report as JSON or tables (`guard_outputs` has checked where they go)."""
    from tau2.cli._output import is_stdout, say, table_console
    from tau2.errors import UserInputError
    from tau2.report import write_page

    for warning in warnings:
        say(f"warning: {warning}", err=True)
    if is_stdout(html):
        if json_output:
            raise UserInputError("--html - and --json both write to stdout: give one of them")
        for part in page(report):
            typer.echo(part, nl=False)
        return
    if html is not None:
        write_page(html, page(report))
        say(f"wrote {html}", err=True)
    if json_output:
        sys.stdout.write(
            f"{report.model_dump_json(indent=2)}\n"
        )  # (echo would scan megabytes for colour codes)
        return
    console = table_console()
    for renderable in summary(report):
        console.print(renderable)
