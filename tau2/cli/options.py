"""Options and arguments shared by several subcommands, declared once, and the report commands' output."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from tau2.episode import EpisodeConfig, Mode

if TYPE_CHECKING:
    from pydantic import BaseModel
    from rich.console import RenderableType

    from tau2.metrics import Bootstrap
    from tau2.runner import ModelRequest, SeatRequest

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
Transport = Literal["auto", "native", "litellm"]
_TRANSPORT_HELP = (
    "How the {seat} model's calls travel: native (tau2's own client for OpenAI-compatible servers), "
    "litellm (any provider), or auto (native for openai/, hosted_vllm/, … models with an API base)."
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

_EPISODE_DEFAULTS = EpisodeConfig()


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


# The seat options, declared once for both seats and shared by `run` and `episode`.


def _seat_option(seat: str, suffix: str, help: str, **settings: Any) -> Any:
    return typer.Option(f"--{seat}{suffix}", help=help.format(seat=seat), **settings)


_KIND = (
    "Kind of the {seat} seat: llm (default; needs --{seat}-model), oracle, null, transfer, scripted, "
    "human, an installed kind, or module:factory."
)
_MODEL = "Model of the {seat} seat, as litellm names it (e.g. openai/gpt-4o-mini, hosted_vllm/qwen)."
_API_BASE = "API base of the {seat} seat's model server (e.g. http://127.0.0.1:8000/v1)."
_ARG = "KEY=VALUE provider argument of the {seat} seat's model (JSON value; repeatable)."
_TIMEOUT = "Seconds one model request of the {seat} seat may take (default 120)."
_RETRY_BUDGET = (
    "Seconds during which a failing model call of the {seat} seat is retried with backoff (server "
    "errors, rate limits, refused connections), from its first attempt (default 300)."
)
_MAX_RETRIES = "Most retries of one failing model call of the {seat} seat (default: as the budget allows)."

AgentKind = Annotated[str | None, _seat_option("agent", "", _KIND)]
AgentModel = Annotated[str | None, _seat_option("agent", "-model", _MODEL)]
AgentApiBase = Annotated[str | None, _seat_option("agent", "-api-base", _API_BASE)]
AgentArg = Annotated[list[str] | None, _seat_option("agent", "-arg", _ARG)]
AgentTimeout = Annotated[float | None, _seat_option("agent", "-timeout", _TIMEOUT, min=0.001)]
_TEXT_TOOL_CALLS = (
    "Read a tool call the {seat} model writes as JSON in its message (bare, fenced or in <tool_call> tags) "
    "as that call: a compatibility aid for servers without a tool-call parser (off by default)."
)
AgentTextToolCalls = Annotated[bool | None, _seat_option("agent", "-text-tool-calls", _TEXT_TOOL_CALLS)]
UserTextToolCalls = Annotated[bool | None, _seat_option("user", "-text-tool-calls", _TEXT_TOOL_CALLS)]
AgentRetryBudget = Annotated[
    float | None, _seat_option("agent", "-retry-budget", _RETRY_BUDGET, min=0.001, metavar="SECONDS")
]
AgentMaxRetries = Annotated[int | None, _seat_option("agent", "-max-retries", _MAX_RETRIES, min=0)]
UserKind = Annotated[str | None, _seat_option("user", "", _KIND)]
UserModel = Annotated[str | None, _seat_option("user", "-model", _MODEL)]
UserApiBase = Annotated[str | None, _seat_option("user", "-api-base", _API_BASE)]
UserArg = Annotated[list[str] | None, _seat_option("user", "-arg", _ARG)]
UserTimeout = Annotated[float | None, _seat_option("user", "-timeout", _TIMEOUT, min=0.001)]
UserRetryBudget = Annotated[
    float | None, _seat_option("user", "-retry-budget", _RETRY_BUDGET, min=0.001, metavar="SECONDS")
]
UserMaxRetries = Annotated[int | None, _seat_option("user", "-max-retries", _MAX_RETRIES, min=0)]

_JUDGE_MODEL = "Model judging natural-language assertions (default: none; such assertions then fail)."
_JUDGE_API_BASE = "API base of the judge model's server."
_JUDGE_ARG = "KEY=VALUE provider argument of the judge model (JSON value; repeatable)."
_JUDGE_TIMEOUT = "Seconds one request of the judge may take (default 120)."

JudgeModel = Annotated[str | None, _seat_option("judge", "-model", _JUDGE_MODEL)]
JudgeApiBase = Annotated[str | None, _seat_option("judge", "-api-base", _JUDGE_API_BASE)]
JudgeArg = Annotated[list[str] | None, _seat_option("judge", "-arg", _JUDGE_ARG)]
JudgeTimeout = Annotated[float | None, _seat_option("judge", "-timeout", _JUDGE_TIMEOUT, min=0.001)]
JudgeRetryBudget = Annotated[
    float | None, _seat_option("judge", "-retry-budget", _RETRY_BUDGET, min=0.001, metavar="SECONDS")
]
JudgeMaxRetries = Annotated[int | None, _seat_option("judge", "-max-retries", _MAX_RETRIES, min=0)]

# The episode options (every `EpisodeConfig` field but the seed), shared by `run` and `episode`.

ModeOption = Annotated[
    Mode | None, typer.Option("--mode", help=f"interactive or solo (default {_EPISODE_DEFAULTS.mode.value}).")
]
OraclePlan = Annotated[
    bool | None,
    typer.Option("--oracle-plan/--no-oracle-plan", help="Show the agent the reference solution as steps."),
]
MaxSteps = Annotated[
    int | None,
    typer.Option(
        "--max-steps", min=1, help=f"Actor turns per episode (default {_EPISODE_DEFAULTS.max_steps})."
    ),
]
MaxErrors = Annotated[
    int | None,
    typer.Option(
        "--max-errors", min=1, help=f"Failed tool calls per episode (default {_EPISODE_DEFAULTS.max_errors})."
    ),
]
MaxActorRetries = Annotated[
    int | None,
    typer.Option(
        "--max-actor-retries",
        min=1,
        help="Malformed outputs in a row before a seat is declared broken "
        f"(default {_EPISODE_DEFAULTS.max_actor_retries}).",
    ),
]
PolicyVariant = Annotated[
    str | None,
    typer.Option(
        "--policy-variant", help=f"Agent policy variant (default {_EPISODE_DEFAULTS.policy_variant})."
    ),
]
RetrievalOption = Annotated[
    str | None,
    typer.Option(
        "--retrieval",
        metavar="NAME",
        help="Retrieval configuration for a domain with a knowledge base (banking_knowledge: no_knowledge, "
        "full_kb, golden_retrieval, bm25 (default), bm25_grep, grep_only, terminal_use; the dense ones "
        "openai_embeddings[_grep], qwen_embeddings[_grep], alltools[-qwen] need --embedding-model).",
    ),
]
RetrievalTopK = Annotated[
    int | None,
    typer.Option(
        "--retrieval-top-k", min=1, max=1000, help="Documents one knowledge-base search returns (default 10)."
    ),
]
EmbeddingModel = Annotated[
    str | None,
    typer.Option("--embedding-model", help="Embedding model of the dense retrieval configurations."),
]
EmbeddingApiBase = Annotated[
    str | None,
    typer.Option(
        "--embedding-api-base",
        help="OpenAI-compatible embeddings endpoint (up to /v1; default OpenAI's; key from OPENAI_API_KEY).",
    ),
]
PersonaOption = Annotated[
    str | None,
    typer.Option(
        "--persona", help="Persona for every task (library name or .toml path); default: each task's."
    ),
]
SuiteOption = Annotated[
    Path | None, typer.Option("--suite", help="A tau2 suite file or a τ²-bench task file.")
]
SplitOption = Annotated[
    str | None,
    typer.Option("--split", help="Only the tasks of this split of the split_tasks.json beside a task file."),
]
DomainOption = Annotated[
    str | None,
    typer.Option("--domain", help="Use the domain's default suite; with --suite, the tasks' domain."),
]


def model_request(
    model: str | None,
    api_base: str | None,
    args: list[str] | None,
    timeout: float | None,
    transport: Transport | None = None,
    *,
    retry_budget: float | None = None,
    max_retries: int | None = None,
    option: str,
) -> ModelRequest:
    """A model's options as a request (None = not given); `option` prefixes the option names. A bad API
    base is refused here, before anything is read or written."""
    from tau2.errors import UserInputError
    from tau2.llm import api_base_problem
    from tau2.runner import ModelRequest, parse_assignments

    problem = None if api_base is None else api_base_problem(api_base)
    if problem is not None:
        raise UserInputError(f"--{option}-api-base: {problem}")
    return ModelRequest(
        model=model,
        api_base=api_base,
        args=parse_assignments(f"--{option}-arg", args or []),
        timeout_s=timeout,
        transport=transport,
        retry_budget_s=retry_budget,
        max_retries=max_retries,
    )


def seat_request(
    kind: str | None,
    model: str | None,
    api_base: str | None,
    args: list[str] | None,
    timeout: float | None,
    transport: Transport | None,
    *,
    retry_budget: float | None = None,
    max_retries: int | None = None,
    seat: str,
    text_tool_calls: bool | None = None,
) -> SeatRequest:
    """One seat's options as a request (None = not given)."""
    from tau2.runner import SeatRequest

    settings = model_request(
        model,
        api_base,
        args,
        timeout,
        transport,
        retry_budget=retry_budget,
        max_retries=max_retries,
        option=seat,
    )
    return SeatRequest(kind=kind, text_tool_calls=text_tool_calls or None, **dict(settings))


