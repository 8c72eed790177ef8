"""The retry budget: a model call keeps retrying transient failures (refused connections included) for a
span of time, so runs and episodes ride out a server restart. Both transports, at the HTTP boundary."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.cli._config_options import options_layer
from tau2.cli.run import RUN_OPTIONS
from tau2.config import layered
from tau2.domains.mock.tasks import BOTH
from tau2.llm import InfrastructureError, ModelClient, ModelSpec, RetryPolicy, call_settings
from tau2.runs import load_manifest, load_run
from tau2.tasks import Suite, UserInstructions
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "Hello"}]
LATENCY = 0.05
"""Seconds per reply, so the conversation is still under way when the restart comes."""
AGENT_SCRIPT = [
    Reply.tool_call("get_account", {"customer": "Ada"}),
    Reply.tool_call("enable_power", {"customer": "Ada"}),
    Reply.text("Power is back on. Please plug your lamp in."),
    Reply.text("Your issue is resolved."),
]
USER_SCRIPT = [
    Reply.text("My lamp is dark."),
    Reply.tool_call("plug_in"),
    Reply.text("I plugged it in and it is lit now."),
    Reply.tool_call("end_call"),
]


@pytest.fixture(params=["native", "litellm"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def local(server: ScriptedOpenAIServer, transport: str, **fields: Any) -> ModelSpec:
    """A spec of a model on the scripted server."""
    return ModelSpec(
        name="openai/m", api_base=server.base_url, args={"api_key": "k"}, transport=transport, **fields
    )


class FakeTime:
    """A clock that moves only when the injected sleep is awaited."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_default_spec_retries_by_time_not_by_count() -> None:
    spec = ModelSpec(name="openai/m")
    assert (spec.max_retries, spec.retry_budget_s) == (None, 300.0)
    with pytest.raises(ValueError, match="retries must end"):
        ModelSpec(name="openai/m", retry_budget_s=None)


async def test_the_default_budget_outlasts_a_60_second_outage(transport: str) -> None:
    time_ = FakeTime()

    def down_for_a_minute(_: ChatRequest) -> Reply:
        return Reply.error(503) if time_.now < 60.0 else Reply.text("back")

    async with ScriptedOpenAIServer(down_for_a_minute) as server:
        client = ModelClient(local(server, transport), sleep=time_.sleep, clock=time_.clock)
        completion = await client.complete(MESSAGES, seed=None)
    assert completion.text == "back"
    assert 60.0 <= time_.now < 120.0


async def test_a_spent_budget_gives_up_whatever_the_count(transport: str) -> None:
    time_ = FakeTime()
    async with ScriptedOpenAIServer(lambda _: Reply.error(503)) as server:
        client = ModelClient(
            local(server, transport, retry_budget_s=20.0), sleep=time_.sleep, clock=time_.clock
        )
        with pytest.raises(InfrastructureError, match=r"gave up after \d+ attempts in 20\.0 s"):
            await client.complete(MESSAGES, seed=None)
    assert time_.now == pytest.approx(20.0)


async def test_max_retries_ends_a_call_before_its_budget(transport: str) -> None:
    time_ = FakeTime()
    async with ScriptedOpenAIServer(lambda _: Reply.error(500)) as server:
        client = ModelClient(local(server, transport, max_retries=2), sleep=time_.sleep, clock=time_.clock)
        with pytest.raises(InfrastructureError, match="gave up after 3 attempts"):
            await client.complete(MESSAGES, seed=None)
    assert server.request_count == 3


def test_a_policy_budget_overrides_the_seat_limits() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=1.0, budget_s=100.0)
    assert policy.next_wait_s(10, 50.0, max_retries=2, budget_s=5.0) is not None
    assert policy.next_wait_s(10, 100.0, max_retries=None, budget_s=None) is None
    assert RetryPolicy().next_wait_s(2, 0.0, max_retries=2, budget_s=None) is None


def test_retry_options_reach_the_spec_and_need_a_model() -> None:
    given = {"agent_model": "openai/m", "agent_retry_budget": 42.0, "agent_max_retries": 3}
    spec = layered([options_layer(RUN_OPTIONS, given)]).agent.model
    assert spec is not None and (spec.retry_budget_s, spec.max_retries) == (42.0, 3)
    with pytest.raises(ValueError, match="--judge-retry-budget: no model"):
        layered([options_layer(RUN_OPTIONS, {"judge_retry_budget": 1.0})])


class Provider:
    """Plays both seats of the mock task `both` from the conversation alone, so a restarted server
    carries on where the old one stopped."""

    def __call__(self, request: ChatRequest) -> Reply:
        replies = sum(message["role"] == "assistant" for message in request.messages)
        if "end_call" in request.tool_names:
            return USER_SCRIPT[replies]
        return AGENT_SCRIPT[replies - 1]


