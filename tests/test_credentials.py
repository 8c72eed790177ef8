"""Missing or refused credentials: caught before the first simulation when the key is missing, and when
the provider refuses it (HTTP 401/403, on both transports), the run stops at once with one line naming
the seat. A run or episode that judged nothing exits non-zero with the most common failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.llm import AuthenticationError, InfrastructureError, ModelClient, ModelSpec, missing_credentials
from tau2.runs import read_records
from tau2.testing import Reply, ScriptedOpenAIServer

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "Hello"}]


@pytest.fixture(params=["native", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HOSTED_VLLM_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize("status", [401, 403])
async def test_refused_credentials_raise_at_once_on_both_transports(transport: str, status: int) -> None:
    async with ScriptedOpenAIServer([Reply.error(status), Reply.text("unused")]) as server:
        spec = ModelSpec(
            name="openai/m", api_base=server.base_url, args={"api_key": "k"}, transport=transport
        )
        with pytest.raises(AuthenticationError, match=r"openai/m: authentication failed"):
            await ModelClient(spec).complete(MESSAGES, seed=None)
    assert server.request_count == 1


async def test_litellm_without_a_key_is_an_authentication_failure_not_a_server_error() -> None:
    async with ScriptedOpenAIServer([Reply.text("unused")]) as server:
        spec = ModelSpec(name="openai/m", api_base=server.base_url, transport="litellm")
        with pytest.raises(AuthenticationError, match=r"(?i)missing credentials"):
            await ModelClient(spec).complete(MESSAGES, seed=None)
    assert server.request_count == 0


def test_missing_keys_are_found_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    local = "http://127.0.0.1:9/v1"
    assert (
        missing_credentials(ModelSpec(name="anthropic/claude-sonnet-4-5")) == "ANTHROPIC_API_KEY is not set"
    )
    assert missing_credentials(ModelSpec(name="openai/m", api_base=local, transport="litellm")) == (
        "OPENAI_API_KEY is not set (litellm wants one even for a local server: any value will do)"
    )
    assert missing_credentials(ModelSpec(name="openai/m", api_base=local, transport="native")) is None
    assert (
        missing_credentials(ModelSpec(name="openai/gpt-4o", transport="native"))
        == "OPENAI_API_KEY is not set"
    )
    assert missing_credentials(ModelSpec(name="anthropic/claude", args={"api_key": "k"})) is None
    assert missing_credentials(ModelSpec(name="ollama_chat/llama3.1")) is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert missing_credentials(ModelSpec(name="anthropic/claude-sonnet-4-5")) is None


def seats(base_url: str, transport: str, *, key: bool = True) -> list[str]:
    options: list[str] = []
    for seat in ("agent", "user"):
        options += [
            f"--{seat}",
            "llm",
            f"--{seat}-model",
            "openai/tau2-test-model",
            f"--{seat}-api-base",
            base_url,
        ]
        options += [f"--{seat}-transport", transport, f"--{seat}-max-retries", "0"]
        options += [f"--{seat}-arg", "api_key=sk-test"] if key else []
    return options


def test_a_run_without_a_key_is_refused_before_anything_is_written(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = "http://127.0.0.1:9/v1"
    result = CliRunner().invoke(
        app, ["run", "--suite", str(suite_file), "--out", str(out), *seats(base, "litellm", key=False)]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: agent seat (openai/tau2-test-model): OPENAI_API_KEY is not set (litellm wants one even for "
        "a local server: any value will do); set it, or give --agent-arg api_key=..."
    ]
    assert not out.exists()
    episode = CliRunner().invoke(
        app, ["episode", "--suite", str(suite_file), "--task-id", "both", *seats(base, "litellm", key=False)]
    )
    assert episode.exit_code == 2
    assert "agent seat (openai/tau2-test-model): OPENAI_API_KEY is not set" in episode.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_refused_key_stops_the_run_at_once(
    suite_file: Path, tmp_path: Path, transport: str, workers: str
) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(lambda _: Reply.error(401)) as server:
        arguments = ["run", "--suite", str(suite_file), "--out", str(out), "--workers", workers]
        result = CliRunner().invoke(app, [*arguments, "--trials", "3", *seats(server.base_url, transport)])
        requests = server.request_count
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: user seat: openai/tau2-test-model: authentication failed: ")
    assert "tau2 run --resume --out" in line
    assert requests <= 32  # the simulations in flight at most, never each one retried
    records, _ = read_records(out / "results.jsonl")
    assert records == []


def test_a_run_that_judged_nothing_exits_non_zero_with_the_most_common_failure(
    suite_file: Path, tmp_path: Path, transport: str
) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(lambda _: Reply.error(500)) as server:
        arguments = ["run", "--suite", str(suite_file), "--out", str(out), *seats(server.base_url, transport)]
        result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 1, result.output
    assert "0/" in result.stdout and "infrastructure errors" in result.stdout
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: no simulation was judged: ")
    assert "the most common (" in line and "gave up after 1 attempts" in line


def test_an_episode_that_was_not_judged_exits_non_zero(suite_file: Path, transport: str) -> None:
    with ScriptedOpenAIServer(lambda _: Reply.error(503)) as server:
        arguments = ["episode", "--suite", str(suite_file), "--task-id", "both"]
        result = CliRunner().invoke(app, [*arguments, *seats(server.base_url, transport)])
    assert result.exit_code == 1, result.output
    assert "error: the episode was not judged: infrastructure_error: user actor: InfrastructureError" in (
        result.stderr
    )


def test_infrastructure_error_stays_the_base_of_authentication_error() -> None:
    assert issubclass(AuthenticationError, InfrastructureError)


def test_a_refused_key_ends_an_episode_with_one_line(suite_file: Path, transport: str) -> None:
    with ScriptedOpenAIServer(lambda _: Reply.error(403)) as server:
        arguments = ["episode", "--suite", str(suite_file), "--task-id", "both"]
        result = CliRunner().invoke(app, [*arguments, *seats(server.base_url, transport)])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: user seat: openai/tau2-test-model: authentication failed: ")


def test_a_judge_refusing_the_key_stops_the_run_naming_the_judge(tmp_path: Path) -> None:
    with ScriptedOpenAIServer(lambda _: Reply.error(401)) as server:
        arguments = ["run", "--domain", "airline", "--agent", "oracle", "--user", "scripted", "--quiet"]
        arguments += ["--out", str(tmp_path / "r"), "--task-ids", "cancel_business"]
        arguments += ["--judge-model", "openai/gpt-4o-mini", "--judge-api-base", server.base_url]
        result = CliRunner().invoke(app, [*arguments, "--judge-arg", "api_key=sk-test"])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: judge: openai/gpt-4o-mini: authentication failed: HTTP 401: ")


def test_a_refused_key_stops_a_ray_run_at_once(suite_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    out = tmp_path / "run"
    with ScriptedOpenAIServer(lambda _: Reply.error(401)) as server:
        arguments = ["run", "--suite", str(suite_file), "--out", str(out), "--ray", "local", "--workers", "1"]
        result = CliRunner().invoke(app, [*arguments, *seats(server.base_url, "native")])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()[-1:]
    assert line.startswith("error: user seat: openai/tau2-test-model: authentication failed: ")
    assert read_records(out / "results.jsonl")[0] == []
