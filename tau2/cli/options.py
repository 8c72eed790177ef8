"""Options and arguments shared by several subcommands, declared once, and the report commands' output."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypeVar

import typer

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import RenderableType

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
AgentModel = Annotated[str | None, typer.Option("--agent-model", help="Model of an llm agent.")]
UserModel = Annotated[str | None, typer.Option("--user-model", help="Model of an llm user.")]
Transport = Literal["auto", "native", "litellm"]
_TRANSPORT_HELP = (
    "How an llm {seat}'s calls travel: native (tau2's own client for OpenAI-compatible servers), litellm "
    "(any provider), or auto (native for openai/, hosted_vllm/, … models with an API base; docs/llm.md)."
)
AgentTransport = Annotated[
    Transport | None, typer.Option("--agent-transport", help=_TRANSPORT_HELP.format(seat="agent"))
]
UserTransport = Annotated[
    Transport | None, typer.Option("--user-transport", help=_TRANSPORT_HELP.format(seat="user"))
]
JsonOutput = Annotated[
    bool, typer.Option("--json", help="Print JSON instead of tables (schema: docs/reports.md).")
]
HtmlFile = Annotated[
    Path | None,
    typer.Option("--html", metavar="FILE", help="Also write a self-contained HTML page with plots."),
]
BootstrapSamples = Annotated[
    int, typer.Option("--bootstrap-samples", min=1, help="Bootstrap resamples for intervals.")
]
BootstrapSeed = Annotated[int, typer.Option("--bootstrap-seed", help="Seed of the bootstrap.")]

R = TypeVar("R", bound="BaseModel")


def emit_report(
    report: R,
    warnings: Sequence[str],
    *,
    html: Path | None,
    json_output: bool,
    page: Callable[[R], str],
    summary: Callable[[R], Sequence[RenderableType]],
) -> None:
    """Print warnings on stderr, write the HTML page if asked, then print the report as JSON or tables."""
    from rich.console import Console

    from tau2.report import write_page

    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    if html is not None:
        write_page(html, page(report))
        typer.echo(f"wrote {html}", err=True)
    if json_output:
        typer.echo(report.model_dump_json(indent=2))
        return
    console = Console()
    for renderable in summary(report):
        console.print(renderable)