class Restarter:
    """Stops the server once it has answered `after` requests and starts a new one on the same port
    `gap_s` seconds later: clients meanwhile see refused connections."""

    def __init__(self, server: ScriptedOpenAIServer, *, after: int, gap_s: float) -> None:
        self.server = server
        self._after, self._gap_s = after, gap_s
        self.restarted = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Restarter:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._thread.join()
        self.server.stop()

    def _run(self) -> None:
        while self.server.request_count < self._after:
            time.sleep(0.01)
        port = self.server.port
        self.server.stop()
        time.sleep(self._gap_s)
        self.server = ScriptedOpenAIServer(Provider(), latency=LATENCY, port=port)
        self.server.start()
        self.restarted.set()


def seat_options(base_url: str, transport: str) -> list[str]:
    options: list[str] = []
    for seat in ("agent", "user"):
        options += [f"--{seat}", "llm", f"--{seat}-model", "openai/tau2-test-model"]
        options += [f"--{seat}-api-base", base_url, f"--{seat}-arg", "api_key=sk-test"]
        options += [f"--{seat}-transport", transport]
    return options


@pytest.fixture
def lamp_suite(tmp_path: Path) -> Path:
    instructions = BOTH.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    tasks = []
    for number in range(3):
        known = instructions.model_copy(update={"known_info": f"You are Ada; case-{number}."})
        scenario = BOTH.user_scenario.model_copy(update={"instructions": known})
        tasks.append(BOTH.model_copy(update={"id": f"case-{number}", "user_scenario": scenario}))
    path = tmp_path / "suite.json"
    Suite(name="restart", domain="mock", tasks=tasks).save(path)
    return path


QUICK = RetryPolicy(base_delay_s=0.1, max_delay_s=0.25)
"""Backoff short enough that a count of retries (the old default of 4) would be spent within the restart's
gap: only the seats' time budget carries the calls across it."""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_survives_a_server_restart(
    lamp_suite: Path, tmp_path: Path, transport: str, workers: str
) -> None:
    out = tmp_path / "run"
    server = ScriptedOpenAIServer(Provider(), latency=LATENCY)
    server.start()
    arguments = ["run", "--suite", str(lamp_suite), "--out", str(out), "--trials", "2", "--concurrency", "3"]
    arguments += ["--workers", workers]
    with Restarter(server, after=5, gap_s=2.0) as restarter, call_settings(retry=QUICK):
        result = CliRunner().invoke(app, [*arguments, *seat_options(server.base_url, transport)])
        assert restarter.restarted.is_set()
    assert result.exit_code == 0, result.output
    assert "simulations: 6/6 judged, 0 infrastructure errors" in result.stdout
    assert all(record.success for record in load_run(out).records)
    manifest = load_manifest(out)
    assert manifest.agent.model is not None and manifest.agent.model.retry_budget_s == 300.0


def test_an_episode_survives_a_server_restart(lamp_suite: Path, transport: str) -> None:
    server = ScriptedOpenAIServer(Provider(), latency=LATENCY)
    server.start()
    arguments = ["episode", "--suite", str(lamp_suite), "--task-id", "case-0", "--json"]
    arguments += ["--agent-retry-budget", "120", "--user-retry-budget", "120"]
    with Restarter(server, after=3, gap_s=2.0) as restarter, call_settings(retry=QUICK):
        result = CliRunner().invoke(app, [*arguments, *seat_options(server.base_url, transport)])
        assert restarter.restarted.is_set()
    assert result.exit_code == 0, result.output
    assert '"termination":"user_stop"' in result.stdout.replace(" ", "")


def test_resume_keeps_the_retry_options_of_the_manifest(lamp_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(Provider()) as server:
        options = seat_options(server.base_url, "native")
        first = ["run", "--suite", str(lamp_suite), "--out", str(out), "--task-ids", "case-0", *options]
        result = CliRunner().invoke(app, [*first, "--agent-retry-budget", "42", "--user-max-retries", "7"])
        assert result.exit_code == 0, result.output
        keys = ["--agent-arg", "api_key=sk-test", "--user-arg", "api_key=sk-test"]  # never stored
        again = CliRunner().invoke(app, ["run", "--out", str(out), "--resume", *keys])
        assert again.exit_code == 0, again.output
        resume = ["run", "--out", str(out), "--resume", *keys]
        changed = CliRunner().invoke(app, [*resume, "--agent-retry-budget", "9"])
    assert changed.exit_code == 2
    assert "agent.model.retry_budget_s (42.0 → 9.0)" in changed.output
    manifest = load_manifest(out)
    assert manifest.agent.model is not None and manifest.agent.model.retry_budget_s == 42.0
    assert manifest.user is not None and manifest.user.model is not None
    assert manifest.user.model.max_retries == 7