def episode_options(
    mode: Mode | None,
    oracle_plan: bool | None,
    max_steps: int | None,
    max_errors: int | None,
    max_actor_retries: int | None,
    policy_variant: str | None,
    retrieval: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The episode options given, by `EpisodeConfig` field name."""
    given = {
        "mode": None if mode is None else mode.value,
        "oracle_plan": oracle_plan,
        "max_steps": max_steps,
        "max_errors": max_errors,
        "max_actor_retries": max_actor_retries,
        "policy_variant": policy_variant,
        "retrieval": retrieval,
    }
    return {name: value for name, value in given.items() if value is not None}


def retrieval_options(
    name: str | None, top_k: int | None, embedding_model: str | None, embedding_api_base: str | None
) -> dict[str, Any] | None:
    """The retrieval options given, as the `RetrievalConfig` fields they set (None when none was given)."""
    given: dict[str, Any] = {
        key: value for key, value in (("name", name), ("top_k", top_k)) if value is not None
    }
    embedder = {
        key: value
        for key, value in (("model", embedding_model), ("api_base", embedding_api_base))
        if value is not None
    }
    if embedder:
        given["embedder"] = embedder
    return given or None


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
    from tau2.cli._output import is_stdout, require_writable_path, say, table_console
    from tau2.errors import UserInputError
    from tau2.report import write_page

    for warning in warnings:
        say(f"warning: {warning}", err=True)
    if is_stdout(html):
        if json_output:
            raise UserInputError("--html - and --json both write to stdout: give one of them")
        typer.echo(page(report), nl=False)
        return
    if html is not None:
        require_writable_path(html, "--html")
        write_page(html, page(report))
        say(f"wrote {html}", err=True)
    if json_output:
        typer.echo(report.model_dump_json(indent=2))
        return
    console = table_console()
    for renderable in summary(report):
        console.print(renderable)
