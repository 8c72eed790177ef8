"""`tau2 run` with an LLM agent and an LLM user against the local scripted server: injected 429/500
errors and latency, a provider outage recorded as infrastructure errors, and their re-run on resume."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

import tau2.llm._limits
from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import TerminationReason
from tau2.llm import RateLimits, RetryPolicy
from tau2.metrics import task_outcomes
from tau2.runner import derive_seed
from tau2.runs import load_run, read_records
from tau2.tasks import Suite, UserInstructions
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer
from tau2.world import Side

CASES = [f"case-{number}" for number in range(6)]
DOWN = "case-2"
CASE = re.compile(r"case-\d+")
AGENT_SCRIPT = [
    Reply.tool_call("get_account", {"customer": "Ada"}),
    Reply.tool_call("enable_power", {"customer": "Ada"}),
    Reply.text("Power is back on. Please plug your lamp in."),
    Reply.text("Your issue is resolved."),
]


def user_script(case: str) -> list[Reply]:
    return [
        Reply.text(f"My lamp is dark ({case})."),
        Reply.tool_call("plug_in"),
        Reply.text("I plugged it in and it is lit now."),
        Reply.tool_call("end_call"),
    ]


class Provider:
    """Plays both seats of the mock task `both`, failing some first attempts with 429 or 500, and every
    request of one case while `outage` is on. Tracks the most requests it held at once."""

    def __init__(self) -> None:
        self.outage = True
        self.attempts: dict[tuple[str, str, int], int] = {}
        self.in_flight = 0
        self.most_in_flight = 0

    async def __call__(self, request: ChatRequest) -> Reply:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            return self._reply(request)
        finally:
            self.in_flight -= 1

    def _reply(self, request: ChatRequest) -> Reply:
        text = " ".join(str(message.get("content") or "") for message in request.messages)
        case = CASE.search(text)
        assert case is not None, text
        role = "user" if "end_call" in request.tool_names else "agent"
        replies = sum(message["role"] == "assistant" for message in request.messages)
        step: int = replies - 1 if role == "agent" else replies  # the agent's greeting is not a model reply
        if self.outage and case.group() == DOWN:
            return Reply.error(500)
        key = (case.group(), role, step)
        self.attempts[key] = self.attempts.get(key, 0) + 1
        if step == 1 and self.attempts[key] == 1:
            return Reply.error(429 if role == "agent" else 500)
        return (AGENT_SCRIPT if role == "agent" else user_script(case.group()))[step]


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    instructions = BOTH.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    tasks = []
    for case in CASES:
        known = instructions.model_copy(update={"known_info": f"You are Ada; your reference is {case}."})
        scenario = BOTH.user_scenario.model_copy(update={"instructions": known})
        tasks.append(BOTH.model_copy(update={"id": case, "user_scenario": scenario}))
    path = tmp_path / "suite.json"
    Suite(name="llm", domain="mock", tasks=tasks).save(path)
    return path


def test_llm_run_survives_provider_errors_and_resume_reruns_the_outage(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RetryPolicy, "delay_s", lambda self, attempt, retry_after=None: 0.0)
    provider = Provider()
    out = tmp_path / "run"
    with ScriptedOpenAIServer(provider, latency=0.02) as server:
        seats = []
        for seat in ("agent", "user"):
            seats += [f"--{seat}", "llm", f"--{seat}-model", "openai/tau2-test-model"]
            seats += [f"--{seat}-api-base", server.base_url, f"--{seat}-arg", "api_key=sk-test"]
            seats += [f"--{seat}-max-retries", "4"]  # the retries are instant here: bound them by count
        arguments = ["run", "--suite", str(suite_file), *seats, "--agent-arg", "temperature=0.25"]
        arguments += ["--persona", "easy", "--trials", "2", "--concurrency", "12", "--out", str(out)]
        host = urlsplit(server.base_url).netloc
        limits = RateLimits()
        monkeypatch.setattr(tau2.llm._limits, "_DEFAULT", limits)  # the CLI configures the process-wide table
        first = CliRunner().invoke(app, [*arguments, "--rate-limit", f"{host}=4/100000"])
        assert first.exit_code == 0, first.output
        assert "simulations: 10/12 judged, 2 infrastructure errors, 0 not run" in first.stdout
        assert "infrastructure errors: the most common (2 of 2): user actor: InfrastructureError: " in (
            first.stdout
        )
        assert "pass^1: 1.000 · tokens " in first.stdout and "cost unpriced" in first.stdout
        assert limits.limit_for([host]) is not None and provider.most_in_flight <= 4
        run = load_run(out)
        failed = [record for record in run.records if record.excluded]
        assert {(r.task_id, r.termination) for r in failed} == {
            (DOWN, TerminationReason.INFRASTRUCTURE_ERROR)
        }
        assert all("gave up after 5 attempts" in (r.termination_detail or "") for r in failed)
        judged = [record for record in run.records if not record.excluded]
        assert all(record.success for record in judged)
        assert all(r.usage[Side.AGENT].calls == 4 and r.usage[Side.USER].calls == 4 for r in judged)
        assert all(r.usage[Side.AGENT].cost is None for r in judged)
        outcome = {o.task_id: o for o in task_outcomes(run.records)}
        assert (outcome[DOWN].trials, outcome[DOWN].excluded) == (0, 2)
        assert (outcome["case-0"].trials, outcome["case-0"].excluded) == (2, 0)

        requests = server.requests
        for case in CASES:
            seen = {request.seed for request in requests if case in str(request.messages)}
            assert seen == {derive_seed(0, case, trial) for trial in range(2)}
        agent_requests = [request for request in requests if "get_account" in request.tool_names]
        user_requests = [request for request in requests if "end_call" in request.tool_names]
        assert {request.temperature for request in agent_requests} == {0.25}
        assert {request.temperature for request in user_requests} == {None}
        assert all("office administrator" in r.messages[0]["content"] for r in user_requests)

        provider.outage = False
        keys = ["--agent-arg", "api_key=sk-test", "--user-arg", "api_key=sk-test"]  # never stored
        resumed = CliRunner().invoke(app, ["run", "--resume", "--out", str(out), *keys])
        assert resumed.exit_code == 0, resumed.output
        assert "simulations: 12/12 judged, 0 infrastructure errors" in resumed.stdout
    records, _ = read_records(out / "results.jsonl")
    assert len(records) == 14
    effective = load_run(out).records
    assert len(effective) == 12 and all(record.success for record in effective)
